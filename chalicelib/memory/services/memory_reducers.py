"""Reducers: the deterministic one (always there) and the LLM one (when a key is set).

The LLM reducer asks for a hint or an abstract that keeps names, numbers and dates, within the
daily LLM budget; any text it cannot get (budget spent, error, empty answer) falls back to the
deterministic reduction, so an eviction run never waits on the model's availability.
"""

from __future__ import annotations

from collections.abc import Sequence

from chalicelib.llm.services.ports import LanguageModel
from chalicelib.memory.domain.memory_lifecycle import HINT
from chalicelib.memory.domain.memory_reduction import ABSTRACT_CHARS, HINT_CHARS, abstract, hint

_SYSTEM = ("You shorten notes an AI coding agent keeps about a project. Keep every name, number, date, "
           "file path and identifier that matters. Answer with the shortened note only.")
_SCHEMA = {"type": "object", "required": ["text"], "additionalProperties": False,
           "properties": {"text": {"type": "string"}}}


class DeterministicReducer:
    def reduce(self, texts: Sequence[str], to_phase: int) -> list[str]:
        shorten = hint if to_phase == HINT else abstract
        return [shorten(t) or t[:ABSTRACT_CHARS] for t in texts]


class LlmReducer:
    def __init__(self, llm: LanguageModel, fallback: DeterministicReducer | None = None) -> None:
        self._llm = llm
        self._fallback = fallback or DeterministicReducer()

    def reduce(self, texts: Sequence[str], to_phase: int) -> list[str]:
        limit = HINT_CHARS if to_phase == HINT else ABSTRACT_CHARS
        shape = "a hint: the lead point and key facts" if to_phase == HINT else "a one-line abstract"
        out = []
        for text in texts:
            answer = None
            if len(text) > limit:
                answer = self._llm.complete_json(
                    "memory_reduction", _SYSTEM, f"Shorten this note to {shape}, at most {limit} "
                    f"characters:\n\n{text[:6000]}", _SCHEMA, max_tokens=200, temperature=0.0)
            reduced = str((answer or {}).get("text") or "").strip()[:limit]
            out.append(reduced or self._fallback.reduce([text], to_phase)[0])
        return out
