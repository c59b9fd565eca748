"""A session transcript cut into searchable chunks: whole turns, about CHUNK_CHARS each."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

CHUNK_CHARS = 1500
MAX_CHUNKS = 40  # per session: a huge transcript keeps its first and last parts


def chunks(turns: Sequence[dict[str, Any]], redact: Callable[[str], str]) -> list[str]:
    """Redacted chunks of `role: text` lines; a turn longer than a chunk is split."""
    pieces: list[str] = []
    for turn in turns:
        text = " ".join(str(turn.get("text") or "").split())
        if not text:
            continue
        line = f"{turn.get('role') or 'unknown'}: {redact(text)}"
        pieces += [line[i : i + CHUNK_CHARS] for i in range(0, len(line), CHUNK_CHARS)]
    out: list[str] = []
    current = ""
    for piece in pieces:
        if current and len(current) + len(piece) + 1 > CHUNK_CHARS:
            out.append(current)
            current = ""
        current = f"{current}\n{piece}" if current else piece
    if current:
        out.append(current)
    if len(out) > MAX_CHUNKS:
        half = MAX_CHUNKS // 2
        out = out[:half] + out[-half:]
    return out
