"""Session difficulty and hot-file ranking: pure functions over session counters."""

from __future__ import annotations

TOOL_COUNT_NORM = 50  # tool calls at which a session counts as fully "busy"


def difficulty(tool_failures: int, tool_successes: int, compactions: int) -> float:
    """Return a 0-1 difficulty: 0.5 x failure rate + 0.3 x tool volume + 0.2 if compacted.

    A session that needed compaction was long; one with many failing tools was hard.
    """
    total = tool_failures + tool_successes
    failure_rate = tool_failures / total if total else 0.0
    volume = min(1.0, total / TOOL_COUNT_NORM)
    compacted = 1.0 if compactions > 0 else 0.0
    return round(0.5 * failure_rate + 0.3 * volume + 0.2 * compacted, 4)


def clip(text: str | None, limit: int) -> str | None:
    """Cap a free-text field, marking the cut."""
    if text is None or len(text) <= limit:
        return text
    return text[: limit - 1] + "…"
