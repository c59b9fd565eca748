"""The learning loop's reads of `memories`: project rules and lessons, with their lesson stats.

Rules and lessons served to a model are trusted memories only: quarantined text (tool output,
web pages, other agents) never becomes a rule or a lesson until a person promotes it.

Writes go through the memory core's write path and repository (bound to the same unit of
work), never from here. Bound to one unit of work's connection. Similarities are cosine
similarities in [-1, 1] (1 is the same direction), computed exactly (the expression form keeps
the HNSW index out of it: a project's rules and lessons are few, and an approximate scan could
miss some).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import psycopg
from pgvector import Vector

from chalicelib.contracts.memory_scopes import namespace_of
from chalicelib.learning.domain.instruction import INSTRUCTION_CATEGORIES, Instruction, scope_of
from chalicelib.learning.domain.learned_item import LearnedItem
from chalicelib.learning.domain.rule_levels import Override
from chalicelib.memory.domain.memory_model import content_hash

Conn = psycopg.Connection[Any]
Embedding = Sequence[float]

_ITEM = ("m.id, m.project, m.category, m.content, m.confidence, m.times_reinforced,"
         " m.last_reinforced_at, m.created_at, m.metadata")


# A memory's validity intervals: the current one, then the earlier ones a revival closed (recorded
# by the memory repository's `revive` in `metadata.intervals`).
_INTERVALS = (
    "SELECT coalesce(m.valid_from, m.created_at) AS valid_from, m.valid_until,"
    " m.superseded_by::text AS superseded_by"
    " UNION ALL SELECT (i ->> 'from')::timestamptz, (i ->> 'until')::timestamptz, i ->> 'superseded_by'"
    " FROM jsonb_array_elements(CASE WHEN jsonb_typeof(m.metadata -> 'intervals') = 'array'"
    " THEN m.metadata -> 'intervals' ELSE '[]'::jsonb END) i"
)


class PostgresLearnedMemories:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def nearest(self, project: str, category: str, embedding: Embedding) -> LearnedItem | None:
        """The live trusted memory of (project, category) closest to `embedding` (proposals wait apart)."""
        row = self._conn.execute(
            f"SELECT {_ITEM}, 1 - (m.embedding <=> %s) AS similarity FROM memories m"
            " WHERE m.project = %s AND m.category = %s AND m.superseded_by IS NULL AND m.valid_until IS NULL"
            " AND m.trusted AND m.embedding IS NOT NULL ORDER BY similarity DESC, m.created_at LIMIT 1",
            (_vector(embedding), project, category),
        ).fetchone()
        return _item(row) if row else None

    def similar_instructions(self, project: str, embedding: Embedding, limit: int) -> list[LearnedItem]:
        """The project's live trusted rules and guidelines closest to `embedding`, best first."""
        rows = self._conn.execute(
            f"SELECT {_ITEM}, 1 - (m.embedding <=> %s) AS similarity FROM memories m"
            " WHERE m.project = %s AND m.category = ANY(%s) AND m.superseded_by IS NULL"
            " AND m.valid_until IS NULL AND m.trusted AND m.phase < 3 AND m.embedding IS NOT NULL"
            " ORDER BY similarity DESC, m.created_at LIMIT %s",
            (_vector(embedding), project, list(INSTRUCTION_CATEGORIES), limit),
        ).fetchall()
        return [_item(r) for r in rows]

    def graph_nodes_held(self, node_ids: Sequence[str]) -> dict[str, str | None]:
        """Of the graph nodes `node_ids`, those a rule was stated as (`metadata.graph_nodes`, or its
        first, `graph_node`), each with its live rule's id (None: none of its rules is live)."""
        rows = self._conn.execute(
            "SELECT n.node, (array_agg(m.id) FILTER (WHERE m.superseded_by IS NULL AND m.valid_until IS NULL"
            " AND m.trusted))[1] AS live FROM memories m CROSS JOIN LATERAL jsonb_array_elements_text("
            " CASE WHEN jsonb_typeof(m.metadata -> 'graph_nodes') = 'array' THEN m.metadata -> 'graph_nodes'"
            " ELSE jsonb_build_array(m.metadata ->> 'graph_node') END) AS n(node)"
            " WHERE m.category = ANY(%s) AND m.metadata ? 'graph_node' AND n.node = ANY(%s) GROUP BY n.node",
            (list(INSTRUCTION_CATEGORIES), list(node_ids)),
        ).fetchall()
        return {str(r["node"]): str(r["live"]) if r["live"] else None for r in rows}

    def open_clashes(self, project: str | None, limit: int) -> list[LearnedItem]:
        """Flagged rules (`metadata.contradicts`) not settled yet, newest first."""
        rows = self._conn.execute(
            f"SELECT {_ITEM} FROM memories m WHERE m.category = ANY(%s) AND m.metadata ? 'contradicts'"
            " AND NOT m.metadata ? 'settled' AND NOT m.trusted AND m.superseded_by IS NULL"
            " AND m.valid_until IS NULL AND (%s::text IS NULL OR m.project = %s)"
            " ORDER BY m.created_at DESC LIMIT %s",
            (list(INSTRUCTION_CATEGORIES), project, project, limit),
        ).fetchall()
        return [_item(r) for r in rows]

    def flagged_from_node(self, node_id: str) -> LearnedItem | None:
        """The open flagged rule a prompt stated as graph node `node_id`."""
        row = self._conn.execute(
            f"SELECT {_ITEM} FROM memories m WHERE m.category = ANY(%s) AND m.metadata ->> 'graph_node' = %s"
            " AND m.metadata ? 'contradicts' AND NOT m.metadata ? 'settled' AND m.valid_until IS NULL"
            " ORDER BY m.created_at DESC LIMIT 1",
            (list(INSTRUCTION_CATEGORIES), node_id),
        ).fetchone()
        return _item(row) if row else None

    def from_file(self, project: str, path: str) -> list[LearnedItem]:
        """The live rules and guidelines imported from the file `path` of a project."""
        rows = self._conn.execute(
            f"SELECT {_ITEM} FROM memories m WHERE m.project = %s AND m.category = ANY(%s)"
            " AND m.metadata ->> 'import_path' = %s AND m.superseded_by IS NULL AND m.valid_until IS NULL",
            (project, list(INSTRUCTION_CATEGORIES), path),
        ).fetchall()
        return [_item(r) for r in rows]

    def hash_taken(self, project: str, category: str, content: str) -> bool:
        row = self._conn.execute("SELECT 1 FROM memories WHERE project = %s AND content_hash = %s",
                                 (project, content_hash(category, content))).fetchone()
        return row is not None

    def rules(self, project: str, limit: int) -> list[LearnedItem]:
        """Live rules of a project, by confidence x times_reinforced, then the most recently reinforced."""
        rows = self._conn.execute(
            f"SELECT {_ITEM} FROM memories m WHERE m.project = %s AND m.category = ANY(%s)"
            " AND m.superseded_by IS NULL AND m.valid_until IS NULL AND m.trusted"
            " ORDER BY m.confidence * m.times_reinforced DESC, m.last_reinforced_at DESC LIMIT %s",
            (project, list(INSTRUCTION_CATEGORIES), limit),
        ).fetchall()
        return [_item(r) for r in rows]

    def instructions(self, projects: Sequence[str] | None, as_of: datetime | None,
                     limit: int) -> list[Instruction]:
        """Trusted rules and guidelines of `projects` live now (or at `as_of`: in their current validity
        interval or an earlier one, `metadata.intervals`, each answered with that interval), strongest
        first."""
        if as_of is None:
            # the current interval only (an earlier one always has an end)
            live, params = "m.superseded_by IS NULL AND m.valid_until IS NULL AND iv.valid_until IS NULL", {}
        else:
            live = ("iv.valid_from <= %(t)s AND (iv.valid_until IS NULL OR iv.valid_until > %(t)s)"
                    " AND (m.promoted_at IS NULL OR m.promoted_at <= %(t)s)")
            params = {"t": as_of}
        rows = self._conn.execute(
            f"SELECT {_ITEM}, m.source, iv.superseded_by, iv.valid_from, iv.valid_until FROM memories m"
            f" CROSS JOIN LATERAL ({_INTERVALS}) iv WHERE (%(p)s::text[] IS NULL OR m.project = ANY(%(p)s))"
            " AND m.category = ANY(%(c)s)"
            f" AND m.trusted AND m.phase < 3 AND {live}"
            " ORDER BY m.confidence * m.times_reinforced DESC, m.last_reinforced_at DESC, m.id LIMIT %(n)s",
            {"p": None if projects is None else list(projects), "c": list(INSTRUCTION_CATEGORIES), "n": limit,
             **params},
        ).fetchall()
        return [_instruction(r) for r in rows]

    def overrides(self, project: str, scopes: Sequence[str], min_similarity: float) -> list[Override]:
        """Each live rule of `scopes` (namespaces) with a live rule of `project` more than
        `min_similarity` alike, overridden by the closest such project rule."""
        rows = self._conn.execute(
            "SELECT DISTINCT ON (n.id) n.id AS shared, n.project, n.content, p.id AS own"
            " FROM memories n JOIN memories p"
            " ON p.project = %(project)s AND p.category = ANY(%(c)s) AND p.superseded_by IS NULL"
            " AND p.valid_until IS NULL AND p.trusted AND p.phase < 3 AND p.embedding IS NOT NULL"
            " WHERE n.project = ANY(%(scopes)s) AND n.category = ANY(%(c)s) AND n.superseded_by IS NULL"
            " AND n.valid_until IS NULL AND n.trusted AND n.phase < 3 AND n.embedding IS NOT NULL"
            " AND 1 - (n.embedding <=> p.embedding) > %(min)s"
            " ORDER BY n.id, n.embedding <=> p.embedding, p.id",
            {"project": project, "scopes": list(scopes), "c": list(INSTRUCTION_CATEGORIES),
             "min": min_similarity},
        ).fetchall()
        return [Override(str(r["shared"]), str(r["own"]), namespace_of(r["project"]) or r["project"],
                         r["content"]) for r in rows]

    def related(self, projects: Sequence[str], category: str, embedding: Embedding,
                limit: int) -> list[LearnedItem]:
        """Live memories of a category in `projects`, most similar first, with their lesson stats."""
        rows = self._conn.execute(
            f"SELECT {_ITEM}, 1 - (m.embedding <=> %s) AS similarity,"
            " COALESCE(s.applications, 0) AS applications, s.last_applied_at"
            " FROM memories m LEFT JOIN lesson_stats s ON s.lesson_id = m.id"
            " WHERE m.project = ANY(%s) AND m.category = %s AND m.superseded_by IS NULL AND m.trusted"
            " AND m.embedding IS NOT NULL ORDER BY similarity DESC LIMIT %s",
            (_vector(embedding), list(projects), category, limit),
        ).fetchall()
        return [_item(r) for r in rows]

    def any_live(self, projects: Sequence[str], category: str) -> bool:
        row = self._conn.execute(
            "SELECT 1 FROM memories WHERE project = ANY(%s) AND category = %s AND superseded_by IS NULL"
            " LIMIT 1", (list(projects), category)).fetchone()
        return row is not None

    def get(self, memory_id: str, *, for_update: bool = False) -> LearnedItem | None:
        lock = " FOR UPDATE OF m" if for_update else ""
        row = self._conn.execute(f"SELECT {_ITEM} FROM memories m WHERE m.id = %s{lock}",
                                 (memory_id,)).fetchone()
        return _item(row) if row else None

    def recent(self, category: str, since_days: int, limit: int) -> list[LearnedItem]:
        rows = self._conn.execute(
            f"SELECT {_ITEM} FROM memories m WHERE m.category = %s AND m.superseded_by IS NULL"
            " AND m.created_at > now() - make_interval(days => %s)"
            " ORDER BY m.confidence DESC, m.created_at DESC LIMIT %s",
            (category, since_days, limit),
        ).fetchall()
        return [_item(r) for r in rows]


