"""Hybrid memory search: vector similarity and full-text coverage fused in one SQL statement.

Scores are in [0, 1], higher is better (the formula is `chalicelib.memory.domain.search_scoring`):
the adapter turns pgvector's cosine distance into a clamped similarity and the full-text side
into an IDF-weighted share of the query's terms, whose IDF comes from the planner's statistics
(`search_statistics`: kept per process, checked by the one short statement run just before).

Project first: each candidate side is a branch per project of the scope with its own LIMIT,
planned on that project's own size (docs/memory.md, Search).

Completeness: an HNSW scan filtered by project can return fewer rows than asked (pgvector
before 0.8 has no iterative scan). The statement checks the approximate pool and, when it is
short, falls back to an exact scan of that project within the same statement; with pgvector 0.8+
`hnsw.iterative_scan` is switched on as well. The SQL text is built from constant fragments
only; every value is a parameter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from psycopg.types.json import Jsonb

from chalicelib.kernel.wire import EARLIEST, LATEST
from chalicelib.memory.adapters.memory_rows import LIVE, Conn, vector
from chalicelib.memory.adapters.search_statistics import SearchStatistics
from chalicelib.memory.domain.memory_model import (
    ON_REQUEST_CATEGORIES,
    SearchHit,
    SearchMode,
    SearchScope,
)
from chalicelib.memory.domain.query_dates import TimeWindow, date_factor, query_window
from chalicelib.memory.domain.search_scoring import SearchWeights, candidate_pool

# A query term found in a memory's context only (the memory written before it: `search_keys`, weight
# class D of `search_tsv`) counts CONTEXT_SHARE of its idf; in its own words or key, all of it.
CONTEXT_SHARE = 0.5  # chosen on LoCoMo 1-5
_MATCHED = ("(SELECT sum(t.idf * CASE WHEN m.search_tsv @@ t.own THEN 1 ELSE %(context_share)s END)"
            " FROM terms t WHERE m.search_tsv @@ t.tq)")
# Two words next to each other in the query found next to each other in a memory (`query_terms`:
# either order, anywhere in its text, key or context) add PAIR_SHARE of the commoner one's idf:
# "adoption agency" said as such weighs more than the two words apart.
PAIR_SHARE = 0.3  # chosen on LoCoMo 1-5
_PAIRED = "(SELECT sum(p.idf) FROM pairs p WHERE m.search_tsv @@ p.tq)"
# Every side of the search reads one project at a time (project first): a branch per project of
# the scope (the project and `_global`), each with its own LIMIT, so each is planned with that
# project's own size (a small project's rows through its btree, a large one's through GIN or
# HNSW) and never ranks another project's rows. Their union is a superset of the scope's best.
# The query's terms, its pairs of words and the terms' total idf: the first CTEs of the search and of
# its neighbours' statement.
_TERMS = """
terms AS (
  SELECT t.tq::tsquery AS tq, t.own::tsquery AS own, t.idf
  FROM unnest(%(term_tqs)s::text[], %(term_own_tqs)s::text[], %(term_idfs)s::float8[]) AS t(tq, own, idf)),
pairs AS (
  SELECT p.tq::tsquery AS tq, p.idf FROM unnest(%(pair_tqs)s::text[], %(pair_idfs)s::float8[]) AS p(tq, idf)),
