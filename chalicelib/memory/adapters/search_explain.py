"""Explain one memory search: every candidate the statement considered, with its parts.

The same candidate selection as `memory_search` (constant SQL fragments, every value a
parameter), but the whole candidate pool comes back with the vector part (clamped cosine
similarity), the text part (IDF-weighted share of the query's terms), the recency factor and
the fused score, so the caller can rank each part and show the candidates that lost.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chalicelib.memory.adapters.memory_rows import Conn
from chalicelib.memory.adapters.memory_search import (
    _CANDIDATES,
    _COSINE,
    _COVERAGE,
    CREATED_AT,
    RECENCY,
    UPDATED,
    PostgresMemorySearch,
    build_statement,
    relevance,
)
from chalicelib.memory.adapters.search_statistics import SearchStatistics
from chalicelib.memory.domain.memory_model import SearchMode, SearchScope
from chalicelib.memory.domain.search_scoring import SearchWeights, candidate_pool

_EXPLAIN = """
candidates AS ({candidates})
SELECT m.id, m.project, m.category, m.content, {created_at}, m.source, m.trusted,
  {vector_part} AS vector_part, {text_part} AS text_part, {recency} AS recency_part,
  ({score}) * {recency} * {updated} AS score
FROM candidates c JOIN memories m ON m.id = c.id CROSS JOIN query q
ORDER BY score DESC, m.created_at DESC, m.id LIMIT %(pool)s
"""


def explain_statement(mode: SearchMode, scope: SearchScope) -> str:
    head = build_statement(mode, scope).split("candidates AS (", 1)[0]
    return head + _EXPLAIN.format(
        candidates=_CANDIDATES[mode], score=relevance(mode),
        vector_part="NULL::float8" if mode == "text" else _COSINE,
        text_part="NULL::float8" if mode == "vector" else _COVERAGE, recency=RECENCY, created_at=CREATED_AT,
        updated=UPDATED)


class PostgresSearchExplain:
    def __init__(self, conn: Conn, statistics: SearchStatistics) -> None:
        self._conn = conn
        self._search = PostgresMemorySearch(conn, statistics)

    def candidates(self, query: str, embedding: Sequence[float] | None, scope: SearchScope, *,
                   mode: SearchMode, limit: int, weights: SearchWeights) -> list[dict[str, Any]]:
        """Every candidate of the search's pool, best fused score first, with its parts."""
        pool = candidate_pool(limit)
        params = self._search.parameters(query, embedding, scope, pool=pool, limit=limit, weights=weights)
        params.update(self._search.open(query, scope, pool, mode))
        rows = self._conn.execute(explain_statement(mode, scope), params, prepare=False).fetchall()
        return [dict(r) for r in rows]
