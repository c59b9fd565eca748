"""The hybrid score's parts stay in [0, 1] and behave as documented."""

from __future__ import annotations

import pytest

from chalicelib.kernel.errors import InvalidInput
from chalicelib.memory.domain.search_scoring import (
    MAX_POOL,
    MIN_POOL,
    SearchWeights,
    candidate_pool,
    coverage,
    ef_search,
    fused_score,
    idf,
    recency_factor,
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


@pytest.mark.parametrize("cosine", [-0.5, 0.0, 0.3, 1.0])
@pytest.mark.parametrize("cov", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("age", [0.0, 30.0, 10_000.0])
@pytest.mark.parametrize("mode", ["hybrid", "text", "vector"])
def test_scores_stay_between_zero_and_one(cosine: float, cov: float, age: float, mode: str) -> None:
    assert 0.0 <= fused_score(cosine, cov, age, SearchWeights(), mode) <= 1.0


def test_a_fresh_perfect_match_scores_one_and_age_costs_at_most_the_recency_weight() -> None:
    weights = SearchWeights()
    assert fused_score(1.0, 1.0, 0.0, weights) == pytest.approx(1.0)
    assert fused_score(1.0, 1.0, 1e6, weights) == pytest.approx(1.0 - weights.recency)
    assert recency_factor(90.0, 0.1, 90.0) == pytest.approx(0.95)


def test_rarer_terms_weigh_more_and_coverage_is_a_share() -> None:
    assert idf(0.001) > idf(0.1) > idf(1.0) == 0.0
    assert coverage(2.0, 4.0) == 0.5 and coverage(1.0, 0.0) == 0.0 and coverage(5.0, 4.0) == 1.0


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
