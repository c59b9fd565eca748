"""`search --explain`: why a search returned what it did.

For every candidate the search considered (its whole candidate pool), the vector part, the
text part and the recency factor, the candidate's rank by each part and by the fused score, and
whether it made the cut (`limit`). Ranks are 1-based, ties share the better rank; a part the
mode does not use has no rank.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any, Protocol

from chalicelib.kernel.errors import InvalidInput
from chalicelib.memory.domain.memory_model import GLOBAL_PROJECT, SEARCH_MODES, SearchMode, SearchScope
from chalicelib.memory.domain.query_dates import query_window
from chalicelib.memory.domain.search_scoring import SearchWeights

PARTS = ("vector", "text", "recency")


class ExplainReader(Protocol):
    def candidates(self, query: str, embedding: Sequence[float] | None, scope: SearchScope, *,
                   mode: SearchMode, limit: int, weights: SearchWeights) -> list[dict[str, Any]]: ...


class ExplainUnit(Protocol):
    @property
    def explain(self) -> ExplainReader: ...


class QueryPreparer(Protocol):
    weights: SearchWeights

    def prepare_query(self, query: str,
                      mode: SearchMode) -> tuple[str, SearchMode, str | None, list[float] | None]: ...


def rank(values: list[float | None]) -> list[int | None]:
    """1-based rank of each value, highest first (ties share a rank); None stays None."""
    present = sorted((v for v in values if v is not None), reverse=True)
    return [None if v is None else present.index(v) + 1 for v in values]


class SearchExplainer:
    def __init__(self, units: Callable[[], AbstractContextManager[ExplainUnit]],
                 memory: QueryPreparer) -> None:
        self._units = units
        self._memory = memory

    def explain(self, query: str, project: str, *, limit: int = 10, category: str | None = None,
                mode: SearchMode = "hybrid", include_global: bool = True,
                include_untrusted: bool = False) -> dict[str, Any]:
        if mode not in SEARCH_MODES:
            raise InvalidInput(f"mode must be one of {', '.join(SEARCH_MODES)}", field="mode")
        text, used, degraded, vector = self._memory.prepare_query(query, mode)
        alone = project == GLOBAL_PROJECT or not include_global
        projects = (project,) if alone else (project, GLOBAL_PROJECT)
        scope = SearchScope(projects, category, include_untrusted=include_untrusted)
        weights = self._memory.weights
        with self._units() as uow:
            rows = uow.explain.candidates(text, vector, scope, mode=used, limit=limit, weights=weights)
        parts = {p: [_num(r[f"{p}_part"]) for r in rows] for p in PARTS}
        ranks = {p: rank(parts[p]) for p in PARTS}
        candidates = []
        for i, r in enumerate(rows):
            candidates.append({
                "id": str(r["id"]), "project": r["project"], "category": r["category"],
                "content": r["content"], "source": r["source"], "trusted": r["trusted"],
                "score": round(float(r["score"]), 6), "rank": i + 1, "selected": i < limit,
                "parts": {p: parts[p][i] for p in PARTS}, "ranks": {p: ranks[p][i] for p in PARTS},
            })
        # The candidates as the statement scores them, before the re-rankings after it (the
        # neighbours of the best hits, the time the query names), which are reported, not applied.
        window = query_window(text, datetime.now(UTC)) if weights.dates > 0 else None
        return {"query": text, "mode": used, "degraded": degraded, "limit": limit,
                "weights": {"vector": weights.vector, "text": weights.text, "recency": weights.recency,
                            "half_life_days": weights.half_life_days, "neighbours": weights.neighbours,
                            "dates": weights.dates},
                "time_window": None if window is None else [window.start.isoformat(), window.end.isoformat()],
                "candidates": candidates}


def _num(value: Any) -> float | None:
    return None if value is None else round(float(value), 6)