query AS (SELECT %(total_idf)s::float8 AS total_idf)"""
_TEXT_HIT = """(
  SELECT m.id FROM memories m
  WHERE m.search_tsv @@ %(tq)s::tsquery AND {filters}
  ORDER BY {matched} DESC, m.id
  LIMIT %(pool)s)"""
# Text mode only: when the selective terms found too few memories, any memory holding any query
# term may fill the pool (a bounded sample, scored like the rest); hybrid mode has vectors for that.
# The sample is taken from the project's newest SAMPLE_ROWS rows (its created_at index), not from
# the GIN index: those terms are common, and their posting lists cover much of the whole table
# (35,000 entries read to keep 160 of a 1,200-row project at 100k memories).
SAMPLE_ROWS = 2_000
_TEXT_MORE = """(
  SELECT r.id FROM (
    SELECT m.id, m.search_tsv FROM memories m
    WHERE (SELECT count(*) FROM text_hits) < %(pool)s AND %(tq_all)s::tsquery IS NOT NULL AND {filters}
    ORDER BY m.created_at DESC LIMIT %(sample)s) r
  WHERE r.search_tsv @@ %(tq_all)s::tsquery LIMIT %(wide)s)"""
# Per project: the HNSW index when the plan says so (`ann_N`), else (or when it came up short) an
# exact scan of the project's rows.
_VEC_ANN = """(
  SELECT {n} AS branch, m.id FROM memories m WHERE %(ann_{n})s AND m.embedding IS NOT NULL AND {filters}
  ORDER BY m.embedding <=> %(vector)s LIMIT %(pool)s)"""
_VEC_EXACT = """(
  SELECT m.id FROM memories m
  WHERE (SELECT count(*) FROM vec_ann WHERE branch = {n}) < %(pool)s AND m.embedding IS NOT NULL AND {filters}
  ORDER BY (m.embedding <=> %(vector)s) + 0 LIMIT %(pool)s)"""

# Per project: the windows of long memories nearest the query (`memory_chunks`), for their memory.
_CHUNK_ANN = """(
  SELECT c.memory_id AS id FROM memory_chunks c JOIN memories m ON m.id = c.memory_id
  WHERE c.project = %(project_{n})s AND {filters}
  ORDER BY c.embedding <=> %(vector)s LIMIT %(pool)s)"""


def _branches(name: str, fragment: str, scope: SearchScope) -> str:
    """`name AS MATERIALIZED (...)`: the fragment once per project of the scope, UNION ALL."""
    parts = [fragment.format(n=n, filters=scope_filters(scope, project=f"%(project_{n})s"), matched=_MATCHED)
             for n in range(len(scope.projects))]
    return f"\n{name} AS MATERIALIZED (" + "\n  UNION ALL ".join(parts) + "),"


_SCORE = {
    "hybrid": "%(w_vector)s * {cosine} + %(w_text)s * {coverage}",
    "text": "{coverage}",
    "vector": "{cosine}",
}
_CANDIDATES = {
    "hybrid": "SELECT id FROM text_hits UNION SELECT id FROM vec_ann UNION SELECT id FROM vec_exact"
              " UNION SELECT id FROM chunk_ann",
    "text": "SELECT id FROM text_hits UNION SELECT id FROM text_more",
    "vector": "SELECT id FROM vec_ann UNION SELECT id FROM vec_exact UNION SELECT id FROM chunk_ann",
}
# Recency never overflows, whatever a row holds (a date written into the table directly, far
# outside the 1970-2200 every write path keeps to, or infinite): the age is taken from a time
# clamped to [earliest, now] and counts at most MAX_HALF_LIVES half-lives (0.5 ** 1100 underflows
# a float8). A row's time is shown clamped to [earliest, latest] as well.
MAX_HALF_LIVES = 1000
DATED_APART = timedelta(days=1)
RECENCY = ("(1 - %(w_recency)s + %(w_recency)s * power(0.5, least(%(max_half_lives)s, extract(epoch FROM"
           " now() - least(now(), greatest(m.created_at, m.last_reinforced_at, %(earliest)s))) / 86400.0"
           " / %(half_life)s)))")
CREATED_AT = "least(greatest(m.created_at, %(earliest)s), %(latest)s) AS created_at"
# When the memory was last confirmed: restated (reinforced) or promoted by a person.
CONFIRMED_AT = ("least(greatest(m.last_reinforced_at, m.promoted_at, %(earliest)s), %(latest)s)"
                " AS confirmed_at")
# A memory a later one updated (`updated_by`, set at write time: `fact_updates`) keeps its score
# (a long memory may hold other facts still true); its successor is ranked just above it
# (`_with_updates`). The factor stays 1 for the explain statement's shape.
UPDATED = "1"
_FINAL = """
candidates AS ({candidates})
SELECT m.id, m.project, m.category, m.content, m.summary, m.files, m.metadata, {created_at}, m.source,
  m.trusted, {confirmed_at}, ({score}) * {recency} * {updated} AS score
FROM candidates c JOIN memories m ON m.id = c.id CROSS JOIN query q
ORDER BY score DESC, m.created_at DESC, m.id LIMIT %(limit)s
"""
# Memories written next to a strong hit (the turn before and after it in a conversation, the step
# before and after it in a working session): the NEIGHBOURS_PER_SIDE of its own session (the same
# `session_id`, or none when it has none) written just before and just after each of the best
# NEIGHBOUR_PARENTS hits in its project (write order, `seq`: a batch or an import stores many
# memories at one time), looked for among the NEIGHBOUR_SCAN written next to it on each side (two
# terminals in one project interleave their writes), kept when in scope and within
# NEIGHBOUR_WINDOW of it, each with its own score for the query (`own`: the statement's score, so
# a neighbour that matches the query too ranks above one that only sits next to the hit).
NEIGHBOUR_PARENTS, NEIGHBOURS_PER_SIDE, NEIGHBOUR_WINDOW = 5, 2, "30 minutes"  # chosen on LoCoMo 1-5
NEIGHBOUR_SCAN = 8
_NEIGHBOURS = """WITH{terms}
SELECT h.n, m.id, m.project, m.category, m.content, m.summary, m.files, m.metadata, {created_at},
  m.source, m.trusted, {confirmed_at}, ({score}) * {recency} AS own
