"""Splitting and packing Telegram messages."""

from __future__ import annotations

import pytest

from chalicelib.telegram.domain.telegram_text import (
    MESSAGE_LIMIT,
    pack_pieces,
    split_message,
    truncate,
    utf16_len,
)


def _words(parts: list[str]) -> list[str]:
    return " ".join(parts).split()


def test_short_text_is_one_message() -> None:
    assert split_message("hello") == ["hello"]


def test_empty_or_blank_text_gives_no_message() -> None:
    assert split_message("  \n ") == []


def test_long_text_splits_at_paragraph_breaks_and_keeps_every_word() -> None:
    paragraphs = [f"paragraph {i} " + "word " * 150 for i in range(12)]
    text = "\n\n".join(p.strip() for p in paragraphs)

    parts = split_message(text)

    assert len(parts) > 1
    assert all(utf16_len(p) <= MESSAGE_LIMIT for p in parts)
    assert all(p.startswith("paragraph") for p in parts)
    assert _words(parts) == text.split()


def test_text_without_breaks_splits_at_spaces() -> None:
    text = " ".join(f"w{i}" for i in range(3000))

    parts = split_message(text, limit=1000)

    assert all(len(p) <= 1000 for p in parts)
    assert _words(parts) == text.split()


def test_a_single_huge_word_is_cut_hard() -> None:
    parts = split_message("x" * 2500, limit=1000)

    assert parts == ["x" * 1000, "x" * 1000, "x" * 500]


def test_limit_counts_utf16_units_like_telegram() -> None:
    text = "😀" * 3000  # 6000 UTF-16 units

    parts = split_message(text)

    assert all(utf16_len(p) <= MESSAGE_LIMIT for p in parts)
    assert "".join(parts) == text


def test_pieces_pack_into_messages_below_the_limit_in_order() -> None:
    pieces = ["a" * 400] * 10

    groups = pack_pieces(pieces, limit=1000)

    assert [list(g) for g in groups] == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]


def test_packing_rejects_a_piece_that_was_not_split() -> None:
    with pytest.raises(ValueError):
        pack_pieces(["a" * 20], limit=10)


def test_truncate_marks_the_cut() -> None:
    assert truncate("abcdefghij", 5) == "abcd…"
    assert truncate("abc", 5) == "abc"
