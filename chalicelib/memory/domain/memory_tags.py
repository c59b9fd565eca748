"""Tags: free ones a person or agent gives, automatic ones derived from what a memory is.

Automatic tags carry a prefix (`category:`, `ext:`, `file:`, `entity:`) so they never collide
with a free tag such as `keep`. Tags are trimmed, lower-cased for the automatic kinds, at most
64 characters, and stored sorted without repeats.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from typing import Any

from chalicelib.memory.domain.memory_reduction import key_terms

MAX_TAG_CHARS = 64
MAX_TAGS = 40
MAX_ENTITY_TAGS = 5
MAX_FILE_TAGS = 5


def normal_tag(raw: str) -> str | None:
    """A tag as stored, or None if nothing usable is left (control characters, empty)."""
    tag = " ".join(str(raw).split())[:MAX_TAG_CHARS]
    return tag if tag and tag.isprintable() else None


def free_tags(metadata: Mapping[str, Any], extra: Iterable[str] = ()) -> list[str]:
    """The tags given explicitly: `extra` and the strings of `metadata["tags"]`."""
    given = metadata.get("tags")
    listed = [t for t in given if isinstance(t, str)] if isinstance(given, list) else []
    return [t for t in (normal_tag(raw) for raw in (*extra, *listed)) if t]


def auto_tags(category: str, files: Iterable[str], content: str) -> list[str]:
    """Tags from the category, the files (extension and name) and the entities named."""
    tags = [f"category:{category.lower()}"]
    for path in list(files)[:MAX_FILE_TAGS]:
        name = posixpath.basename(path.replace("\\", "/"))
        ext = posixpath.splitext(name)[1].lstrip(".").lower()
        tags += [f"file:{name.lower()}"] + ([f"ext:{ext}"] if ext else [])
    names = [t for t in key_terms(content[:4_000]) if any(c.isalpha() for c in t)]
    tags += [f"entity:{t.lower()}" for t in names[:MAX_ENTITY_TAGS]]
    return tags


def merge_tags(*groups: Iterable[str]) -> tuple[str, ...]:
    """Every tag of every group, normalised, sorted, without repeats, at most MAX_TAGS."""
    merged = {t for group in groups for t in (normal_tag(raw) for raw in group) if t}
    return tuple(sorted(merged)[:MAX_TAGS])
