"""What the real OpenAI embeddings API refuses, for the fake server to refuse the same way.

Written from the API's documented limits and its observed error bodies, independently of
Itachi's embedder (`chalicelib.memory.adapters.openai_embedder`), so a test against the fake
checks the embedder's batching instead of agreeing with it by construction:

- an unknown model is a 400 "invalid model ID";
- `dimensions` is refused by text-embedding-ada-002 and must be 1..the model's own size
  (1536 for text-embedding-3-small, 3072 for -large);
- `input` is a non-empty string or a list of 1..2048 non-empty strings;
- one input may hold at most 8,192 tokens, a request at most 300,000 over all its inputs.

Tokens are counted as UTF-8 bytes, without the real tokenizer: every BPE token of OpenAI's
encodings holds at least one byte, so this count is never below the real one for any text
(code, CJK, emoji). The fake thus refuses everything OpenAI refuses, and also English text
between about 8 and 32 KB that OpenAI would take (about four bytes a token there).
"""

from __future__ import annotations

from typing import Any

from tests.fakes.openai_rules import Refusal

MODEL_DIMENSIONS = {
    "text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536,
}
FIXED_DIMENSIONS = frozenset({"text-embedding-ada-002"})
MAX_INPUTS = 2048
MAX_INPUT_TOKENS = 8192
MAX_REQUEST_TOKENS = 300_000
_INVALID_INPUT = "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference."


def token_bound(text: str) -> int:
    """At least as many tokens as OpenAI's tokenizers make of `text`: its UTF-8 bytes."""
    return len(text.encode("utf-8"))


def check_embeddings_request(request: dict[str, Any]) -> Refusal | None:
    """The error the real API would answer `request` with, or None when it is acceptable."""
    model = request.get("model")
    if model not in MODEL_DIMENSIONS:
        return Refusal(400, "invalid model ID", None, None)
    refused = _check_dimensions(str(model), request)
    if refused is not None:
        return refused
    texts = request.get("input")
    texts = [texts] if isinstance(texts, str) else texts
    if not isinstance(texts, list) or not 1 <= len(texts) <= MAX_INPUTS:
        return Refusal(400, _INVALID_INPUT, None, None)
    if not all(isinstance(text, str) and text for text in texts):
        return Refusal(400, _INVALID_INPUT, None, None)
    counts = [token_bound(text) for text in texts]
    if max(counts) > MAX_INPUT_TOKENS:
        return Refusal(400, f"This model's maximum context length is {MAX_INPUT_TOKENS} tokens, however you "
                            f"requested {max(counts)} tokens ({max(counts)} in your prompt; 0 for the "
                            "completion). Please reduce your prompt; or completion length.", None, None)
    if sum(counts) > MAX_REQUEST_TOKENS:
        return Refusal(400, f"Requested {sum(counts)} tokens, max {MAX_REQUEST_TOKENS} tokens per request",
                       None, "max_tokens_per_request")
    return None


def answer_dimensions(request: dict[str, Any]) -> int:
    """The size of the vectors the real API answers an accepted request with."""
    return int(request.get("dimensions") or MODEL_DIMENSIONS[str(request["model"])])


def _check_dimensions(model: str, request: dict[str, Any]) -> Refusal | None:
    if "dimensions" not in request:
        return None
    if model in FIXED_DIMENSIONS:
        return Refusal(400, "This model does not support specifying dimensions.", None, None)
    value, top = request["dimensions"], MODEL_DIMENSIONS[model]
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        return Refusal(400, "Invalid 'dimensions': integer below minimum value. Expected a value >= 1, "
                            f"but got {value} instead.", "dimensions", "integer_below_min_value")
    if value > top:
        return Refusal(400, "Invalid 'dimensions': integer above maximum value. Expected a value <= "
                            f"{top}, but got {value} instead.", "dimensions", "integer_above_max_value")
    return None
