"""Wire formats of the memory API: validated requests (pydantic) and JSON views of results."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, field_validator

from chalicelib.kernel.errors import InvalidInput
from chalicelib.kernel.wire import Fraction, StoredTime, captured
from chalicelib.memory.domain.memory_model import Memory, MemoryDraft, MemoryStats, SearchHit, SearchResult
from chalicelib.memory.domain.provenance import Source, Writer

Project = Field(min_length=1, max_length=300, pattern=r"^[^\x00-\x1f]+$")
Category = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
OptionalCategory = Field(default=None, min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True, defer_build=True)


class MemoryIn(_Wire):
    project: str = Project
    category: str = Field(default="fact", min_length=1, max_length=64,
                          pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
    content: str = Field(min_length=1, max_length=200_000)
    summary: str | None = Field(default=None, max_length=20_000)
    files: list[str] = Field(default_factory=list, max_length=500)
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: StoredTime | None = None
    significance: Fraction | None = None
    confidence: Fraction | None = None
    session_id: str | None = Field(default=None, max_length=200)
    source_ids: list[str] = Field(default_factory=list, max_length=200)
    # Where the text came from; tool, web and agent text is stored quarantined (untrusted), and so is
    # any text a machine or client key sends (the route says who wrote it, never the body).
    source: Source = "unspecified"

    @field_validator("files", "source_ids")
    @classmethod
    def _short_items(cls, items: list[str]) -> list[str]:
        if any(len(item) > 2_000 for item in items):
            raise ValueError("each entry must be at most 2000 characters")
        return items

    @field_validator("created_at")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        return value if value is None or value.tzinfo else value.replace(tzinfo=UTC)

    def draft(self, writer: Writer) -> MemoryDraft:
        return MemoryDraft(project=self.project, category=self.category, content=self.content,
                           summary=self.summary or "", files=tuple(self.files), metadata=self.metadata,
                           created_at=self.created_at, significance=self.significance,
                           confidence=self.confidence, session_id=self.session_id,
                           source_ids=tuple(self.source_ids), source=self.source, writer=writer)


class BatchIn(_Wire):
    memories: list[MemoryIn] = Field(min_length=1, max_length=500)


class CodeChangeIn(_Wire):
    project: str = Project
    file: str = Field(min_length=1, max_length=2_000)
    summary: str = Field(min_length=1, max_length=20_000)
    category: str = Field(default="code_change", min_length=1, max_length=64,
                          pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
    diff: Annotated[str, Field(max_length=500_000), captured(500_000)] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    session_id: str | None = Field(default=None, max_length=200)  # the client's session that made the edit


class IndexIn(_Wire):
    project: str = Project
    path: str = Field(min_length=1, max_length=2_000)
    text: str = Field(max_length=900_000)
    category: str = Field(default="document", min_length=1, max_length=64,
                          pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")


class SearchQuery(_Wire):
    query: str = Field(min_length=1, max_length=2_000)
    project: str = Project
    limit: int = Field(default=10, ge=1, le=100)
    category: str | None = OptionalCategory
    mode: Literal["hybrid", "text", "vector"] = "hybrid"
    include_global: bool = True
    project_limit: int | None = Field(default=None, ge=0, le=100)
    global_limit: int | None = Field(default=None, ge=0, le=100)
    namespace_limit: int | None = Field(default=None, ge=0, le=100)  # with the others; default global_limit
    tag: str | None = Field(default=None, min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f]+$")
    # The prompt hook: also answer the graph memory's context (`graph`), and learn from the prompt.
    graph: bool = False
    include_untrusted: bool = False  # quarantined memories too (never for injection)
    explain: bool = False  # each candidate's vector, text and recency parts, winners and losers

    def per_scope_limits(self) -> tuple[int, int] | None:
        """(project_limit, global_limit) when the request asks per scope (a missing one is 0)."""
        if self.project_limit is None and self.global_limit is None:
            return None
        if {"limit", "include_global"} & self.model_fields_set:
            raise InvalidInput("limit and include_global do not go with project_limit/global_limit",
                               field="limit" if "limit" in self.model_fields_set else "include_global")
        limits = (self.project_limit or 0, self.global_limit or 0)
        if sum(limits) == 0:
            raise InvalidInput("project_limit or global_limit must be at least 1", field="project_limit")
        return limits


class RecentQuery(_Wire):
    project: str | None = Field(default=None, min_length=1, max_length=300)
    limit: int = Field(default=10, ge=1, le=200)
    category: str | None = OptionalCategory
    tag: str | None = Field(default=None, min_length=1, max_length=64, pattern=r"^[^\x00-\x1f]+$")
    include_untrusted: bool = False

    def metadata_filter(self) -> dict[str, Any] | None:
        """Memories stored with this tag: metadata.tags contains it."""
        return {"tags": [self.tag]} if self.tag else None


class StatsQuery(_Wire):
    project: str | None = Field(default=None, min_length=1, max_length=300)


class RecallQuery(_Wire):
    """Exactly one of `file` (a path relative to the project) and `error` (a command's output)."""

    project: str = Project
    file: str | None = Field(default=None, min_length=1, max_length=2_000)
    error: str | None = Field(default=None, min_length=1, max_length=8_000)
    limit: int = Field(default=3, ge=1, le=20)

    def checked(self) -> RecallQuery:
        if (self.file is None) == (self.error is None):
            raise InvalidInput("give exactly one of file and error", field="file")
        return self


class ImportRuleItem(_Wire):
    category: str = Category
    content: str = Field(min_length=1, max_length=4_000)
    path: str = Field(min_length=1, max_length=500)
    tool: str = Field(min_length=1, max_length=40, pattern=r"^[a-z0-9_-]+$")
    line: int | None = Field(default=None, ge=1, le=10_000_000)


class ImportRulesIn(_Wire):
    project: str = Project
    items: list[ImportRuleItem] = Field(min_length=1, max_length=500)
    dry_run: bool = False


class PromoteIn(_Wire):
    by: str = Field(default="admin", min_length=1, max_length=200, pattern=r"^[^\x00-\x1f]+$")


class MemoryIdPath(_Wire):
    id: UUID


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def hit_json(hit: SearchHit) -> dict[str, Any]:
    return {"id": hit.id, "project": hit.project, "category": hit.category, "content": hit.content,
            "summary": hit.summary, "score": hit.score, "created_at": _iso(hit.created_at),
            "metadata": hit.metadata, "files": list(hit.files), "source": hit.source,
            "trusted": hit.trusted, "confirmed_at": _iso(hit.confirmed_at)}


def search_json(result: SearchResult) -> dict[str, Any]:
    body: dict[str, Any] = {"results": [hit_json(h) for h in result.hits], "mode": result.mode}
    if result.degraded:
        body["degraded"] = result.degraded
    return body


def memory_json(memory: Memory) -> dict[str, Any]:
    body = dataclasses.asdict(memory)
    for key, value in body.items():
        if isinstance(value, datetime):
            body[key] = value.isoformat()
        elif isinstance(value, tuple):
            body[key] = list(value)
    return body


def stats_json(stats: MemoryStats) -> dict[str, Any]:
    return {"project": stats.project, "total": stats.total, "by_category": stats.by_category,
            "with_embedding": stats.with_embedding, "reinforced": stats.reinforced,
            "oldest": _iso(stats.oldest), "newest": _iso(stats.newest)}