FROM unnest(%(parents)s::uuid[]) WITH ORDINALITY AS h(id, n) JOIN memories p ON p.id = h.id
CROSS JOIN LATERAL ((
  SELECT b.* FROM (SELECT m.* FROM memories m WHERE m.project = p.project AND m.seq < p.seq
                   ORDER BY m.seq DESC LIMIT %(scan)s) b
  WHERE b.session_id IS NOT DISTINCT FROM p.session_id ORDER BY b.seq DESC LIMIT %(per_side)s
) UNION ALL (
  SELECT a.* FROM (SELECT m.* FROM memories m WHERE m.project = p.project AND m.seq > p.seq
                   ORDER BY m.seq LIMIT %(scan)s) a
  WHERE a.session_id IS NOT DISTINCT FROM p.session_id ORDER BY a.seq LIMIT %(per_side)s)) m
CROSS JOIN query q
WHERE m.created_at BETWEEN p.created_at - %(window)s::interval AND p.created_at + %(window)s::interval
  AND {filters}
"""
# The memories that updated a hit (its `updated_by`) and are not among the hits yet.
_UPDATES = """
SELECT m.id, m.project, m.category, m.content, m.summary, m.files, m.metadata, {created_at}, m.source,
  m.trusted, {confirmed_at} FROM memories m WHERE m.id = ANY(%(updates)s::uuid[]) AND {filters}
"""
# A memory's cosine: its own vector's, or its best window's when that is closer (a long memory).
_COSINE = ("greatest(0.0, least(1.0, 1 - least(coalesce(m.embedding <=> %(vector)s, 1), coalesce(("
           "SELECT min(c.embedding <=> %(vector)s) FROM memory_chunks c WHERE c.memory_id = m.id), 1))))")
# A memory longer than the average (in distinct lexemes, `search_statistics`) holds a query's words
# by chance more often: its coverage is multiplied by (average / its length) ** LENGTH_WEIGHT, as
# BM25 normalises by length; one as long as the average or shorter keeps all of it.
LENGTH_WEIGHT = 0.25  # chosen on LoCoMo 1-5
_LENGTH = ("power(least(1.0, coalesce(%(average_lexemes)s::float8 / greatest(1, length(m.search_tsv)), 1.0)),"
           " %(length_weight)s)")
_COVERAGE = (f"CASE WHEN q.total_idf > 0 THEN least(1.0, (coalesce({_MATCHED}, 0)"
             f" + %(pair_share)s * coalesce({_PAIRED}, 0)) / q.total_idf) * {_LENGTH} ELSE 0 END")


_NOT_ON_REQUEST = "m.category NOT IN (" + ", ".join(f"'{c}'" for c in ON_REQUEST_CATEGORIES) + ")"


def scope_filters(scope: SearchScope, project: str | None = None) -> str:
    """The WHERE conditions (on alias m) of the filters present in `scope`; with `project` (a
    placeholder) that one project instead of all of the scope's."""
    filters = [f"m.project = {project}" if project else "m.project = ANY(%(projects)s)", LIVE]
    if scope.category is not None:
        filters.append("m.category = %(category)s")
    elif scope.categories is not None:  # a subagent's memory scope: only these categories
        filters.append("m.category = ANY(%(categories)s)")
    else:
        filters.append(_NOT_ON_REQUEST)
    if scope.metadata:
        filters.append("m.metadata @> %(metadata)s")
    if scope.tag is not None:
        filters.append("m.tags @> ARRAY[%(tag)s]::text[]")
    if not scope.include_untrusted:
        filters.append("m.trusted")
    return " AND ".join(filters)


def relevance(mode: SearchMode) -> str:
    """The SQL of a memory `m`'s relevance in `mode` (before recency), as `_SCORE` defines it."""
    return _SCORE[mode].format(cosine=_COSINE, coverage=_COVERAGE)


