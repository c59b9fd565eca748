"""The graph's vocabulary: node types and their subtypes, scope defaults, nodes and edges.

A node is one piece of knowledge of a project: an `entity` (a person, a service, a file...), a
`fact`, an `event`, an `opinion`, an `instruction` (a rule with a scope: 1.0 universal, 0.5
team or tool wide, 0.2 one entity) or a `plan` (dated future work; once its date has passed it
reads as an event). A corrected node is superseded, never deleted.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any, Literal

from chalicelib.memory.domain.provenance import SOURCES, is_trusted

NodeType = Literal["entity", "fact", "event", "opinion", "instruction", "plan"]
NODE_TYPES: tuple[NodeType, ...] = ("entity", "fact", "event", "opinion", "instruction", "plan")
SUBTYPES: dict[str, tuple[str, ...]] = {
    "entity": (
        "person",
        "org",
        "project",
        "place",
        "tool",
        "process",
        "document",
        "concept",
        "event",
        "account",
    ),
    "fact": ("definitional", "causal", "conditional", "comparative", "negation"),
    "event": ("action", "decision", "conversation", "incident", "outcome", "completed_plan"),
    "opinion": (),
    "instruction": ("instruction", "tool_usage", "rule", "process"),
    "plan": ("scheduled", "intended", "requested"),
}
DEFAULT_SCOPE: dict[str, float] = {"instruction": 0.5, "plan": 0.3}
NOT_SUMMARIZABLE = frozenset({"instruction", "plan"})
MAX_CONTENT = 4000
MAX_EDGE_TYPE = 64


class GraphInputError(ValueError):
    """A node or edge the graph refuses (unknown type, self-edge...)."""


@dataclass(frozen=True)
class NodeDraft:
    """A node about to be stored."""

    project: str
    node_type: str
    content: str
    subtype: str | None = None
    salience: float = 1.0
    confidence: float = 1.0
    source: str = "user"
    valid_from: datetime | None = None
    scope: float | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    trusted: bool | None = None  # None: from the source (tool, web and agent text is not)

    def checked(self) -> NodeDraft:
        """The draft with defaults filled in (scope, subtype); GraphInputError when invalid."""
        if self.node_type not in SUBTYPES:
            raise GraphInputError(f"unknown node type {self.node_type!r} (one of {', '.join(NODE_TYPES)})")
        subtype = self.subtype if self.subtype in SUBTYPES[self.node_type] else None
        content = " ".join(self.content.split())[:MAX_CONTENT]
        if not content:
            raise GraphInputError("a node needs content")
        if self.source not in SOURCES:
            raise GraphInputError(f"source must be one of {', '.join(SOURCES)}")
        scope = self.scope if self.scope is not None else DEFAULT_SCOPE.get(self.node_type)
        if scope is not None:
            scope = min(1.0, max(0.0, float(scope)))
        return NodeDraft(
            self.project,
            self.node_type,
            content,
            subtype,
            min(10.0, max(0.0, float(self.salience))),
            min(1.0, max(0.0, float(self.confidence))),
            self.source,
            self.valid_from,
            scope,
            dict(self.attributes),
            is_trusted(self.source) and self.trusted is not False,
        )

    @property
    def can_summarize(self) -> bool:
        return self.node_type not in NOT_SUMMARIZABLE


@dataclass(frozen=True)
class Node:
    id: str
    project: str
    node_type: str
    subtype: str | None
    content: str
    salience: float
    confidence: float
    source: str
    scope: float | None
    valid_from: datetime | None
    valid_until: datetime | None
    superseded_by: str | None
    attributes: dict[str, Any]
    created_at: datetime
    score: float = 0.0  # cosine similarity to the query, when the node came from a search
    trusted: bool = True  # False: extracted from untrusted text, never injected automatically

    @property
    def live(self) -> bool:
        return self.superseded_by is None

    def valid_at(self, now: datetime) -> bool:
        """Live and not past its `valid_until` (a fact no longer true, a rule retired)."""
        return self.live and (self.valid_until is None or self.valid_until > now)

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "project": self.project,
            "type": self.node_type,
            "subtype": self.subtype,
            "content": self.content,
            "salience": self.salience,
            "confidence": self.confidence,
            "source": self.source,
            "trusted": self.trusted,
            "scope": self.scope,
            "valid_from": _iso(self.valid_from),
            "valid_until": _iso(self.valid_until),
            "superseded_by": self.superseded_by,
            "attributes": self.attributes,
            "created_at": _iso(self.created_at),
        }


@dataclass(frozen=True)
class Relation:
    """One edge seen from a node: its type, direction and the node at the other end."""

    edge_type: str
    outgoing: bool
    other: Node

    def as_json(self) -> dict[str, Any]:
        return {
            "type": self.edge_type,
            "direction": "out" if self.outgoing else "in",
            "node": self.other.as_json(),
        }


@dataclass(frozen=True)
class Contradiction:
    id: str
    project: str
    new: Node
    old: Node
    reason: str
    status: str
    created_at: datetime

    def as_json(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}


def check_edge(source_id: str, target_id: str, edge_type: str) -> str:
    """The normalised edge type; GraphInputError for a self-edge or an unusable type."""
    if source_id == target_id:
        raise GraphInputError("an edge cannot join a node to itself")
    kind = "_".join(edge_type.strip().lower().split())
    if not kind or len(kind) > MAX_EDGE_TYPE:
        raise GraphInputError(f"edge type must be 1-{MAX_EDGE_TYPE} characters")
    return kind


def _plain(value: Any) -> Any:
    """A field's JSON form: a node as its JSON, a time in ISO 8601."""
    if isinstance(value, Node):
        return value.as_json()
    return value.isoformat() if isinstance(value, datetime) else value


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None
