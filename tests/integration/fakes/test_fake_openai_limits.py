"""The fake OpenAI server refuses, through the real openai SDK, what the real API refuses:
embedding models, dimensions, input and request sizes; chat arguments, tools and tool order."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest
from openai import OpenAI

from tests.fakes.fake_openai import FakeOpenAI
from tests.fakes.openai_embedding_rules import MAX_INPUT_TOKENS, MAX_INPUTS

pytestmark = pytest.mark.integration

USER: Any = {"role": "user", "content": "Who handles the Anderson account?"}
LOOKUP: Any = {"type": "function",
          "function": {"name": "lookup", "parameters": {"type": "object", "properties": {}}}}
# OpenAI's tokenizers split digits and spaces apart, so "7 " * n is exactly 2n tokens: a text
# the real API counts as the fake does (elsewhere the fake's count is an upper bound).
TOKEN_A_BYTE = "7 "


@pytest.fixture
def client() -> Iterator[OpenAI]:
    with FakeOpenAI() as fake:
        yield OpenAI(api_key="sk-test", base_url=fake.base_url, max_retries=0)


def refused(call: Any) -> openai.APIStatusError:
    with pytest.raises(openai.APIStatusError) as caught:
        call()
    return caught.value


def error_of(exc: openai.APIStatusError) -> dict[str, Any]:
    body = exc.body
    assert isinstance(body, dict) and set(body) >= {"message", "type", "param", "code"}, body
    return body


def test_an_unknown_embedding_model_is_refused_as_an_invalid_model_id(client: OpenAI) -> None:
    exc = refused(lambda: client.embeddings.create(model="text-embedding-4-tiny", input="hello"))
    assert exc.status_code == 400 and error_of(exc)["message"] == "invalid model ID"
    assert error_of(exc)["type"] == "invalid_request_error"


@pytest.mark.parametrize(("model", "dimensions", "message"), [
    ("text-embedding-ada-002", 512, "This model does not support specifying dimensions."),
    ("text-embedding-3-small", 2048, "Expected a value <= 1536, but got 2048 instead."),
    ("text-embedding-3-large", 0, "Expected a value >= 1, but got 0 instead."),
])
def test_dimensions_a_model_cannot_give_are_refused(client: OpenAI, model: str, dimensions: int,
                                                      message: str) -> None:
    exc = refused(lambda: client.embeddings.create(model=model, input="hello", dimensions=dimensions))
    assert exc.status_code == 400 and message in error_of(exc)["message"]


def test_a_model_answers_its_own_size_without_dimensions_and_fewer_with_them(client: OpenAI) -> None:
    large = client.embeddings.create(model="text-embedding-3-large", input="hello", encoding_format="float")
    short = client.embeddings.create(model="text-embedding-3-large", input="hello", dimensions=3072,
                                     encoding_format="float")
    assert len(large.data[0].embedding) == len(short.data[0].embedding) == 3072


def test_an_input_over_8192_tokens_is_refused(client: OpenAI) -> None:
    over = TOKEN_A_BYTE * (MAX_INPUT_TOKENS // 2 + 1)
    exc = refused(lambda: client.embeddings.create(model="text-embedding-3-small", input=[over]))
    assert exc.status_code == 400
    assert f"maximum context length is {MAX_INPUT_TOKENS} tokens" in error_of(exc)["message"]
    at_the_limit = TOKEN_A_BYTE * (MAX_INPUT_TOKENS // 2)
    assert client.embeddings.create(model="text-embedding-3-small", input=[at_the_limit], dimensions=8).data


def test_cjk_text_is_counted_by_its_bytes_never_fewer_tokens_than_openai_counts(client: OpenAI) -> None:
    cjk = "数据库中的向量索引" * 310  # 2,790 characters but 8,370 bytes
    exc = refused(lambda: client.embeddings.create(model="text-embedding-3-small", input=[cjk]))
    assert exc.status_code == 400 and "maximum context length" in error_of(exc)["message"]


def test_more_than_2048_inputs_in_one_request_are_refused(client: OpenAI) -> None:
    exc = refused(lambda: client.embeddings.create(model="text-embedding-3-small",
                                                   input=["x"] * (MAX_INPUTS + 1), dimensions=8))
    assert exc.status_code == 400 and "'$.input' is invalid" in error_of(exc)["message"]
    assert len(client.embeddings.create(model="text-embedding-3-small", input=["x"] * MAX_INPUTS,
                                        dimensions=8).data) == MAX_INPUTS


def test_more_than_300000_tokens_in_one_request_are_refused(client: OpenAI) -> None:
    inputs = [TOKEN_A_BYTE * 4000] * 38  # 8,000 tokens each, 304,000 together
    exc = refused(lambda: client.embeddings.create(model="text-embedding-3-small", input=inputs,
                                                   dimensions=8))
    assert exc.status_code == 400 and error_of(exc)["code"] == "max_tokens_per_request"
    assert error_of(exc)["message"] == "Requested 304000 tokens, max 300000 tokens per request"
    assert client.embeddings.create(model="text-embedding-3-small", input=inputs[:37], dimensions=8).data


def test_an_unknown_chat_argument_is_refused(client: OpenAI) -> None:
    exc = refused(lambda: client.chat.completions.create(
        model="gpt-4o-mini", messages=[USER], extra_body={"temprature": 0.2}))  # type: ignore[list-item]
    assert exc.status_code == 400
    assert error_of(exc)["message"] == "Unrecognized request argument supplied: temprature"


@pytest.mark.parametrize(("tools", "param"), [
    ([{"type": "retrieval"}], "tools[0].type"),
    ([{"type": "function", "function": {"description": "no name"}}], "tools[0].function.name"),
    ([LOOKUP, {"type": "function", "function": {"name": "look up!"}}], "tools[1].function.name"),
    ([{"type": "function", "function": {"name": "lookup", "parameters": {"type": "array"}}}],
     "tools[0].function.parameters"),
])
def test_malformed_tools_are_refused_naming_the_bad_field(client: OpenAI, tools: list[Any],
                                                          param: str) -> None:
    exc = refused(lambda: client.chat.completions.create(model="gpt-4o-mini", messages=[USER],
                                                         tools=tools))
    assert exc.status_code == 400 and error_of(exc)["param"] == param


def call(call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "lookup", "arguments": "{}"}}


def answer(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "Peter"}


@pytest.mark.parametrize(("messages", "words"), [
    ([USER, answer("call_1")], "must be a response to a preceeding message with 'tool_calls'"),
    ([USER, {"role": "assistant", "content": None, "tool_calls": [call("call_1")]}, answer("call_2")],
     "must be a response to a preceeding message with 'tool_calls'"),
    ([USER, {"role": "assistant", "content": None, "tool_calls": [call("call_1"), call("call_2")]},
      answer("call_1"), USER], "did not have response messages: call_2"),
    ([USER, {"role": "assistant", "content": None, "tool_calls": [call("call_1")]}],
     "did not have response messages: call_1"),
])
def test_tool_messages_out_of_order_are_refused(client: OpenAI, messages: list[Any], words: str) -> None:
    exc = refused(lambda: client.chat.completions.create(model="gpt-4o-mini", messages=messages,
                                                         tools=[LOOKUP]))
    assert exc.status_code == 400 and words in error_of(exc)["message"]


def test_tool_messages_answering_every_call_in_turn_are_accepted(client: OpenAI) -> None:
    messages: list[Any] = [USER, {"role": "assistant", "content": None,
                                  "tool_calls": [call("call_1"), call("call_2")]},
                           answer("call_2"), answer("call_1")]
    completion = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=[LOOKUP])
    assert completion.choices[0].finish_reason == "stop"