def build_statement(mode: SearchMode, scope: SearchScope) -> str:
    """The search SQL for `mode` and the filters present in `scope` (constant fragments only)."""
    parts = ["WITH", _TERMS, ","]
    if mode in ("hybrid", "text"):
        parts.append(_branches("text_hits", _TEXT_HIT, scope))
    if mode == "text":
        parts.append(_branches("text_more", _TEXT_MORE, scope))
    if mode in ("hybrid", "vector"):
        parts.append(_branches("vec_ann", _VEC_ANN, scope))
        parts.append(_branches("vec_exact", _VEC_EXACT, scope))
        parts.append(_branches("chunk_ann", _CHUNK_ANN, scope))
    parts.append(_FINAL.format(candidates=_CANDIDATES[mode], score=relevance(mode), created_at=CREATED_AT,
                               confirmed_at=CONFIRMED_AT, recency=RECENCY, updated=UPDATED))
    return "".join(parts)


def dated_apart(hits: Sequence[SearchHit]) -> bool:
    """Whether the hits were stored at times a query's date can tell apart: at least a day (the
    unit of `TimeWindow.closeness`) between the oldest and the newest. Memories stored at one
    time (an import, a backfill) say nothing about when their facts happened."""
    times = [h.created_at for h in hits]
    return bool(times) and max(times) - min(times) >= DATED_APART


def _by_date(hits: list[SearchHit], window: TimeWindow, weight: float) -> list[SearchHit]:
    """Each score times its memory's nearness to the query's time window, best first."""
    dated = [replace(h, score=round(h.score * date_factor(window, h.created_at, weight), 6)) for h in hits]
    return sorted(dated, key=lambda h: (-h.score, -h.created_at.timestamp(), h.id))


def _is_id(value: object) -> bool:
    """Whether `value` is a memory id (metadata is free-form: a client may have written anything)."""
    try:
        UUID(str(value))
    except ValueError:
        return False
    return value is not None


def _successors_first(best: dict[str, SearchHit], newer: Mapping[str, str]) -> bool:
    """Raise each successor to its updated hit's score and put the updated hit just below it, so
    the successor ranks first whatever the dates (a bulk import writes both at one time); whether
    anything moved."""
    moved = False
    for older, successor in newer.items():
        if successor in best and best[successor].score <= best[older].score:
            top = best[older].score
            best[successor] = replace(best[successor], score=top)
            best[older] = replace(best[older], score=round(max(0.0, top - 1e-6), 6))
            moved = True
    return moved


def _hit(r: dict[str, Any], score: float) -> SearchHit:
    return SearchHit(id=str(r["id"]), project=r["project"], category=r["category"], content=r["content"],
                     summary=r["summary"], score=round(score, 6), created_at=r["created_at"],
                     metadata=dict(r["metadata"] or {}), files=tuple(r["files"] or ()),
                     source=r["source"], trusted=bool(r["trusted"]), confirmed_at=r["confirmed_at"])


