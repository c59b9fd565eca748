"""The fake Anthropic API refuses, over httpx, what the real Messages API refuses: missing
credentials, version or JSON content type, and tool_use / tool_result out of pairs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.fakes.fake_anthropic import FakeAnthropic, Reply

pytestmark = pytest.mark.integration

HEADERS = {"x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01", "content-type": "application/json"}
TOOLS = [{"name": "Read", "description": "Read a file", "input_schema": {"type": "object"}}]
ASK = {"role": "user", "content": "Read the README"}


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic([Reply.text("Sure.")]) as fake:
        yield fake


def post(fake: FakeAnthropic, messages: list[Any], headers: dict[str, str] | None = None,
         content: bytes | None = None) -> httpx.Response:
    body = {"model": "claude-sonnet-4-5", "max_tokens": 100, "tools": TOOLS, "messages": messages}
    return httpx.post(f"{fake.base_url}/v1/messages", headers=HEADERS if headers is None else headers,
                      content=json.dumps(body).encode() if content is None else content, timeout=10)


def error(response: httpx.Response) -> dict[str, Any]:
    body = response.json()
    assert body["type"] == "error" and response.headers["x-should-retry"] == "false"
    return dict(body["error"])


def tool_use(ident: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": ident, "name": "Read", "input": {"file_path": "README.md"}}


def tool_result(ident: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": ident, "content": "# Itachi"}


def test_a_request_with_every_header_and_paired_tools_is_answered(fake: FakeAnthropic) -> None:
    messages = [ASK, {"role": "assistant", "content": [tool_use("toolu_1"), tool_use("toolu_2")]},
                {"role": "user", "content": [tool_result("toolu_2"), tool_result("toolu_1")]}]
    response = post(fake, messages)
    assert response.status_code == 200 and response.json()["content"][0]["text"] == "Sure."
    assert fake.refused == [] and fake.remaining == 0


def test_a_bearer_token_stands_for_the_api_key(fake: FakeAnthropic) -> None:
    headers = {**HEADERS, "authorization": "Bearer sk-ant-oat-test"}
    del headers["x-api-key"]
    assert post(fake, [ASK], headers).status_code == 200


@pytest.mark.parametrize(("missing", "status", "kind", "message"), [
    ("x-api-key", 401, "authentication_error", "x-api-key header is required"),
    ("anthropic-version", 400, "invalid_request_error", "anthropic-version: header is required"),
])
def test_a_missing_required_header_is_refused(fake: FakeAnthropic, missing: str, status: int, kind: str,
                                              message: str) -> None:
    response = post(fake, [ASK], {k: v for k, v in HEADERS.items() if k != missing})
    assert response.status_code == status and error(response) == {"type": kind, "message": message}
    assert fake.remaining == 1  # a refused request consumes nothing of the script


def test_a_body_that_is_not_json_by_its_content_type_is_refused(fake: FakeAnthropic) -> None:
    response = post(fake, [ASK], {**HEADERS, "content-type": "text/plain"})
    assert response.status_code == 400 and "application/json" in error(response)["message"]


def test_a_tool_use_left_unanswered_in_the_next_turn_is_refused(fake: FakeAnthropic) -> None:
    messages = [ASK, {"role": "assistant", "content": [tool_use("toolu_1"), tool_use("toolu_2")]},
                {"role": "user", "content": [tool_result("toolu_1")]}]
    response = post(fake, messages)
    assert response.status_code == 400
    assert error(response)["message"].startswith(
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2.")


def test_a_tool_result_answering_no_tool_use_of_the_previous_turn_is_refused(fake: FakeAnthropic) -> None:
    messages = [ASK, {"role": "assistant", "content": [tool_use("toolu_1")]},
                {"role": "user", "content": [tool_result("toolu_1")]},
                {"role": "assistant", "content": [{"type": "text", "text": "Read it."}]},
                {"role": "user", "content": [tool_result("toolu_1")]}]
    response = post(fake, messages)
    assert response.status_code == 400
    assert error(response)["message"].startswith(
        "messages.4.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1.")
    assert len(fake.refused) == 1