def _vector(embedding: Embedding | None) -> Vector | None:
    return Vector(list(embedding)) if embedding is not None else None


def _instruction(r: dict[str, Any]) -> Instruction:
    metadata = dict(r["metadata"] or {})
    return Instruction(
        id=str(r["id"]), project=r["project"], category=r["category"], text=r["content"],
        scope=scope_of(r["project"], metadata), source=str(metadata.get("source") or r["source"]),
        confidence=round(float(r["confidence"]), 4), times_reinforced=int(r["times_reinforced"]),
        last_reinforced_at=r["last_reinforced_at"], valid_from=r["valid_from"], valid_until=r["valid_until"],
        superseded_by=str(r["superseded_by"]) if r["superseded_by"] else None, metadata=metadata)


def _item(r: dict[str, Any]) -> LearnedItem:
    return LearnedItem(
        id=str(r["id"]), project=r["project"], category=r["category"], content=r["content"],
        confidence=round(float(r["confidence"]), 4), times_reinforced=int(r["times_reinforced"]),
        last_reinforced_at=r["last_reinforced_at"], created_at=r["created_at"],
        metadata=dict(r["metadata"] or {}), similarity=float(r.get("similarity") or 0.0),
        applications=int(r.get("applications") or 0), last_applied_at=r.get("last_applied_at"),
    )
