"""The OpenAI embedder keeps to the API's limits (8,192 tokens an input, 2,048 inputs and 300,000
tokens a request) for any text: long code and CJK, through the real SDK against the strict fake."""

from __future__ import annotations

import pytest

from chalicelib.memory.adapters.openai_embedder import OpenAIEmbedder
from tests.fakes.fake_openai import EMBEDDINGS_PATH, FakeOpenAI
from tests.fakes.openai_embedding_rules import MAX_INPUT_TOKENS, MAX_REQUEST_TOKENS, token_bound

pytestmark = pytest.mark.integration

DIMENSION = 64  # small vectors keep the fake quick; the limits do not depend on them


def long_code(n: int) -> str:
    """About 24,000 characters of Python: short tokens, many symbols."""
    lines = [f"def handler_{n}_{i}(event, ctx):\n    return {{'status': 200, 'body': event[{i}]}}\n"
             for i in range(330)]
    return "".join(lines)


def long_cjk(n: int) -> str:
    """About 24,000 characters of Japanese and Chinese: three UTF-8 bytes each, often a token each."""
    sentence = "記憶は長期的に保存され、エージェントが検索します。数据库中的向量索引。"
    return (f"第{n}章 " + sentence * 700)[:24_000]


def embedder_for(fake: FakeOpenAI) -> OpenAIEmbedder:
    return OpenAIEmbedder(api_key="sk-test", base_url=fake.base_url, dimension=DIMENSION, max_retries=0)


def test_long_code_and_cjk_texts_are_cut_to_fit_each_input_and_each_request() -> None:
    texts = [long_code(i) if i % 2 else long_cjk(i) for i in range(60)] + ["short", "", "🙂" * 9000]
    with FakeOpenAI() as fake:
        embedder = embedder_for(fake)
        vectors = embedder.embed(texts)
        requests = fake.requests_to(EMBEDDINGS_PATH)

    assert len(vectors) == len(texts) and all(len(v) == DIMENSION for v in vectors)
    assert len(requests) > 1  # 63 long inputs do not fit one request of 300,000 tokens
    sent = [text for request in requests for text in request["input"]]
    assert len(sent) == len(texts)
    assert all(token_bound(text) <= MAX_INPUT_TOKENS for text in sent)
    assert all(sum(token_bound(t) for t in request["input"]) <= MAX_REQUEST_TOKENS for request in requests)
    assert all(original.startswith(cut) for original, cut in zip(texts, sent, strict=True) if original)
    assert sent[0] != texts[0] and len(sent[0]) > 2000  # cut on a character, not emptied


def test_a_text_over_the_input_limit_gets_the_vector_of_its_first_part() -> None:
    cjk = long_cjk(1)
    with FakeOpenAI() as fake:
        embedder = embedder_for(fake)
        (whole,) = embedder.embed([cjk])
        (sent,) = fake.requests_to(EMBEDDINGS_PATH)[0]["input"]
        (start,) = embedder.embed([sent])
    assert whole == start and cjk.startswith(sent)
