"""Wire formats of the lifecycle routes: listing with a cursor, tags, restore, eviction runs."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
from typing import Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, field_validator

from chalicelib.kernel.errors import InvalidInput
from chalicelib.memory.domain.memory_lifecycle import phase_number
from chalicelib.memory.domain.memory_tags import MAX_TAG_CHARS

Tag = Field(min_length=1, max_length=MAX_TAG_CHARS, pattern=r"^[^\x00-\x1f\x7f]+$")
Category = Field(default=None, min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True, defer_build=True)


def encode_cursor(after: tuple[datetime, str] | None) -> str | None:
    if after is None:
        return None
    return base64.urlsafe_b64encode(f"{after[0].isoformat()}|{after[1]}".encode()).decode().rstrip("=")


def decode_cursor(raw: str) -> tuple[datetime, str]:
    try:
        text = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode()
        at, ident = text.split("|", 1)
        when = datetime.fromisoformat(at)
        if when.tzinfo is None:
            raise ValueError("naive time")
        return when, str(UUID(ident))
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise InvalidInput("cursor: not a cursor this API gave out", field="cursor") from None


class ListQuery(_Wire):
    project: str | None = Field(default=None, min_length=1, max_length=300, pattern=r"^[^\x00-\x1f]+$")
    phase: str | None = Field(default=None, pattern=r"^(full|hint|abstract|archived|[0-3])$")
    tag: str | None = Field(default=None, min_length=1, max_length=MAX_TAG_CHARS,
                            pattern=r"^[^\x00-\x1f\x7f]+$")
    category: str | None = Category
    cursor: str | None = Field(default=None, min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_-]+$")
    limit: int = Field(default=50, ge=1, le=200)

    def phase_number(self) -> int | None:
        return None if self.phase is None else phase_number(self.phase)

    def after(self) -> tuple[datetime, str] | None:
        return None if self.cursor is None else decode_cursor(self.cursor)


class TagsIn(_Wire):
    add: list[str] = Field(default_factory=list, max_length=40)
    remove: list[str] = Field(default_factory=list, max_length=40)

    @field_validator("add", "remove")
    @classmethod
    def _tags(cls, items: list[str]) -> list[str]:
        for item in items:
            if not item.strip() or len(item) > MAX_TAG_CHARS or not item.isprintable():
                raise ValueError(f"each tag must be 1-{MAX_TAG_CHARS} printable characters")
        return items


class EvictIn(_Wire):
    project: str | None = Field(default=None, min_length=1, max_length=300, pattern=r"^[^\x00-\x1f]+$")
    run_key: str = Field(default="manual", min_length=1, max_length=200, pattern=r"^[A-Za-z0-9_.:@-]+$")
    max_steps: int | None = Field(default=None, ge=1, le=1_000_000)
    time_budget_s: float = Field(default=60.0, gt=0, le=600)


class FixIn(_Wire):
    project: str | None = Field(default=None, min_length=1, max_length=300, pattern=r"^[^\x00-\x1f]+$")
    time_budget_s: float = Field(default=120.0, gt=0, le=600)


class PhaseQuery(_Wire):
    project: str | None = Field(default=None, min_length=1, max_length=300, pattern=r"^[^\x00-\x1f]+$")


def page_json(memories: list[Any], after: tuple[datetime, str] | None) -> dict[str, Any]:
    from chalicelib.memory.schemas import memory_json

    return {"results": [memory_json(m) for m in memories], "next_cursor": encode_cursor(after)}
