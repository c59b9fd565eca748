"""Fit texts to an embeddings API's limits: tokens an input, inputs and tokens a request.

Tokens are bounded without a tokenizer by UTF-8 bytes: every BPE token of OpenAI's encodings
holds at least one byte, so the bound is never below the real count, for code, CJK or emoji
alike. English prose runs about four bytes a token, so a cut input keeps about a quarter of
what the model could have read: its start, which is what a text's embedding leans on most.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence


def token_bound(text: str) -> int:
    """At least as many tokens as any byte-level BPE tokenizer makes of `text`."""
    return len(text.encode("utf-8"))


def fit_input(text: str, max_tokens: int) -> str:
    """`text`, or its longest start within `max_tokens`, cut between characters."""
    data = text.encode("utf-8")
    if len(data) <= max_tokens:
        return text
    return data[:max_tokens].decode("utf-8", errors="ignore")


def batches(inputs: Sequence[str], *, max_inputs: int, max_tokens: int) -> Iterator[Sequence[str]]:
    """Consecutive runs of `inputs`, each within `max_inputs` and `max_tokens` (each input fits alone)."""
    start, total = 0, 0
    for end, text in enumerate(inputs):
        cost = token_bound(text)
        if end > start and (end - start >= max_inputs or total + cost > max_tokens):
            yield inputs[start:end]
            start, total = end, 0
        total += cost
    if start < len(inputs):
        yield inputs[start:]
