"""Make a memory safe and bounded before it is stored or embedded: redact, drop private spans, cap.

Caps keep one memory from crowding a prompt or a page: content is cut at MAX_CONTENT_CHARS
with a visible marker, summaries and file lists likewise. The content hash (`memory_model`) is
taken from the cleaned content, so exact duplicates are exact after redaction too.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from chalicelib.kernel.errors import InvalidInput
from chalicelib.kernel.redaction import redact, redact_json
from chalicelib.memory.domain.memory_model import MemoryDraft

MAX_CONTENT_CHARS = 16_000
MAX_SUMMARY_CHARS = 2_000
MAX_FILES = 50
MAX_FILE_CHARS = 500
MAX_METADATA_BYTES = 16_384
TRUNCATED = " …[truncated]"


def cap(text: str, limit: int) -> str:
    """Cut `text` to at most `limit` characters, marking the cut."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - len(TRUNCATED))].rstrip() + TRUNCATED


def clean_text(text: str, limit: int) -> str:
    return cap(redact(text).strip(), limit)


def clean_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    cleaned = redact_json(metadata)
    size = len(json.dumps(cleaned, default=str).encode())
    if size > MAX_METADATA_BYTES:
        raise InvalidInput(f"metadata is {size} bytes; the limit is {MAX_METADATA_BYTES}", field="metadata")
    return cleaned  # type: ignore[no-any-return]


def clean(draft: MemoryDraft) -> MemoryDraft:
    """Redact and cap a draft; raise InvalidInput when nothing storable is left."""
    content = clean_text(draft.content, MAX_CONTENT_CHARS)
    if not content:
        raise InvalidInput("content is empty (after removing private spans)", field="content")
    files = tuple(dict.fromkeys(cap(redact(f).strip(), MAX_FILE_CHARS) for f in draft.files if f.strip()))
    return dataclasses.replace(
        draft,
        project=draft.project.strip(),
        category=draft.category.strip().lower(),
        content=content,
        summary=clean_text(draft.summary, MAX_SUMMARY_CHARS),
        files=files[:MAX_FILES],
        metadata=clean_metadata(dict(draft.metadata)),
    )
