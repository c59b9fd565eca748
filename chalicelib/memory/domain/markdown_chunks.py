"""Split markdown into overlapping chunks that remember their heading path.

Sizes are in estimated tokens (about four characters each, the usual rule for English and
code). A chunk holds whole lines up to MAX_TOKENS; the next chunk of the same section starts
OVERLAP_TOKENS earlier so a sentence cut at a boundary is found from either side. Headings
never share a chunk with another section, and fenced code is not mistaken for headings.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

MAX_TOKENS = 400
OVERLAP_TOKENS = 80
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class Chunk:
    heading_path: tuple[str, ...]
    text: str
    index: int

    @property
    def content(self) -> str:
        """The stored text: the heading path on the first line, then the chunk."""
        if not self.heading_path:
            return self.text
        return " > ".join(self.heading_path) + "\n\n" + self.text


def estimate_tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


def chunk_markdown(text: str, max_tokens: int = MAX_TOKENS,
                   overlap_tokens: int = OVERLAP_TOKENS) -> list[Chunk]:
    """Chunks of `text` in document order, each with the headings above it."""
    if overlap_tokens >= max_tokens:
        raise ValueError("overlap must be smaller than the chunk size")
    chunks: list[Chunk] = []
    for path, lines in _sections(text):
        units = [piece for line in lines for piece in _split_long(line, max_tokens)]
        for window in _windows(units, max_tokens, overlap_tokens):
            body = "\n".join(window).strip()
            if body:
                chunks.append(Chunk(path, body, len(chunks)))
    return chunks


def _sections(text: str) -> Iterator[tuple[tuple[str, ...], list[str]]]:
    path: list[tuple[int, str]] = []
    lines: list[str] = []
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        heading = None if in_fence else _HEADING.match(line)
        if heading is None:
            lines.append(line)
            continue
        yield tuple(title for _, title in path), lines
        level = len(heading.group(1))
        path = [(lvl, title) for lvl, title in path if lvl < level] + [(level, heading.group(2))]
        lines = []
    yield tuple(title for _, title in path), lines


def _split_long(line: str, max_tokens: int) -> list[str]:
    """A line longer than a chunk becomes word-bounded pieces."""
    if estimate_tokens(line) <= max_tokens:
        return [line]
    pieces: list[str] = []
    current: list[str] = []
    for word in line.split(" "):
        candidate = " ".join([*current, word])
        if current and estimate_tokens(candidate) > max_tokens:
            pieces.append(" ".join(current))
            current = [word]
        else:
            current.append(word)
    if current:
        pieces.append(" ".join(current))
    # A single word longer than a chunk (a minified blob) is cut by characters.
    return [p[i:i + 4 * max_tokens] for p in pieces for i in range(0, len(p), 4 * max_tokens)]


def _windows(units: list[str], max_tokens: int, overlap_tokens: int) -> Iterator[list[str]]:
    sizes = [estimate_tokens(u) for u in units]
    start = 0
    while start < len(units):
        end, total = start, 0
        while end < len(units) and (end == start or total + sizes[end] <= max_tokens):
            total += sizes[end]
            end += 1
        yield units[start:end]
        if end >= len(units):
            return
        back, carried = end, 0
        while back > start + 1 and carried + sizes[back - 1] <= overlap_tokens:
            back -= 1
            carried += sizes[back]
        start = back
