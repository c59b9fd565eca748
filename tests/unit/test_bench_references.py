"""The LoCoMo bench's own references: BM25 ranks as Okapi BM25 does, and conversations are picked
by their 1-based numbers."""

from __future__ import annotations

import pytest

from bench.bm25 import Bm25Index, words
from bench.locomo import parse_convs


def test_bm25_prefers_the_rare_term_and_the_shorter_document() -> None:
    docs = {"a": "the cat sat on the mat", "b": "the dog sat on the log", "c": "a cat and a dog and a cat",
            "d": "the mat was red and the mat was new and the mat was big"}
    index = Bm25Index(list(docs), [words(t) for t in docs.values()])

    assert index.rank(words("cat"), 5) == ["c", "a"]  # two occurrences beat one
    # "mat" three times in a long text beats once in a short one; equal scores keep corpus order
    assert index.rank(words("dog mat"), 5) == ["d", "a", "b", "c"]
    assert index.rank(words("unicorn"), 5) == []


def test_conversations_are_chosen_by_number() -> None:
    assert parse_convs("1-5", 10) == [1, 2, 3, 4, 5]
    assert parse_convs("6-10", 10) == [6, 7, 8, 9, 10]
    assert parse_convs("1,3,3", 10) == [1, 3]
    assert parse_convs("all", 3) == [1, 2, 3]
    with pytest.raises(SystemExit):
        parse_convs("0-11", 10)
