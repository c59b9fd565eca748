"""Markdown chunking: bounded chunks, overlap, heading paths, code fences."""

from __future__ import annotations

import itertools

import pytest

from chalicelib.memory.domain.markdown_chunks import Chunk, chunk_markdown, estimate_tokens


def _paragraph(n: int, word: str = "word") -> str:
    return "\n".join(f"{word} {i} " + "lorem ipsum dolor sit amet " * 3 for i in range(n))


def test_every_chunk_keeps_the_headings_above_it() -> None:
    text = "# Project\nintro line\n## Setup\nrun make\n### Linux\napt-get install\n## Usage\ncall it"
    chunks = chunk_markdown(text)
    assert [c.heading_path for c in chunks] == [
        ("Project",), ("Project", "Setup"), ("Project", "Setup", "Linux"), ("Project", "Usage"),
    ]
    assert chunks[2].content == "Project > Setup > Linux\n\napt-get install"


def test_long_sections_are_cut_near_the_budget_with_overlap() -> None:
    text = "# Notes\n" + _paragraph(200)
    chunks = chunk_markdown(text, max_tokens=400, overlap_tokens=80)
    assert len(chunks) > 3
    for chunk in chunks:
        assert estimate_tokens(chunk.text) <= 400 + 40  # whole lines: one line of slack
    for first, second in itertools.pairwise(chunks):
        shared = set(first.text.splitlines()) & set(second.text.splitlines())
        assert shared, "consecutive chunks overlap"
        assert estimate_tokens("\n".join(shared)) <= 80 + 40


def test_nothing_is_lost_between_chunks() -> None:
    text = "# A\n" + _paragraph(120)
    seen = {line.strip() for c in chunk_markdown(text) for line in c.text.splitlines()}
    assert all(line.strip() in seen for line in _paragraph(120).splitlines())


def test_hashes_inside_a_code_fence_are_not_headings() -> None:
    text = "# Build\n```sh\n# not a heading\nmake\n```\n## Next\nok"
    chunks = chunk_markdown(text)
    assert chunks[0].heading_path == ("Build",)
    assert "# not a heading" in chunks[0].text
    assert chunks[1].heading_path == ("Build", "Next")


def test_a_single_huge_line_is_split_by_words_and_characters() -> None:
    chunks = chunk_markdown("word " * 3000 + "x" * 5000, max_tokens=400, overlap_tokens=80)
    assert all(estimate_tokens(c.text) <= 400 for c in chunks)
    assert len(chunks) > 5


def test_text_before_any_heading_has_an_empty_path_and_empty_sections_make_no_chunk() -> None:
    chunks = chunk_markdown("preface\n# Empty\n\n# Full\nbody")
    assert chunks == [Chunk((), "preface", 0), Chunk(("Full",), "body", 1)]
    assert chunk_markdown("") == []


def test_overlap_must_be_smaller_than_the_chunk() -> None:
    with pytest.raises(ValueError):
        chunk_markdown("x", max_tokens=80, overlap_tokens=80)
