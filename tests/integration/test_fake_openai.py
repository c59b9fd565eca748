"""The fake OpenAI API answers the real openai SDK the way OpenAI does."""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request
from collections.abc import Iterator

import openai
import pytest
from openai import OpenAI
from openai.types.shared_params import ResponseFormatJSONSchema
from pydantic import BaseModel

from tests.fakes.fake_openai import CHAT_PATH, EMBEDDINGS_PATH, FakeOpenAI

pytestmark = pytest.mark.integration

TASK_SCHEMA: ResponseFormatJSONSchema = {
    "type": "json_schema",
    "json_schema": {
        "name": "task",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {"project": {"type": "string"}, "title": {"type": "string"}},
            "required": ["project", "title"],
            "additionalProperties": False,
        },
    },
}


class Task(BaseModel):
    project: str
    title: str


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def client(fake: FakeOpenAI, *, max_retries: int = 0, timeout: float = 10.0) -> OpenAI:
    return OpenAI(api_key="test", base_url=fake.base_url, max_retries=max_retries, timeout=timeout)


def ask(openai_client: OpenAI, text: str = "Classify: fix the login bug") -> str | None:
    completion = openai_client.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": text}],
        response_format=TASK_SCHEMA,
    )
    return completion.choices[0].message.content


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_structured_output_request_gets_the_scripted_content(fake: FakeOpenAI) -> None:
    fake.script_chat('{"project": "myproject", "title": "Fix the login bug"}')

    completion = client(fake).chat.completions.create(
        model="gpt-4o-mini",
        messages=[
            {"role": "system", "content": "Extract the task."},
            {"role": "user", "content": "myproject: fix the login bug"},
        ],
        response_format=TASK_SCHEMA,
    )

    assert json.loads(completion.choices[0].message.content or "") == {
        "project": "myproject",
        "title": "Fix the login bug",
    }
    assert completion.model == "gpt-4o-mini"
    assert completion.choices[0].finish_reason == "stop"
    usage = completion.usage
    assert usage is not None and usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    (request,) = fake.requests_to(CHAT_PATH)
    assert request["response_format"]["type"] == "json_schema"


def test_sdk_parse_reads_scripted_json_into_a_pydantic_model(fake: FakeOpenAI) -> None:
    fake.script_chat('{"project": "itachi", "title": "Add the fake"}')

    completion = client(fake).chat.completions.parse(
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "itachi: add the fake"}],
        response_format=Task,
    )

    assert completion.choices[0].message.parsed == Task(project="itachi", title="Add the fake")


def test_replies_are_consumed_in_order_then_the_default_answers(fake: FakeOpenAI) -> None:
    fake.default_chat_content = '{"project": "", "title": ""}'
    fake.script_chat("first")
    fake.script_chat("not json at all {")
    openai_client = client(fake)

    answers = [ask(openai_client) for _ in range(3)]

    assert answers == ["first", "not json at all {", '{"project": "", "title": ""}']


def test_longer_prompts_count_more_prompt_tokens(fake: FakeOpenAI) -> None:
    openai_client = client(fake)
    short = openai_client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}]
    )
    long = openai_client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "word " * 400}]
    )

    assert short.usage is not None and long.usage is not None
    assert long.usage.prompt_tokens > short.usage.prompt_tokens + 400


def test_rate_limit_is_retried_after_the_retry_after_header(fake: FakeOpenAI) -> None:
    fake.script_chat_error(429, "Rate limit reached for gpt-4o-mini", retry_after=0.1)
    fake.script_chat('{"project": "p", "title": "t"}')

    assert ask(client(fake, max_retries=1)) == '{"project": "p", "title": "t"}'
    assert len(fake.requests_to(CHAT_PATH)) == 2


def test_rate_limit_without_retries_raises_with_the_error_body(fake: FakeOpenAI) -> None:
    fake.script_chat_error(429, "Rate limit reached for gpt-4o-mini", retry_after=1)

    with pytest.raises(openai.RateLimitError) as raised:
        ask(client(fake))

    assert raised.value.status_code == 429
    assert raised.value.code == "rate_limit_exceeded"
    assert raised.value.response.headers["retry-after"] == "1"


def test_slow_reply_times_out_on_the_client(fake: FakeOpenAI) -> None:
    fake.script_chat_delay(60, "too late")  # a client that waited would get this answer, not a timeout

    with pytest.raises(openai.APITimeoutError):
        ask(client(fake, timeout=0.2))


def test_embeddings_are_deterministic_unit_vectors_of_the_requested_size(
    fake: FakeOpenAI,
) -> None:
    texts = ["fix the login bug", "deploy to staging", "fix the login bug"]

    result = client(fake).embeddings.create(model="text-embedding-3-small", input=texts, dimensions=384)

    vectors = [item.embedding for item in result.data]
    assert [len(vector) for vector in vectors] == [384, 384, 384]
    assert vectors[0] == vectors[2] != vectors[1]
    assert all(math.isclose(cosine(v, v), 1.0, abs_tol=1e-5) for v in vectors)
    assert result.usage.prompt_tokens == result.usage.total_tokens > 0
    assert fake.requests_to(EMBEDDINGS_PATH)[0]["encoding_format"] == "base64"


def test_float_and_base64_encodings_give_the_same_vector(fake: FakeOpenAI) -> None:
    openai_client = client(fake)

    as_base64 = openai_client.embeddings.create(model="text-embedding-3-small", input="recall me")
    as_floats = openai_client.embeddings.create(
        model="text-embedding-3-small", input="recall me", encoding_format="float"
    )

    assert len(as_base64.data[0].embedding) == 1536  # the model's own size
    assert as_base64.data[0].embedding == as_floats.data[0].embedding


def test_texts_sharing_words_are_closer_than_unrelated_texts(fake: FakeOpenAI) -> None:
    result = client(fake).embeddings.create(
        model="text-embedding-3-small",
        input=["the login bug is fixed", "fix the login bug", "rotate the database password"],
    )
    fixed, query, unrelated = (item.embedding for item in result.data)

    assert cosine(query, fixed) > cosine(query, unrelated) + 0.2


def test_scripted_embeddings_error_is_returned_once(fake: FakeOpenAI) -> None:
    fake.script_embeddings_error(500, "The server had an error")
    openai_client = client(fake)

    with pytest.raises(openai.InternalServerError):
        openai_client.embeddings.create(model="text-embedding-3-small", input="x")
    assert openai_client.embeddings.create(model="text-embedding-3-small", input="x").data


def test_request_without_a_bearer_token_is_unauthorized(fake: FakeOpenAI) -> None:
    request = urllib.request.Request(
        f"{fake.base_url}/embeddings",
        data=json.dumps({"model": "text-embedding-3-small", "input": "x"}).encode(),
        headers={"Content-Type": "application/json"},
    )

    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(request, timeout=5)

    assert raised.value.code == 401
    assert json.load(raised.value)["error"]["code"] == "invalid_api_key"
    assert fake.requests[0].headers.get("authorization") is None


def test_every_request_is_recorded_with_its_headers(fake: FakeOpenAI) -> None:
    ask(client(fake))

    (request,) = fake.requests
    assert request.path == CHAT_PATH
    assert request.headers["authorization"] == "Bearer test"
    assert request.json["messages"][0]["content"] == "Classify: fix the login bug"


def test_unknown_path_is_an_openai_shaped_not_found(fake: FakeOpenAI) -> None:
    with pytest.raises(openai.NotFoundError, match="Invalid URL"):
        client(fake).models.list()
