"""Postgres access to `memories`: store (an exact duplicate reinforces), read, reinforce, update, delete.

Bound to one unit of work's connection: everything runs in the caller's transaction. Similarities
are cosine similarities in [-1, 1] (1 = same direction).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from chalicelib.memory.adapters.memory_rows import COLUMNS, LIVE, MEMORIES, Conn, savepoint, to_memory, vector
from chalicelib.memory.domain.memory_model import (
    ON_REQUEST_CATEGORIES,
    Memory,
    MemoryDraft,
    MemoryStats,
    SimilarMemory,
    StoredVectors,
)
from chalicelib.memory.services.ports import DuplicateContent

# The memory a memory's metadata `updated_by` names, NULL when it is no id (metadata is free-form).
_SUCCESSOR = ("CASE WHEN m.metadata->>'updated_by' ~* '^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$'"
              " THEN (m.metadata->>'updated_by')::uuid END")
# The newest memories of a (project, category) a new one's facts are compared with (`stating`).
STATING_ROWS = 2_000
TOUCH_INTERVAL = "10 minutes"


_RECORD_ACCESS = """
WITH not_waiting AS (SELECT set_config('synchronous_commit', 'off', true)),
live AS (SELECT m.id FROM memories m WHERE m.id = ANY(%s::uuid[]) ORDER BY m.id FOR KEY SHARE)
INSERT INTO memory_access AS a (memory_id, access_count, last_accessed_at)
SELECT live.id, 1, now() FROM live, not_waiting ORDER BY live.id
ON CONFLICT (memory_id) DO UPDATE SET access_count = a.access_count + 1, last_accessed_at = now()
WHERE NOT %s OR a.last_accessed_at < now() - %s::interval
"""


def _texts(column: str) -> str:
    """SQL turning a JSON array of strings (a ragged array cannot be unnested) into text[]."""
    return f"ARRAY(SELECT jsonb_array_elements_text({column}))"


def _score(value: float | None) -> float:
    return 0.5 if value is None else value


class PostgresMemoryRepository:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def insert(self, draft: MemoryDraft) -> tuple[str, bool]:
        """Insert, or reinforce the row with the same (project, content_hash): (id, inserted)."""
        found = self._conn.execute(
            "INSERT INTO memories AS m (project, category, content, summary, files, metadata, embedding,"
            " embedding_model, significance, confidence, content_hash, session_id, source_ids,"
            " created_at, last_reinforced_at, tags, source, trusted, search_key, search_context)"
            " VALUES (%(project)s, %(category)s, %(content)s, %(summary)s, %(files)s, %(metadata)s,"
            " %(embedding)s, %(model)s, %(significance)s, %(confidence)s, %(hash)s, %(session)s,"
            " %(sources)s, coalesce(%(created)s, now()), coalesce(%(created)s, now()), %(tags)s,"
            " %(source)s, %(trusted)s, %(key)s, %(context)s)"
            " ON CONFLICT (project, content_hash) DO UPDATE SET"
            " times_reinforced = m.times_reinforced + 1,"
            " last_reinforced_at = greatest(m.last_reinforced_at, excluded.last_reinforced_at)"
            " RETURNING m.id, (xmax = 0) AS inserted",
            {"project": draft.project, "category": draft.category, "content": draft.content,
             "summary": draft.summary, "files": list(draft.files), "metadata": Jsonb(draft.metadata),
             "embedding": vector(draft.embedding), "model": draft.embedding_model,
             "significance": _score(draft.significance), "confidence": _score(draft.confidence),
             "hash": draft.content_hash,
             "session": draft.session_id, "sources": list(draft.source_ids), "created": draft.created_at,
             "tags": list(draft.tags), "source": draft.source, "trusted": draft.trusted,
             "key": draft.search_key, "context": draft.search_context},
        ).fetchone()
        assert found is not None
        return str(found["id"]), bool(found["inserted"])

    def insert_many(self, drafts: Sequence[MemoryDraft]) -> list[tuple[str, bool]]:
        """`insert` for many drafts in one statement (their (project, content_hash) must differ).

        Arrays of vectors go in binary (`%b`) here and in the two statements below: in text,
        pgvector formats every float in Python (about 1 s of a 500-memory batch)."""
        if not drafts:
            return []
        rows = self._conn.execute(
            "INSERT INTO memories AS m (project, category, content, summary, files, metadata, embedding,"
            " embedding_model, significance, confidence, content_hash, session_id, source_ids,"
            " created_at, last_reinforced_at, tags, source, trusted, search_key, search_context)"
            f" SELECT d.project, d.category, d.content, d.summary, {_texts('d.files')}, d.metadata,"
            f" d.embedding, d.model, d.significance, d.confidence, d.hash, d.session, {_texts('d.sources')},"
            f" coalesce(d.created, now()), coalesce(d.created, now()), {_texts('d.tags')},"
            " d.source, d.trusted, d.key, d.context"
            " FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::jsonb[], %s::jsonb[],"
            " %b::vector[], %s::text[], %s::real[], %s::real[], %s::text[], %s::text[], %s::jsonb[],"
            " %s::timestamptz[], %s::jsonb[], %s::text[], %s::boolean[], %s::text[], %s::text[])"
            " WITH ORDINALITY AS d(project, category, content, summary, files, metadata, embedding, model,"
            " significance, confidence, hash, session, sources, created, tags, source, trusted, key, context,"
            " n) ORDER BY d.n"
            " ON CONFLICT (project, content_hash) DO UPDATE SET"
            " times_reinforced = m.times_reinforced + 1,"
            " last_reinforced_at = greatest(m.last_reinforced_at, excluded.last_reinforced_at)"
            " RETURNING m.id, m.project, m.content_hash, (xmax = 0) AS inserted",
            ([d.project for d in drafts], [d.category for d in drafts], [d.content for d in drafts],
             [d.summary for d in drafts], [Jsonb(list(d.files)) for d in drafts],
             [Jsonb(d.metadata) for d in drafts], [vector(d.embedding) for d in drafts],
             [d.embedding_model for d in drafts], [_score(d.significance) for d in drafts],
             [_score(d.confidence) for d in drafts], [d.content_hash for d in drafts],
             [d.session_id for d in drafts], [Jsonb(list(d.source_ids)) for d in drafts],
             [d.created_at for d in drafts], [Jsonb(list(d.tags)) for d in drafts],
             [d.source for d in drafts], [d.trusted for d in drafts], [d.search_key for d in drafts],
             [d.search_context for d in drafts]),
            prepare=False,
        ).fetchall()
        found = {(r["project"], r["content_hash"]): (str(r["id"]), bool(r["inserted"])) for r in rows}
        stored = [found[(d.project, d.content_hash)] for d in drafts]
        self._insert_chunks([(memory_id, d) for d, (memory_id, inserted) in zip(drafts, stored, strict=True)
                             if inserted and d.chunk_embeddings])
        return stored

    def _insert_chunks(self, rows: Sequence[tuple[str, MemoryDraft]]) -> None:
        """The embedded windows of newly inserted long memories (`memory_chunks`)."""
        self._insert_windows([(memory_id, n, v) for memory_id, draft in rows
                              for n, v in enumerate(draft.chunk_embeddings)])

    def _insert_windows(self, windows: Sequence[tuple[str, int, Sequence[float]]]) -> None:
        """(memory id, n, vector) rows of `memory_chunks`, each with its memory's project."""
        if windows:
            self._conn.execute(
                "INSERT INTO memory_chunks (memory_id, project, n, embedding)"
                " SELECT w.id, m.project, w.n, w.e FROM unnest(%s::uuid[], %s::int[], %b::vector[])"
                " AS w(id, n, e) JOIN memories m ON m.id = w.id",
                ([w[0] for w in windows], [w[1] for w in windows], [vector(w[2]) for w in windows]),
                prepare=False)

    def nearest_many(self, project: str, category: str, embeddings: Sequence[Sequence[float]], *,
                     min_similarity: float, limit: int = 5) -> list[list[SimilarMemory]]:
        """`nearest` for many vectors of one (project, category) in one statement, keeping only
        neighbours at least `min_similarity` similar; one list per vector, in input order."""
        if not embeddings:
            return []
        rows = self._conn.execute(
            f"SELECT q.n, {COLUMNS}, n.similarity FROM unnest(%(v)b::vector[]) WITH ORDINALITY AS q(v, n)"
            " CROSS JOIN LATERAL (SELECT c.id, 1 - (c.embedding <=> q.v) AS similarity FROM memories c"
            " WHERE c.project = %(p)s AND c.category = %(c)s AND c.embedding IS NOT NULL"
            " AND c.superseded_by IS NULL AND c.phase < 3 ORDER BY c.embedding <=> q.v LIMIT %(k)s) n"
            f" JOIN {MEMORIES} ON m.id = n.id WHERE n.similarity >= %(t)s ORDER BY q.n, n.similarity DESC",
            {"v": [vector(e) for e in embeddings], "p": project, "c": category, "k": limit,
             "t": min_similarity},
            prepare=False,  # a generic plan cannot see the project's selectivity (see memory_search)
        ).fetchall()
        out: list[list[SimilarMemory]] = [[] for _ in embeddings]
        for r in rows:
            out[int(r["n"]) - 1].append(SimilarMemory(to_memory(r), float(r["similarity"])))
        return out

    def similar_pairs(self, embeddings: Sequence[Sequence[float]], min_similarity: float, *,
                      first: int = 0) -> list[tuple[int, int, float]]:
        """(i, j, similarity) for every i < j of `embeddings` at least `min_similarity` similar,
        j >= `first`."""
        if len(embeddings) < 2 or first >= len(embeddings):
            return []
        rows = self._conn.execute(
            "WITH v AS (SELECT e, n FROM unnest(%b::vector[]) WITH ORDINALITY AS x(e, n))"
            " SELECT a.n AS i, b.n AS j, 1 - (a.e <=> b.e) AS similarity FROM v a JOIN v b ON a.n < b.n"
            " WHERE b.n > %s AND 1 - (a.e <=> b.e) >= %s",
            ([vector(e) for e in embeddings], first, min_similarity), prepare=False).fetchall()
        return [(int(r["i"]) - 1, int(r["j"]) - 1, float(r["similarity"])) for r in rows]

    def nearest(self, project: str, category: str, embedding: Sequence[float],
                limit: int = 5) -> list[SimilarMemory]:
        """Live memories of (project, category) closest to `embedding`, most similar first."""
        rows = self._conn.execute(
            f"SELECT {COLUMNS}, 1 - (m.embedding <=> %s) AS similarity FROM {MEMORIES}"
            f" WHERE m.project = %s AND m.category = %s AND m.embedding IS NOT NULL AND {LIVE}"
            " ORDER BY m.embedding <=> %s LIMIT %s",
            (vector(embedding), project, category, vector(embedding), limit),
            prepare=False,  # a generic plan cannot see the project's selectivity (see memory_search)
        ).fetchall()
        return [SimilarMemory(to_memory(r), float(r["similarity"])) for r in rows]

    def stating(self, project: str, category: str, words: Sequence[Sequence[str]], *,
                limit: int = 8) -> list[list[Memory]]:
        """Per list of words, the memories holding most of them among the newest STATING_ROWS of
        (project, category): a bounded read however large the project (its created_at index)."""
        asked = [" or ".join(w) for w in words]
        if not any(asked):
            return [[] for _ in words]
        rows = self._conn.execute(
            f"SELECT q.n, {COLUMNS} FROM unnest(%(q)s::text[]) WITH ORDINALITY AS q(t, n)"
            " CROSS JOIN LATERAL (SELECT r.id FROM (SELECT c.id, c.search_tsv FROM memories c"
            " WHERE c.project = %(p)s AND c.category = %(c)s AND c.superseded_by IS NULL AND c.phase < 3"
            " ORDER BY c.created_at DESC LIMIT %(rows)s) r"
            " WHERE q.t <> '' AND r.search_tsv @@ websearch_to_tsquery('english', q.t)"
            " ORDER BY ts_rank(r.search_tsv, websearch_to_tsquery('english', q.t), 1) DESC, r.id"
            " LIMIT %(k)s) n"
            f" JOIN {MEMORIES} ON m.id = n.id ORDER BY q.n",
            {"q": asked, "p": project, "c": category, "rows": STATING_ROWS, "k": limit},
            prepare=False).fetchall()
        out: list[list[Memory]] = [[] for _ in words]
        for r in rows:
            out[int(r["n"]) - 1].append(to_memory(r))
        return out

    def mark_updated(self, pairs: Sequence[tuple[str, str]]) -> None:
        if pairs:
            self._conn.execute(
                "UPDATE memories m SET metadata = m.metadata || jsonb_build_object('updated_by', p.newer)"
                " FROM unnest(%s::uuid[], %s::text[]) AS p(older, newer) WHERE m.id = p.older AND NOT EXISTS"
                f" (SELECT 1 FROM memories s WHERE s.id = {_SUCCESSOR})",  # the first successor stays
                ([o for o, _ in pairs], [n for _, n in pairs]))

    def reinforce(self, memory_id: str, seen_at: datetime | None = None) -> bool:
        cur = self._conn.execute(
            "UPDATE memories SET times_reinforced = times_reinforced + 1,"
            " last_reinforced_at = greatest(last_reinforced_at, coalesce(%s, now())) WHERE id = %s",
            (seen_at, memory_id),
        )
        return cur.rowcount == 1

    def get(self, memory_id: str) -> Memory | None:
        row = self._conn.execute(f"SELECT {COLUMNS} FROM {MEMORIES} WHERE m.id = %s", (memory_id,)).fetchone()
        return to_memory(row) if row else None

    def delete(self, memory_ids: Sequence[str]) -> int:
        if not memory_ids:
            return 0
        ids = list(memory_ids)
        cur = self._conn.execute("DELETE FROM memories WHERE id = ANY(%s::uuid[])", (ids,))
        # A forgotten memory's archived original goes with it (the archive has no foreign key).
        self._conn.execute("DELETE FROM memory_archive WHERE memory_id = ANY(%s::uuid[])", (ids,))
        return cur.rowcount

    def recent(self, project: str | None, category: str | None, limit: int,
               metadata: dict[str, Any] | None = None, include_untrusted: bool = False) -> list[Memory]:
        where: list[str] = [LIVE if include_untrusted else f"{LIVE} AND m.trusted"]
        params: list[Any] = []
        if category is None:
            where.append("NOT (m.category = ANY(%s))")
            params.append(list(ON_REQUEST_CATEGORIES))
        for clause, value in (("m.project = %s", project), ("m.category = %s", category),
                              ("m.metadata @> %s", Jsonb(metadata) if metadata else None)):
            if value is not None:
                where.append(clause)
                params.append(value)
        rows = self._conn.execute(
            f"SELECT {COLUMNS} FROM {MEMORIES} WHERE {' AND '.join(where)}"
            " ORDER BY m.created_at DESC, m.id LIMIT %s", (*params, limit)).fetchall()
        return [to_memory(r) for r in rows]

    def stats(self, project: str | None) -> MemoryStats:
        rows = self._conn.execute(
            "SELECT category, count(*) AS n, count(embedding) AS embedded,"
            " count(*) FILTER (WHERE times_reinforced > 1) AS reinforced,"
            " min(created_at) AS oldest, max(created_at) AS newest FROM memories"
            " WHERE %(p)s::text IS NULL OR project = %(p)s GROUP BY category ORDER BY category",
            {"p": project}).fetchall()
        return MemoryStats(
            project=project, total=sum(r["n"] for r in rows),
            by_category={r["category"]: int(r["n"]) for r in rows},
            with_embedding=sum(r["embedded"] for r in rows), reinforced=sum(r["reinforced"] for r in rows),
            oldest=min((r["oldest"] for r in rows), default=None),
            newest=max((r["newest"] for r in rows), default=None),
        )

    def update_content(self, memory_id: str, *, content: str, summary: str | None, content_hash: str) -> bool:
        """New wording; raise DuplicateContent if it duplicates another row."""
        try:
            with savepoint(self._conn):  # the caller's transaction survives the refusal
                # The old wording's vectors go (the new ones follow through `set_embeddings`, or
                # `embed_pending` when the embedder did not answer), and its key waits for the
                # model's facts about it (`search_facts`).
                return self._conn.execute(
                    "WITH stale AS (DELETE FROM memory_chunks WHERE memory_id = %s)"
                    " UPDATE memories SET content = %s, summary = coalesce(%s, summary), content_hash = %s,"
                    " embedding = NULL, embedding_model = NULL, search_facts_at = NULL,"
                    " search_facts_tries = 0, updated_at = now() WHERE id = %s",
                    (memory_id, content, summary, content_hash, memory_id),
                ).rowcount == 1
        except psycopg.errors.UniqueViolation:
            raise DuplicateContent(content_hash) from None

    def update_fields(self, memory_id: str, *, metadata: dict[str, Any] | None = None, merge: bool = True,
                      significance: float | None = None, confidence: float | None = None,
                      superseded_by: str | None = None) -> bool:
        return self._conn.execute(
            "UPDATE memories SET metadata = CASE WHEN %(meta)s::jsonb IS NULL THEN metadata"
            " WHEN %(merge)s THEN metadata || %(meta)s::jsonb ELSE %(meta)s::jsonb END,"
            " significance = coalesce(%(sig)s, significance),"
            " confidence = coalesce(%(conf)s, confidence),"
            " superseded_by = coalesce(%(sup)s::uuid, superseded_by),"
            " valid_until = CASE WHEN %(sup)s::uuid IS NULL THEN valid_until"
            "                    ELSE coalesce(valid_until, now()) END,"
            " updated_at = now()"
            " WHERE id = %(id)s",
            {"meta": Jsonb(metadata) if metadata is not None else None, "merge": merge,
             "sig": significance, "conf": confidence, "sup": superseded_by, "id": memory_id},
        ).rowcount == 1

    def promote(self, memory_id: str, by: str) -> bool:
        """A person vouches for a quarantined memory: from now on it may be injected."""
        return self._conn.execute(
            "UPDATE memories SET trusted = true, promoted_at = coalesce(promoted_at, now()),"
            " promoted_by = coalesce(promoted_by, %s), updated_at = now() WHERE id = %s",
            (by, memory_id)).rowcount == 1

    def revive(self, memory_id: str) -> bool:
        """Live again from now: a closed validity interval is kept in `metadata.intervals` (from,
        until, superseded_by), so that a time in the gap finds it not live."""
        return self._conn.execute(
            "UPDATE memories SET metadata = CASE WHEN valid_until IS NULL THEN metadata"
            " ELSE jsonb_set(metadata, '{intervals}',"
            " CASE WHEN jsonb_typeof(metadata -> 'intervals') = 'array' THEN metadata -> 'intervals'"
            " ELSE '[]'::jsonb END || jsonb_build_array(jsonb_build_object("
            "'from', coalesce(valid_from, created_at), 'until', valid_until,"
            " 'superseded_by', superseded_by)))"
            " END,"
            " valid_from = CASE WHEN valid_until IS NULL THEN valid_from ELSE now() END,"
            " superseded_by = NULL, valid_until = NULL, updated_at = now() WHERE id = %s",
            (memory_id,)).rowcount == 1

    def retire(self, memory_id: str) -> bool:
        """No longer live from now on, with no successor (a rule its file no longer holds)."""
        return self._conn.execute("UPDATE memories SET valid_until = coalesce(valid_until, now()),"
                                  " updated_at = now() WHERE id = %s", (memory_id,)).rowcount == 1

    def similar(self, project: str, category: str | None, embedding: Sequence[float], threshold: float,
                limit: int) -> list[SimilarMemory]:
        """Live memories at least `threshold` similar, exactly computed (rules and lessons are few)."""
        rows = self._conn.execute(
            f"SELECT {COLUMNS}, 1 - (m.embedding <=> %(v)s) AS similarity FROM {MEMORIES}"
            f" WHERE m.project = %(p)s AND (%(c)s::text IS NULL OR m.category = %(c)s)"
            f" AND m.embedding IS NOT NULL AND {LIVE} AND 1 - (m.embedding <=> %(v)s) >= %(t)s"
            " ORDER BY similarity DESC LIMIT %(n)s",
            {"v": vector(embedding), "p": project, "c": category, "t": threshold, "n": limit},
        ).fetchall()
        return [SimilarMemory(to_memory(r), float(r["similarity"])) for r in rows]

    def record_access(self, memory_ids: Sequence[str], *, throttled: bool) -> None:
        """Count an access (throttled: once per memory per TOUCH_INTERVAL) in one statement; the
        commit does not wait for the disk. A memory deleted meanwhile is skipped: its row is
        locked before the insert refers to it (a delete still running is waited for)."""
        if not memory_ids:
            return
        self._conn.execute(_RECORD_ACCESS, (list(memory_ids), throttled, TOUCH_INTERVAL))

    def chunks_of(self, project: str, source_path: str) -> list[tuple[str, str, str | None]]:
        """(id, content_hash, file_hash) of the indexed chunks of one file."""
        rows = self._conn.execute(
            "SELECT id, content_hash, metadata ->> 'file_hash' AS file_hash FROM memories"
            " WHERE project = %s AND metadata ? 'source_path' AND metadata ->> 'source_path' = %s",
            (project, source_path)).fetchall()
        return [(str(r["id"]), r["content_hash"], r["file_hash"]) for r in rows]

    def missing_embeddings(self, limit: int) -> list[tuple[str, str, str]]:
        """(id, content, summary) of memories stored while the embedder was unavailable."""
        rows = self._conn.execute("SELECT id, content, summary FROM memories WHERE embedding IS NULL"
                                  " ORDER BY created_at DESC LIMIT %s", (limit,)).fetchall()
        return [(str(r["id"]), r["content"], r["summary"]) for r in rows]

    def set_embeddings(self, items: Sequence[StoredVectors], model: str) -> None:
        """Each stored memory's vector, and its windows in place of those it had (another model's,
        or none: a memory embedded after its write, imported, or re-embedded by the fix)."""
        if not items:
            return
        with self._conn.cursor() as cur:
            cur.executemany("UPDATE memories SET embedding = %s, embedding_model = %s WHERE id = %s",
                            [(vector(item.embedding), model, item.memory_id) for item in items])
        self._conn.execute("DELETE FROM memory_chunks WHERE memory_id = ANY(%s::uuid[])",
                           ([item.memory_id for item in items],))
        self._insert_windows([(item.memory_id, n, w) for item in items for n, w in enumerate(item.windows)])
