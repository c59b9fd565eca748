"""Wire formats of export and import: memory and graph records exactly as the git-friendly files hold them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, field_validator

from chalicelib.kernel.wire import Fraction, StoredTime
from chalicelib.memory.domain.memory_lifecycle import PHASES
from chalicelib.memory.domain.provenance import Source

Project = Field(min_length=1, max_length=300, pattern=r"^[^\x00-\x1f]+$")
Category = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
PhaseName = Literal["full", "hint", "abstract", "archived"]


class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


def _aware(value: datetime | None) -> datetime | None:
    if value is not None and value.tzinfo is None:
        raise ValueError("must carry a time zone")
    return value


class ArchiveRecord(_Wire):
    content: str = Field(min_length=1, max_length=200_000)
    summary: str = Field(default="", max_length=20_000)
    category: str = Category
    archived_at: StoredTime

    _tz = field_validator("archived_at")(_aware)


class MemoryRecord(_Wire):
    id: UUID
    project: str = Project
    category: str = Category
    content: str = Field(min_length=1, max_length=200_000)
    summary: str = Field(default="", max_length=20_000)
    files: list[str] = Field(default_factory=list, max_length=500)
    metadata: dict[str, Any] = Field(default_factory=dict)
    tags: list[str] = Field(default_factory=list, max_length=100)
    phase: PhaseName = "full"
    superseded_by: UUID | None = None
    significance: Fraction = 0.5
    confidence: Fraction = 0.5
    times_reinforced: int = Field(default=1, ge=1, le=2_000_000_000)
    created_at: StoredTime
    last_reinforced_at: StoredTime
    session_id: str | None = Field(default=None, max_length=200)
    source_ids: list[str] = Field(default_factory=list, max_length=200)
    content_hash: str = Field(pattern=r"^[0-9a-f]{64}$")
    # Provenance travels with the text: an untrusted memory stays quarantined through a round trip
    # (files written before provenance existed read as trusted, as those memories were).
    source: Source = "unspecified"
    trusted: bool = True
    # An instruction's history (`GET /api/rules?as_of=`): when it was stated and stopped being live.
    valid_from: StoredTime | None = None
    valid_until: StoredTime | None = None
    # Its place among its project's memories stored at the same time (`memory_files.write_order`).
    written: int = Field(default=0, ge=0, le=2_000_000_000)
    archive: ArchiveRecord | None = None

    _tz = field_validator("created_at", "last_reinforced_at", "valid_from", "valid_until")(_aware)

    def stored(self) -> dict[str, Any]:
        """The record as the repository stores it (phase as its number, ids as text)."""
        out = self.model_dump()
        out.update(id=str(self.id), phase=PHASES.index(self.phase),
                   superseded_by=str(self.superseded_by) if self.superseded_by else None,
                   archive=self.archive.model_dump() if self.archive else None)
        return out


class GraphNodeRecord(_Wire):
    """A graph node as stored, without its vector (computed again on import)."""

    id: UUID
    project: str = Project
    node_type: str = Field(pattern=r"^[a-z_]{1,32}$")  # one of the graph's types: the table checks it
    subtype: str | None = Field(default=None, max_length=64)
    content: str = Field(min_length=1, max_length=4_000)
    name_key: str | None = Field(default=None, max_length=4_000)
    salience: float = Field(default=1.0, ge=0, le=10, allow_inf_nan=False)
    confidence: Fraction = 1.0
    source: Source = "user"
    valid_from: StoredTime | None = None
    valid_until: StoredTime | None = None
    superseded_by: UUID | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)
    can_summarize: bool = True
    scope: Fraction | None = None
    created_at: StoredTime
    trusted: bool = True

    _tz = field_validator("valid_from", "valid_until", "created_at")(_aware)


class GraphEdgeRecord(_Wire):
    id: UUID
    source_id: UUID
    target_id: UUID
    edge_type: str = Field(min_length=1, max_length=64)
    attributes: dict[str, Any] = Field(default_factory=dict)
    created_at: StoredTime

    _tz = field_validator("created_at")(_aware)


class GraphContradictionRecord(_Wire):
    id: UUID
    project: str = Project
    new_id: UUID
    old_id: UUID
    reason: str = Field(default="", max_length=1_000)
    status: Literal["open", "keep_new", "keep_old", "keep_both"] = "open"
    created_at: StoredTime
    resolved_at: StoredTime | None = None

    _tz = field_validator("created_at", "resolved_at")(_aware)


GRAPH_RECORDS: dict[str, type[_Wire]] = {
    "nodes": GraphNodeRecord, "edges": GraphEdgeRecord, "contradictions": GraphContradictionRecord}


class Link(_Wire):
    id: UUID
    superseded_by: UUID | None


class ImportIn(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    records: list[MemoryRecord] = Field(default_factory=list, max_length=500)
    links: list[Link] = Field(default_factory=list, max_length=10_000)
    embed: bool = True
    graph_nodes: list[GraphNodeRecord] = Field(default_factory=list, max_length=500)
    graph_edges: list[GraphEdgeRecord] = Field(default_factory=list, max_length=2_000)
    graph_contradictions: list[GraphContradictionRecord] = Field(default_factory=list, max_length=2_000)
    graph_links: list[Link] = Field(default_factory=list, max_length=10_000)

    def graph_parts(self, trusted: bool) -> dict[str, list[dict[str, Any]]]:
        """The graph's records as stored; nodes keep their trust only when `trusted` (a person imports)."""
        nodes = [{**n.model_dump(mode="json"), "trusted": n.trusted and trusted} for n in self.graph_nodes]
        return {"nodes": nodes, "edges": [e.model_dump(mode="json") for e in self.graph_edges],
                "contradictions": [c.model_dump(mode="json") for c in self.graph_contradictions]}


class ExportQuery(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True, defer_build=True)
    part: Literal["memories", "graph"] = "memories"
    project: str | None = Field(default=None, min_length=1, max_length=300, pattern=r"^[^\x00-\x1f]+$")
    after: UUID | None = None
    limit: int = Field(default=500, ge=1, le=2_000)


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat()


def record_json(row: dict[str, Any]) -> dict[str, Any]:
    """A repository row as the wire and the files hold it (stable text for every value)."""
    out = {k: v for k, v in row.items() if k != "archive"}
    out.update(phase=PHASES[int(row["phase"])], created_at=_iso(row["created_at"]),
               last_reinforced_at=_iso(row["last_reinforced_at"]),
               significance=round(float(row["significance"]), 4),
               confidence=round(float(row["confidence"]), 4),
               files=list(row["files"] or []), tags=list(row["tags"] or []),
               source_ids=list(row["source_ids"] or []), metadata=dict(row["metadata"] or {}))
    for name in ("valid_from", "valid_until"):  # written only when set (older files lack them)
        if out.get(name) is None:
            out.pop(name, None)
        else:
            out[name] = _iso(out[name])
    if not out.get("written"):  # the first or only memory stored at its time: its file unchanged
        out.pop("written", None)
    archive = row.get("archive")
    out["archive"] = None if archive is None else {**archive, "archived_at": _iso(archive["archived_at"])}
    return out


def graph_json(part: str, item: dict[str, Any]) -> dict[str, Any]:
    """A stored graph row (`to_jsonb` of it) as the wire and the files hold it: the record's fields
    only, times in UTC."""
    fields = GRAPH_RECORDS[part].model_fields
    out = {k: v for k, v in item.items() if k in fields}
    for name in ("valid_from", "valid_until", "created_at", "resolved_at"):
        if out.get(name):
            out[name] = _iso(datetime.fromisoformat(out[name]))
    return out
