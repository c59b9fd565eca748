"""Search weights are checked and the candidate pool and HNSW breadth are sized as documented."""

from __future__ import annotations

import pytest

from chalicelib.kernel.errors import InvalidInput
from chalicelib.memory.domain.search_scoring import (
    MAX_EF_SEARCH,
    MAX_POOL,
    MIN_POOL,
    SearchWeights,
    candidate_pool,
    ef_search,
    vector_plan,
)


def test_weights_are_normalised_to_sum_to_one() -> None:
    weights = SearchWeights(vector=2, text=6).normalised()
    assert weights.vector == pytest.approx(0.25) and weights.text == pytest.approx(0.75)


@pytest.mark.parametrize("weights", [SearchWeights(-1, 1), SearchWeights(0, 0), SearchWeights(recency=2),
                                     SearchWeights(half_life_days=0)])
def test_impossible_weights_are_rejected(weights: SearchWeights) -> None:
    with pytest.raises(InvalidInput):
        weights.normalised()


def test_candidate_pool_and_hnsw_breadth_are_bounded() -> None:
    assert candidate_pool(1) == MIN_POOL and candidate_pool(10_000) == MAX_POOL
    assert ef_search(candidate_pool(10)) >= candidate_pool(10)
    assert ef_search(MAX_POOL) <= 1000


def test_the_hnsw_breadth_follows_the_scope_and_small_scopes_are_scanned_exactly() -> None:
    assert vector_plan(40, None) == (True, ef_search(40))  # no statistics yet
    assert vector_plan(40, 1.0) == (True, 100)
    assert vector_plan(40, 0.4) == (True, 150)
    assert vector_plan(40, 0.1) == (True, 600)
    assert vector_plan(40, 0.05) == (False, 100)  # 1200 would be wider than an exact scan is slow
    assert vector_plan(40, 0.0) == (False, 100)


def test_a_scope_is_scanned_exactly_only_while_its_estimated_rows_are_few() -> None:
    # 5 % of 100,000 memories: 5,000 rows, still cheaper by the index at its widest breadth
    assert vector_plan(40, 0.05, 5_000) == (True, MAX_EF_SEARCH)
    # 5 % of 40,000 and 1 % of 100,000: few enough rows to read them all
    assert vector_plan(40, 0.05, 2_000) == (False, 100)
    assert vector_plan(40, 0.01, 1_000) == (False, 100)
    # a large share of many rows: the breadth its share needs, as without a row estimate
    assert vector_plan(40, 0.4, 400_000) == vector_plan(40, 0.4) == (True, 150)
    # a whole index of its own (`_global`), small or large
    assert vector_plan(40, 1.0, 1_200) == (False, 100)
    assert vector_plan(40, 1.0, 12_000) == (True, 100)