class PostgresMemorySearch:
    def __init__(self, conn: Conn, statistics: SearchStatistics) -> None:
        self._conn = conn
        self._statistics = statistics

    def search(self, query: str, embedding: Sequence[float] | None, scope: SearchScope, *,
               mode: SearchMode, limit: int, weights: SearchWeights) -> list[SearchHit]:
        """The `limit` best memories in scope; `embedding` is required unless mode is "text"."""
        if mode != "text" and embedding is None:
            raise ValueError("a vector search needs the query embedding")
        pool = candidate_pool(limit)
        window = query_window(query, datetime.now(UTC)) if weights.dates > 0 else None
        # A query naming a time re-ranks the whole pool by nearness to it, so the statement returns all of it.
        params = self.parameters(query, embedding, scope, pool=pool, limit=pool if window else limit,
                                 weights=weights)
        params.update(self.open(query, scope, pool, mode))
        # Never a prepared statement: a generic plan cannot see how selective the project is
        # and was measured ten times slower on a large project (psycopg prepares after 5 runs).
        rows = self._conn.execute(build_statement(mode, scope), params, prepare=False).fetchall()
        hits = [_hit(r, float(r["score"])) for r in rows]
        dated = window if window is not None and dated_apart(hits) else None
        if dated is not None:
            hits = _by_date(hits, dated, weights.dates)
        hits = hits[:limit]
        if weights.neighbours > 0 and hits:
            hits = self._with_neighbours(hits, scope, params, mode, weights, dated, limit)
        return self._with_updates(hits, scope, params)[:limit]  # last: an update stays above what it updated

    @staticmethod
    def parameters(query: str, embedding: Sequence[float] | None, scope: SearchScope, *, pool: int,
                   limit: int, weights: SearchWeights) -> dict[str, Any]:
        """The statement's parameters but the query terms' (`query_terms`); `ann_N` False (no index
        for project N) until a vector plan sets them."""
        return {
            "query": query, "vector": vector(embedding), "projects": list(scope.projects),
            "category": scope.category, "categories": list(scope.categories or ()),
            "metadata": Jsonb(scope.metadata) if scope.metadata else None,
            "tag": scope.tag, "pool": pool, "limit": limit, "wide": 4 * pool, "sample": SAMPLE_ROWS,
            "w_vector": weights.vector, "w_text": weights.text, "w_recency": weights.recency,
            "context_share": CONTEXT_SHARE, "pair_share": PAIR_SHARE, "length_weight": LENGTH_WEIGHT,
            "average_lexemes": None,
            "half_life": weights.half_life_days, "max_half_lives": MAX_HALF_LIVES,
            "earliest": EARLIEST, "latest": LATEST,
            **{f"project_{n}": p for n, p in enumerate(scope.projects)},
            **{f"ann_{n}": False for n in range(len(scope.projects))},
        }

    def _with_updates(self, hits: list[SearchHit], scope: SearchScope,
                      params: Mapping[str, object]) -> list[SearchHit]:
        """Rank each memory that updated a hit at least as high as the hit (the newer first on a tie),
        fetching those not found by the statement; no extra statement when no hit was updated."""
        newer = {h.id: str(h.metadata["updated_by"]) for h in hits if _is_id(h.metadata.get("updated_by"))}
        if not newer:
            return hits
        best = {h.id: h for h in hits}
        missing = sorted(set(newer.values()) - set(best))
        if missing:
            rows = self._conn.execute(
                _UPDATES.format(filters=scope_filters(scope), created_at=CREATED_AT,
                                confirmed_at=CONFIRMED_AT),
                {**params, "updates": missing}, prepare=False).fetchall()
            best.update({str(r["id"]): _hit(r, 0.0) for r in rows})
        for _ in newer:  # a chain of updates settles in as many passes as it has links
            if not _successors_first(best, newer):
                break
        return sorted(best.values(), key=lambda h: (-h.score, -h.created_at.timestamp(), h.id))

    def _with_neighbours(self, hits: list[SearchHit], scope: SearchScope, params: Mapping[str, object],
                         mode: SearchMode, weights: SearchWeights, window: TimeWindow | None,
                         limit: int) -> list[SearchHit]:
        """Add the neighbours of the best hits: `share` of their parent's score and the rest of their
        own (dated as the hits were, by `window`), or their own when higher; best `limit` stay."""
        parents, share = hits[:NEIGHBOUR_PARENTS], weights.neighbours
        rows = self._conn.execute(
            _NEIGHBOURS.format(terms=_TERMS, filters=scope_filters(scope), created_at=CREATED_AT,
                               confirmed_at=CONFIRMED_AT, score=relevance(mode), recency=RECENCY),
            {**params, "parents": [h.id for h in parents], "window": NEIGHBOUR_WINDOW, "scan": NEIGHBOUR_SCAN,
             "per_side": NEIGHBOURS_PER_SIDE}, prepare=False).fetchall()
        best = {h.id: h for h in hits}
        for r in rows:
            own = float(r["own"]) * date_factor(window, r["created_at"], weights.dates)
            joined = max(own, share * parents[int(r["n"]) - 1].score + (1 - share) * own)
            known = best.get(str(r["id"]))
            if known is None or known.score < joined:
                best[str(r["id"])] = _hit(r, joined)
        ranked = sorted(best.values(), key=lambda h: (-h.score, -h.created_at.timestamp(), h.id))
        return ranked[:limit]

    def open(self, query: str, scope: SearchScope, pool: int, mode: SearchMode) -> dict[str, Any]:
        """Set the transaction's search settings (HNSW breadth, iterative scan, no parallel
        workers); the statement's term parameters and `ann_N` plans (`search_statistics`)."""
        return self._statistics.open_search(self._conn, query, scope.projects, pool, vector=mode != "text")

    def refresh_statistics(self) -> float:
        """ANALYZE the table (the full-text IDF comes from its statistics); return its row estimate."""
        self._conn.execute("ANALYZE memories")
        row = self._conn.execute("SELECT reltuples FROM pg_class WHERE oid = 'memories'::regclass").fetchone()
        return max(0.0, float(row["reltuples"])) if row else 0.0
