"""The learning loop's SQL over `memories`: insights, project rules and lessons.

Every method takes the caller's connection, so a session's insights, rules, lessons and its
idempotency claim commit together. Similarities are cosine similarities in [-1, 1] (1 is the
same direction), computed exactly (the expression form keeps the HNSW index out of it: a
project's rules and lessons are few, and an approximate scan could miss some).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import psycopg
from pgvector import Vector
from psycopg.types.json import Jsonb

from chalicelib.memory.domain.memory_hygiene import content_hash

Conn = psycopg.Connection[Any]
Embedding = Sequence[float]


@dataclass(frozen=True)
class NewMemory:
    project: str
    category: str
    content: str
    embedding: Embedding | None
    embedding_model: str | None
    significance: float = 0.5
    confidence: float = 0.5
    metadata: dict[str, Any] = field(default_factory=dict)
    session_id: str | None = None
    source_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class LearnedItem:
    """A rule or lesson as stored, with its similarity to a query when there was one."""

    id: str
    project: str
    category: str
    content: str
    confidence: float
    times_reinforced: int
    last_reinforced_at: datetime
    created_at: datetime
    metadata: dict[str, Any]
    similarity: float = 0.0
    applications: int = 0
    last_applied_at: datetime | None = None


_ITEM = ("m.id, m.project, m.category, m.content, m.confidence, m.times_reinforced,"
         " m.last_reinforced_at, m.created_at, m.metadata")


class LearningMemoryRepository:
    def insert(self, conn: Conn, m: NewMemory) -> tuple[str, bool]:
        """Store a memory; (id, True), or (existing id, False) when the same text is already there."""
        row = conn.execute(
            "INSERT INTO memories (project, category, content, metadata, embedding, embedding_model,"
            " significance, confidence, content_hash, session_id, source_ids)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (project, content_hash) DO NOTHING RETURNING id",
            (m.project, m.category, m.content, Jsonb(m.metadata), _vector(m.embedding),
             m.embedding_model, m.significance, m.confidence, content_hash(m.category, m.content),
             m.session_id, list(m.source_ids)),
        ).fetchone()
        if row is not None:
            return str(row["id"]), True
        existing = conn.execute(
            "SELECT id FROM memories WHERE project = %s AND content_hash = %s",
            (m.project, content_hash(m.category, m.content)),
        ).fetchone()
        assert existing is not None
        return str(existing["id"]), False

    def nearest(self, conn: Conn, project: str, category: str, embedding: Embedding) -> LearnedItem | None:
        """The live memory of (project, category) closest to `embedding`."""
        row = conn.execute(
            f"SELECT {_ITEM}, 1 - (m.embedding <=> %s) AS similarity FROM memories m"
            " WHERE m.project = %s AND m.category = %s AND m.superseded_by IS NULL"
            " AND m.embedding IS NOT NULL ORDER BY similarity DESC, m.created_at LIMIT 1",
            (_vector(embedding), project, category),
        ).fetchone()
        return _item(row) if row else None

    def reinforce(self, conn: Conn, memory_id: str, category: str, *, confidence: float,
                  content: str | None = None, embedding: Embedding | None = None,
                  embedding_model: str | None = None) -> None:
        """times_reinforced + 1 and last_reinforced_at = now; new wording (and vector) when given."""
        conn.execute(
            "UPDATE memories SET times_reinforced = times_reinforced + 1, last_reinforced_at = now(),"
            " updated_at = now(), confidence = %s,"
            " content = COALESCE(%s, content), content_hash = COALESCE(%s, content_hash),"
            " embedding = COALESCE(%s, embedding), embedding_model = COALESCE(%s, embedding_model)"
            " WHERE id = %s",
            (confidence, content, content_hash(category, content) if content else None,
             _vector(embedding), embedding_model, memory_id),
        )

    def hash_taken(self, conn: Conn, project: str, category: str, content: str) -> bool:
        row = conn.execute("SELECT 1 FROM memories WHERE project = %s AND content_hash = %s",
                           (project, content_hash(category, content))).fetchone()
        return row is not None

    def rules(self, conn: Conn, project: str, limit: int) -> list[LearnedItem]:
        """Live rules of a project, by confidence x times_reinforced, then the most recently reinforced."""
        rows = conn.execute(
            f"SELECT {_ITEM} FROM memories m WHERE m.project = %s AND m.category = 'project_rule'"
            " AND m.superseded_by IS NULL"
            " ORDER BY m.confidence * m.times_reinforced DESC, m.last_reinforced_at DESC LIMIT %s",
            (project, limit),
        ).fetchall()
        return [_item(r) for r in rows]

    def related(self, conn: Conn, projects: Sequence[str], category: str, embedding: Embedding,
                limit: int) -> list[LearnedItem]:
        """Live memories of a category in `projects`, most similar first, with their lesson stats."""
        rows = conn.execute(
            f"SELECT {_ITEM}, 1 - (m.embedding <=> %s) AS similarity,"
            " COALESCE(s.applications, 0) AS applications, s.last_applied_at"
            " FROM memories m LEFT JOIN lesson_stats s ON s.lesson_id = m.id"
            " WHERE m.project = ANY(%s) AND m.category = %s AND m.superseded_by IS NULL"
            " AND m.embedding IS NOT NULL ORDER BY similarity DESC LIMIT %s",
            (_vector(embedding), list(projects), category, limit),
        ).fetchall()
        return [_item(r) for r in rows]

    def any_live(self, conn: Conn, projects: Sequence[str], category: str) -> bool:
        row = conn.execute(
            "SELECT 1 FROM memories WHERE project = ANY(%s) AND category = %s AND superseded_by IS NULL"
            " LIMIT 1", (list(projects), category)).fetchone()
        return row is not None

    def get(self, conn: Conn, memory_id: str, *, for_update: bool = False) -> LearnedItem | None:
        lock = " FOR UPDATE OF m" if for_update else ""
        row = conn.execute(f"SELECT {_ITEM} FROM memories m WHERE m.id = %s{lock}", (memory_id,)).fetchone()
        return _item(row) if row else None

    def set_confidence(self, conn: Conn, memory_id: str, confidence: float) -> None:
        conn.execute("UPDATE memories SET confidence = %s, updated_at = now() WHERE id = %s",
                     (confidence, memory_id))

    def recent(self, conn: Conn, category: str, since_days: int, limit: int) -> list[LearnedItem]:
        rows = conn.execute(
            f"SELECT {_ITEM} FROM memories m WHERE m.category = %s AND m.superseded_by IS NULL"
            " AND m.created_at > now() - make_interval(days => %s)"
            " ORDER BY m.confidence DESC, m.created_at DESC LIMIT %s",
            (category, since_days, limit),
        ).fetchall()
        return [_item(r) for r in rows]


def _vector(embedding: Embedding | None) -> Vector | None:
    return Vector(list(embedding)) if embedding is not None else None


def _item(r: dict[str, Any]) -> LearnedItem:
    return LearnedItem(
        id=str(r["id"]), project=r["project"], category=r["category"], content=r["content"],
        confidence=round(float(r["confidence"]), 4), times_reinforced=int(r["times_reinforced"]),
        last_reinforced_at=r["last_reinforced_at"], created_at=r["created_at"],
        metadata=dict(r["metadata"] or {}), similarity=float(r.get("similarity") or 0.0),
        applications=int(r.get("applications") or 0), last_applied_at=r.get("last_applied_at"),
    )
