"""What is stored is redacted, bounded and hashed the same way everywhere."""

from __future__ import annotations

import pytest

from chalicelib.kernel.errors import InvalidInput
from chalicelib.memory.domain.memory_hygiene import (
    MAX_CONTENT_CHARS,
    MAX_FILES,
    MAX_METADATA_BYTES,
    TRUNCATED,
    clean,
)
from chalicelib.memory.domain.memory_model import MemoryDraft, content_hash

KEY = "sk-" + "Z" * 40


def test_content_summary_files_and_metadata_are_all_redacted() -> None:
    cleaned = clean(MemoryDraft(
        project=" p ", category=" Fact ", content=f"key {KEY} <private>my diary</private> end",
        summary=f"about {KEY}", files=(f"/tmp/{KEY}.txt",), metadata={"note": KEY, "token": "abcdefgh"},
    ))
    stored = repr(cleaned)
    assert KEY not in stored and "my diary" not in stored and "abcdefgh" not in stored
    assert cleaned.project == "p" and cleaned.category == "fact"


def test_oversized_content_is_cut_with_a_visible_marker() -> None:
    cleaned = clean(MemoryDraft(project="p", category="fact", content="x" * (MAX_CONTENT_CHARS * 2)))
    assert len(cleaned.content) == MAX_CONTENT_CHARS
    assert cleaned.content.endswith(TRUNCATED)


def test_file_lists_are_deduplicated_and_capped() -> None:
    files = tuple(f"f{i % 70}.py" for i in range(200))
    assert len(clean(MemoryDraft(project="p", category="fact", content="c", files=files)).files) == MAX_FILES


def test_oversized_metadata_is_rejected_naming_the_field() -> None:
    with pytest.raises(InvalidInput) as error:
        clean(MemoryDraft(project="p", category="fact", content="c",
                          metadata={"blob": "y" * (MAX_METADATA_BYTES + 1)}))
    assert error.value.field == "metadata"


def test_content_that_is_all_private_is_rejected() -> None:
    with pytest.raises(InvalidInput) as error:
        clean(MemoryDraft(project="p", category="fact", content="<private>only this</private>"))
    assert error.value.field == "content"


def test_the_hash_ignores_whitespace_and_case_but_not_category() -> None:
    assert content_hash("fact", "Use  uv\nnot pip") == content_hash("fact", "use uv not PIP")
    assert content_hash("fact", "use uv") != content_hash("project_rule", "use uv")
