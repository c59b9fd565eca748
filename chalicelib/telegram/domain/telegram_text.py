"""Telegram message sizing: split long text cleanly and pack short pieces into few messages.

Telegram counts a message's length in UTF-16 code units (an emoji outside the BMP counts two)
and refuses more than 4096; Itachi stays at or below `MESSAGE_LIMIT` to leave room for a
header. Splitting prefers a paragraph break, then a line break, then a space, and only cuts
inside a word when a piece has no whitespace at all. Only whitespace at a cut is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence

MESSAGE_LIMIT = 3500
TELEGRAM_HARD_LIMIT = 4096


def utf16_len(text: str) -> int:
    """Length as Telegram counts it."""
    return len(text.encode("utf-16-le")) // 2


def _fitting_prefix(text: str, limit: int) -> int:
    """The largest index i such that text[:i] is at most `limit` UTF-16 units long."""
    used = 0
    for i, char in enumerate(text):
        used += 2 if ord(char) > 0xFFFF else 1
        if used > limit:
            return i
    return len(text)


def _cut_point(text: str, end: int) -> int:
    """Where to cut text[:end]: the last paragraph, line or word break in its second half."""
    floor = end // 2
    for separator in ("\n\n", "\n", " "):
        at = text.rfind(separator, floor, end)
        if at > 0:
            return at
    return end


def split_message(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """Split `text` into non-empty parts of at most `limit` UTF-16 units each, in order."""
    if limit < 2:
        raise ValueError("limit must be at least 2")
    parts: list[str] = []
    rest = text.strip()
    while rest:
        end = _fitting_prefix(rest, limit)
        if end >= len(rest):
            parts.append(rest)
            break
        cut = _cut_point(rest, end)
        head = rest[:cut].rstrip()
        if not head:  # only whitespace before the cut: take the hard prefix instead
            cut, head = end, rest[:end]
        parts.append(head)
        rest = rest[cut:].lstrip()
    return parts


def pack_pieces(pieces: Sequence[str], limit: int = MESSAGE_LIMIT, separator: str = "\n") -> list[range]:
    """Group consecutive pieces into messages of at most `limit` units; return index ranges.

    Every piece must already fit on its own (split it first). The ranges cover all pieces, in
    order, so a sender can mark exactly the pieces of each message it delivered.
    """
    groups: list[range] = []
    start, size = 0, 0
    for i, piece in enumerate(pieces):
        length = utf16_len(piece)
        if length > limit:
            raise ValueError(f"piece {i} is longer than {limit}; split it first")
        if i > start and size + utf16_len(separator) + length > limit:
            groups.append(range(start, i))
            start, size = i, length
        else:
            size = length if i == start else size + utf16_len(separator) + length
    if start < len(pieces):
        groups.append(range(start, len(pieces)))
    return groups


def truncate(text: str, limit: int, ellipsis: str = "…") -> str:
    """Shorten `text` to at most `limit` units, marking the cut."""
    if utf16_len(text) <= limit:
        return text
    return text[: _fitting_prefix(text, limit - utf16_len(ellipsis))].rstrip() + ellipsis
