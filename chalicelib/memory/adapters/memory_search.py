"""Hybrid memory search: vector similarity and full-text coverage fused in one SQL statement.

Scores are in [0, 1], higher is better (the formula is `chalicelib.memory.domain.search_scoring`):
the adapter turns pgvector's cosine distance into a clamped similarity and the full-text side
into an IDF-weighted share of the query's terms. IDF comes from the planner's statistics on
`search_tsv` (pg_stats.most_common_elems, refreshed by ANALYZE), so nothing is maintained on
the write path; before the first ANALYZE every term weighs the same.

Completeness: an HNSW scan filtered by project can return fewer rows than asked (pgvector
before 0.8 has no iterative scan). The statement checks the approximate pool and, when it is
short, falls back to an exact scan of the scope within the same statement; with pgvector 0.8+
`hnsw.iterative_scan` is switched on as well. The SQL text is built from constant fragments
only; every value is a parameter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from psycopg.types.json import Jsonb

from chalicelib.memory.adapters.memory_repository import LIVE, Conn, vector
from chalicelib.memory.domain.memory_model import ON_REQUEST_CATEGORIES, SearchHit, SearchMode, SearchScope
from chalicelib.memory.domain.query_dates import TimeWindow, date_factor, query_window
from chalicelib.memory.domain.search_scoring import SearchWeights, candidate_pool, vector_plan

CANDIDATE_TERMS = 8  # at most this many of the rarest query terms pick text candidates...
TEXT_BUDGET = 1_500  # ...while the rows they are expected to match stay under this,
MAX_SHARE = 0.05  # ...or the rarest alone, if at most this share of memories holds it.
# Every query term still scores every candidate. A term held by more memories than that is
# weak evidence (idf < 3) and would make the text side visit a large part of a big project.

# A lexeme as a tsquery operand: quoted, with backslashes and quotes escaped.
_QUOTED = r"('''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''')"
_TERMS = r"""
stats AS (
  SELECT most_common_elems::text::text[] AS elems, most_common_elem_freqs AS freqs FROM pg_stats
  WHERE schemaname = current_schema() AND tablename = 'memories' AND attname = 'search_tsv'),
shares AS (
  SELECT t.lexeme, CASE WHEN s.elems IS NULL THEN NULL ELSE greatest(1e-9, coalesce(
      s.freqs[array_position(s.elems, t.lexeme)], s.freqs[array_length(s.elems, 1) + 1] * 0.5)) END AS share
  FROM unnest(tsvector_to_array(to_tsvector('english'::regconfig, %(query)s))) AS t(lexeme)
  LEFT JOIN stats s ON true),
terms AS (
  SELECT lexeme, share, coalesce(ln(1.0 / share), 1.0) AS idf, QUOTED::tsquery AS tq,
    row_number() OVER (ORDER BY share NULLS FIRST, lexeme) AS rarity,
    sum(share) OVER (ORDER BY share NULLS FIRST, lexeme) * (
      SELECT greatest(reltuples, 1) FROM pg_class WHERE oid = 'memories'::regclass) AS expected_rows
  FROM shares),
query AS (
  SELECT (SELECT coalesce(sum(idf), 0) FROM terms) AS total_idf,
    (SELECT string_agg(QUOTED, ' | ') FROM terms
     WHERE rarity <= %(candidate_terms)s AND (share IS NULL OR expected_rows <= %(text_budget)s
       OR (rarity = 1 AND share <= %(max_share)s)))::tsquery AS tq,
    (SELECT string_agg(QUOTED, ' | ') FROM terms WHERE rarity <= 32)::tsquery AS tq_all),
""".replace("QUOTED", _QUOTED)
_TEXT_HITS = """
text_hits AS MATERIALIZED (
  SELECT m.id FROM memories m, query q
  WHERE q.tq IS NOT NULL AND m.search_tsv @@ q.tq AND {filters}
  ORDER BY (SELECT sum(t.idf) FROM terms t WHERE m.search_tsv @@ t.tq) DESC, m.id
  LIMIT %(pool)s),
"""
# Text mode only: when the selective terms found too few memories, any memory holding any query
# term may fill the pool (a bounded sample, scored like the rest); hybrid mode has vectors for that.
_TEXT_MORE = """
text_more AS MATERIALIZED (
  SELECT m.id FROM memories m, query q
  WHERE (SELECT count(*) FROM text_hits) < %(pool)s AND q.tq_all IS NOT NULL AND m.search_tsv @@ q.tq_all
    AND {filters}
  LIMIT %(wide)s),
"""
_VECTOR_HITS = """
vec_ann AS MATERIALIZED (
  SELECT m.id FROM memories m WHERE %(use_ann)s AND m.embedding IS NOT NULL AND {filters}
  ORDER BY m.embedding <=> %(vector)s LIMIT %(pool)s),
