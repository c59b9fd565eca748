"""The hybrid search score's definition, its weights and the candidate sizes.

The score is computed in one place, the search statement (`memory/adapters/memory_search.py`),
and tested there on crafted rows (tests/integration/memory/test_search_ranking.py):

    relevance = w_v * clamp(cosine, 0, 1) + w_t * coverage          (hybrid; weights sum to 1)
    cosine    = the memory's own vector's, or its best window's (a long memory) when closer
    coverage  = min(1, (sum(idf(t) for query terms t in the memory)
                       + 0.3 * sum(min idf of each two words next to each other in the query
                                   and next to each other in the memory))
                    / sum(idf(t) for all query terms))
                * min(1, average length / its length) ** 0.25   (lengths in distinct lexemes)
    idf(t)    = ln(1 / f(t)), f = the share of memories holding the term (planner statistics)
    score     = relevance * (1 - w_r + w_r * 0.5 ** (age_days / half_life_days))
    a memory a later one updated (metadata `updated_by`) keeps its score; its successor ranks just above it

Text mode uses coverage alone, vector mode the clamped cosine alone. Every factor is in [0, 1],
so scores are in [0, 1], higher is better, and comparable across queries (they are not
normalised against the other candidates). The defaults were chosen on LoCoMo
(docs/benchmarks.md): vector 0.4, text 0.6.

After the statement, the adapter re-ranks: with `dates` > 0 a query naming a time multiplies each
score by `1 - dates + dates * closeness` (`query_dates`); with `neighbours` > 0 the memories stored
next to the best hits join at `neighbours * hit's score + (1 - neighbours) * their own score`; a memory
a later one updated is ranked just below its successor, after both. `SearchWeights()` has both off; the
deployment's defaults (Settings) turn them on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from chalicelib.kernel.errors import InvalidInput

MIN_POOL, MAX_POOL = 40, 400
MIN_EF_SEARCH, MAX_EF_SEARCH = 100, 1000
ANN_EF_LIMIT = 800  # beyond this breadth an exact scan of the (then small) scope is cheaper...
EXACT_ROWS = 3_000  # ...unless the scope holds more rows than this: an exact scan reads every one


@dataclass(frozen=True)
class SearchWeights:
    vector: float = 0.4
    text: float = 0.6
    recency: float = 0.1
    half_life_days: float = 90.0
    neighbours: float = 0.0  # > 0: neighbours of the best hits join at this share of their score
    dates: float = 0.0  # > 0: a query naming a time favours memories near it (`query_dates`)

    def normalised(self) -> SearchWeights:
        """Weights with vector + text = 1 and recency in [0, 1]; raise InvalidInput otherwise."""
        if self.vector < 0 or self.text < 0 or self.vector + self.text <= 0:
            raise InvalidInput("search weights must be non-negative and not both zero")
        if not 0 <= self.recency <= 1 or self.half_life_days <= 0:
            raise InvalidInput("recency weight must be in [0, 1] and the half-life positive")
        if not 0 <= self.neighbours < 1:
            raise InvalidInput("the neighbours' share must be in [0, 1)")
        if not 0 <= self.dates <= 1:
            raise InvalidInput("the dates weight must be in [0, 1]")
        total = self.vector + self.text
        return SearchWeights(self.vector / total, self.text / total, self.recency, self.half_life_days,
                             self.neighbours, self.dates)


def candidate_pool(limit: int) -> int:
    """How many candidates each side (vector, text) contributes before fusion."""
    return max(MIN_POOL, min(MAX_POOL, 4 * limit))


def ef_search(pool: int) -> int:
    """HNSW search breadth when the scope's size is unknown (no planner statistics yet)."""
    return max(MIN_EF_SEARCH, min(MAX_EF_SEARCH, 4 * pool))


def vector_plan(pool: int, scope_share: float | None, scope_rows: float | None = None) -> tuple[bool, int]:
    """(use the HNSW index, hnsw.ef_search) for a scope holding `scope_share` of all memories.

    A filtered HNSW scan keeps about ef_search x share rows of the scope, so ef_search is sized
    for 1.5 x pool of them. When that would exceed ANN_EF_LIMIT the scope is small enough that
    an exact scan is cheaper than so wide an HNSW search, unless the scope's estimated rows
    (`scope_rows`, when known) exceed EXACT_ROWS: a 5 % project of a million memories is 50,000
    rows, which the index at the widest breadth (and iterative scan) reads far faster than an
    exact scan. Unknown share: the index with a default breadth (the statement still falls back
    to an exact scan when it comes up short).
    """
    if scope_share is None:
        return True, ef_search(pool)
    if scope_share <= 0 or (scope_rows is not None and scope_rows <= EXACT_ROWS):
        return False, MIN_EF_SEARCH
    needed = math.ceil(1.5 * pool / scope_share)
    if needed > ANN_EF_LIMIT:
        if scope_rows is None:
            return False, MIN_EF_SEARCH
        return True, MAX_EF_SEARCH
    return True, max(MIN_EF_SEARCH, needed)