vec_exact AS MATERIALIZED (
  SELECT m.id FROM memories m
  WHERE (SELECT count(*) FROM vec_ann) < %(pool)s AND m.embedding IS NOT NULL AND {filters}
  ORDER BY (m.embedding <=> %(vector)s) + 0 LIMIT %(pool)s),
"""
_SCORE = {
    "hybrid": "%(w_vector)s * {cosine} + %(w_text)s * {coverage}",
    "text": "{coverage}",
    "vector": "{cosine}",
}
_CANDIDATES = {
    "hybrid": "SELECT id FROM text_hits UNION SELECT id FROM vec_ann UNION SELECT id FROM vec_exact",
    "text": "SELECT id FROM text_hits UNION SELECT id FROM text_more",
    "vector": "SELECT id FROM vec_ann UNION SELECT id FROM vec_exact",
}
_FINAL = """
candidates AS ({candidates})
SELECT m.id, m.project, m.category, m.content, m.summary, m.files, m.metadata, m.created_at, m.source,
  m.trusted, ({score}) * (1 - %(w_recency)s + %(w_recency)s * power(0.5, greatest(0, extract(epoch FROM
    now() - greatest(m.created_at, m.last_reinforced_at)) / 86400.0) / %(half_life)s)) AS score
FROM candidates c JOIN memories m ON m.id = c.id CROSS JOIN query q
ORDER BY score DESC, m.created_at DESC, m.id LIMIT %(limit)s
"""
# Memories stored next to a strong hit (the turn before and after it in a conversation, the step
# before and after it in a working session): at most NEIGHBOURS_PER_SIDE each side of each of the
# best NEIGHBOUR_PARENTS hits, in the same scope, within NEIGHBOUR_WINDOW of it.
NEIGHBOUR_PARENTS, NEIGHBOURS_PER_SIDE, NEIGHBOUR_WINDOW = 5, 2, "30 minutes"  # chosen on LoCoMo 1-5
_NEIGHBOURS = """
SELECT h.n, m.id, m.project, m.category, m.content, m.summary, m.files, m.metadata, m.created_at,
  m.source, m.trusted
FROM unnest(%(parents)s::uuid[]) WITH ORDINALITY AS h(id, n) JOIN memories p ON p.id = h.id
CROSS JOIN LATERAL ((
  SELECT m.* FROM memories m WHERE m.project = p.project AND m.created_at < p.created_at
    AND m.created_at >= p.created_at - %(window)s::interval AND {filters}
  ORDER BY m.created_at DESC, m.id DESC LIMIT %(per_side)s
) UNION ALL (
  SELECT m.* FROM memories m WHERE m.project = p.project AND m.created_at > p.created_at
    AND m.created_at <= p.created_at + %(window)s::interval AND {filters}
  ORDER BY m.created_at, m.id LIMIT %(per_side)s)) m
"""
_COSINE = "greatest(0.0, least(1.0, 1 - coalesce(m.embedding <=> %(vector)s, 1)))"
_COVERAGE = ("CASE WHEN q.total_idf > 0 THEN least(1.0, coalesce((SELECT sum(t.idf) FROM terms t"
             " WHERE m.search_tsv @@ t.tq), 0) / q.total_idf) ELSE 0 END")


_NOT_ON_REQUEST = "m.category NOT IN (" + ", ".join(f"'{c}'" for c in ON_REQUEST_CATEGORIES) + ")"


def scope_filters(scope: SearchScope) -> str:
    """The WHERE conditions (on alias m) of the filters present in `scope`."""
    filters = ["m.project = ANY(%(projects)s)", LIVE]
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


def build_statement(mode: SearchMode, scope: SearchScope) -> str:
    """The search SQL for `mode` and the filters present in `scope` (constant fragments only)."""
    where = scope_filters(scope)
    parts = ["WITH", _TERMS]
    if mode in ("hybrid", "text"):
        parts.append(_TEXT_HITS.format(filters=where))
    if mode == "text":
        parts.append(_TEXT_MORE.format(filters=where))
    if mode in ("hybrid", "vector"):
        parts.append(_VECTOR_HITS.format(filters=where))
    score = _SCORE[mode].format(cosine=_COSINE, coverage=_COVERAGE)
    parts.append(_FINAL.format(candidates=_CANDIDATES[mode], score=score))
    return "".join(parts)


def _by_date(hits: list[SearchHit], window: TimeWindow, weight: float) -> list[SearchHit]:
    """Each score times its memory's nearness to the query's time window, best first."""
    dated = [replace(h, score=round(h.score * date_factor(window, h.created_at, weight), 6)) for h in hits]
    return sorted(dated, key=lambda h: (-h.score, -h.created_at.timestamp(), h.id))


def _hit(r: dict[str, Any], score: float) -> SearchHit:
    return SearchHit(id=str(r["id"]), project=r["project"], category=r["category"], content=r["content"],
                     summary=r["summary"], score=round(score, 6), created_at=r["created_at"],
                     metadata=dict(r["metadata"] or {}), files=tuple(r["files"] or ()),
                     source=r["source"], trusted=bool(r["trusted"]))


class VectorFeatures:
    """What the installed pgvector can do, asked once (it does not change under a running process)."""

    def __init__(self) -> None:
        self._iterative: bool | None = None

    def iterative_scan(self, conn: Conn) -> bool:
        if self._iterative is None:  # two threads may both ask: the answer is the same
            row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
            version = tuple(int(p) for p in str(row["extversion"]).split(".")[:2]) if row else (0, 0)
            self._iterative = version >= (0, 8)
        return self._iterative


class PostgresMemorySearch:
    def __init__(self, conn: Conn, features: VectorFeatures) -> None:
        self._conn = conn
        self._features = features

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
        if mode != "text":
            params["use_ann"] = self.plan_vector_scan(pool, scope)
        conn = self._conn
        # Never a prepared statement: a generic plan cannot see how selective the project is
        # and was measured ten times slower on a large project (psycopg prepares after 5 runs).
        rows = conn.execute(build_statement(mode, scope), params, prepare=False).fetchall()
        hits = [_hit(r, float(r["score"])) for r in rows]
        if window is not None:
            hits = _by_date(hits, window, weights.dates)[:limit]
        if weights.neighbours > 0 and hits:
            hits = self._with_neighbours(hits, scope, params, weights.neighbours, limit)
        return hits

    @staticmethod
    def parameters(query: str, embedding: Sequence[float] | None, scope: SearchScope, *, pool: int,
                   limit: int, weights: SearchWeights) -> dict[str, Any]:
        """The statement's parameters (`use_ann` False until a vector plan sets it)."""
        return {
            "query": query, "vector": vector(embedding), "projects": list(scope.projects),
            "category": scope.category, "categories": list(scope.categories or ()),
            "metadata": Jsonb(scope.metadata) if scope.metadata else None,
            "tag": scope.tag,
            "pool": pool, "limit": limit, "candidate_terms": CANDIDATE_TERMS,
            "text_budget": TEXT_BUDGET, "max_share": MAX_SHARE, "wide": 4 * pool,
            "w_vector": weights.vector, "w_text": weights.text, "w_recency": weights.recency,
            "half_life": weights.half_life_days, "use_ann": False,
        }

    def _with_neighbours(self, hits: list[SearchHit], scope: SearchScope, params: Mapping[str, object],
                         share: float, limit: int) -> list[SearchHit]:
        """Add the neighbours of the best hits at `share` of their parent's score; best `limit` stay."""
        parents = hits[:NEIGHBOUR_PARENTS]
        rows = self._conn.execute(
            _NEIGHBOURS.format(filters=scope_filters(scope)),
            {**params, "parents": [h.id for h in parents], "window": NEIGHBOUR_WINDOW,
             "per_side": NEIGHBOURS_PER_SIDE}, prepare=False).fetchall()
        best = {h.id: h for h in hits}
        for r in rows:
            score = share * parents[int(r["n"]) - 1].score
            known = best.get(str(r["id"]))
            if known is None or known.score < score:
                best[str(r["id"])] = _hit(r, score)
        ranked = sorted(best.values(), key=lambda h: (-h.score, -h.created_at.timestamp(), h.id))
        return ranked[:limit]

    def plan_vector_scan(self, pool: int, scope: SearchScope) -> bool:
        """Set this transaction's HNSW breadth (and iterative scan); True to use the index at all."""
        use_ann, ef = vector_plan(pool, self._scope_share(scope.projects))
        self._conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(ef),))
        if self._features.iterative_scan(self._conn):
            self._conn.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
        return use_ann

    def refresh_statistics(self) -> float:
        """ANALYZE the table (the full-text IDF comes from its statistics); return its row estimate."""
        self._conn.execute("ANALYZE memories")
        row = self._conn.execute("SELECT reltuples FROM pg_class WHERE oid = 'memories'::regclass").fetchone()
        return max(0.0, float(row["reltuples"])) if row else 0.0

    def _scope_share(self, projects: tuple[str, ...]) -> float | None:
        """The share of all memories in these projects, from the planner's statistics (None: none yet).

        A project missing from the most-common list is small; it counts as nothing.
        """
        row = self._conn.execute(
            "SELECT most_common_vals::text::text[] AS vals, most_common_freqs AS freqs FROM pg_stats"
            " WHERE schemaname = current_schema() AND tablename = 'memories' AND attname = 'project'"
        ).fetchone()
        if row is None:
            return None
        shares = dict(zip(row["vals"] or [], row["freqs"] or [], strict=False))
        return float(sum(shares.get(p, 0.0) for p in projects))
