"""The learning loop's formulas: confidence moves, ranking, significance tiers, rule wording."""

from __future__ import annotations

import pytest

from chalicelib.learning.domain import lesson_confidence as lc
from chalicelib.learning.domain.lesson_ranking import (
    lesson_score,
    recency_decay,
    reinforcement_bonus,
    rule_priority,
)
from chalicelib.learning.domain.rule_wording import as_rule, more_specific
from chalicelib.learning.domain.significance import SessionSignals, heuristic_significance


def test_success_then_failure_moves_a_new_lesson_from_07_to_08_to_065() -> None:
    after_success = lc.after_outcome(lc.INITIAL, success=True)

    assert after_success == 0.8
    assert lc.after_outcome(after_success, success=False) == 0.65


def test_confidence_never_passes_its_ceiling_or_floor() -> None:
    assert lc.after_outcome(0.95, success=True) == 0.99
    assert lc.after_outcome(0.1, success=False) == 0.05
    assert lc.after_feedback(0.98, good=True) == 0.99
    assert lc.after_feedback(0.08, good=False) == 0.05


def test_feedback_moves_confidence_by_a_tenth() -> None:
    assert lc.after_feedback(0.7, good=True) == 0.8
    assert lc.after_feedback(0.7, good=False) == 0.6


def test_effectiveness_review_needs_five_applications() -> None:
    assert lc.after_effectiveness_review(0.7, applications=4, successes=0) == 0.7


def test_effectiveness_review_boosts_lessons_that_work_and_decays_those_that_fail() -> None:
    assert lc.after_effectiveness_review(0.7, applications=10, successes=10) == 0.775
    assert lc.after_effectiveness_review(0.7, applications=10, successes=2) == 0.575
    assert lc.after_effectiveness_review(0.6, applications=5, successes=3) == 0.6


def test_recency_decay_halves_every_thirty_days_with_a_floor() -> None:
    assert recency_decay(0) == 1.0
    assert recency_decay(30) == pytest.approx(0.5)
    assert recency_decay(365) == 0.25


def test_reinforcement_bonus_grows_slowly_and_is_capped() -> None:
    assert reinforcement_bonus(1, 0) == 1.0
    assert 1.0 < reinforcement_bonus(3, 2) < reinforcement_bonus(10, 20) <= 1.5
    assert reinforcement_bonus(10_000, 10_000) == 1.5


def test_lesson_score_is_the_product_of_its_four_factors() -> None:
    expected = 0.9 * 0.8 * recency_decay(15) * reinforcement_bonus(2, 3)

    assert lesson_score(0.9, 0.8, 15, times_reinforced=2, applications=3) == pytest.approx(expected)


def test_a_confident_relevant_fresh_lesson_beats_a_stale_doubtful_one() -> None:
    assert lesson_score(0.8, 0.9, 1) > lesson_score(0.8, 0.4, 90)


def test_rule_priority_is_confidence_times_reinforcement() -> None:
    assert rule_priority(0.8, 3) == pytest.approx(2.4)
    assert rule_priority(0.95, 1) < rule_priority(0.5, 2)


@pytest.mark.parametrize(("signals", "low", "high"), [
    (SessionSignals(), 0.0, 0.2),
    (SessionSignals(chars=9000), 0.0, 0.2),
    (SessionSignals(files_changed=1, minor_insights=1), 0.3, 0.5),
    (SessionSignals(files_changed=50, failures=50, chars=99_999, minor_insights=5), 0.3, 0.5),
    (SessionSignals(key_insights=1), 0.6, 0.8),
    (SessionSignals(key_insights=9, files_changed=9, failures=9, chars=99_999), 0.6, 0.8),
    (SessionSignals(key_insights=1, critical=True), 0.9, 1.0),
])
def test_heuristic_significance_stays_on_the_seed_scale(signals: SessionSignals, low: float,
                                                       high: float) -> None:
    assert low <= heuristic_significance(signals) <= high


def test_a_critical_word_without_a_key_insight_is_not_critical() -> None:
    assert heuristic_significance(SessionSignals(critical=True, files_changed=1)) <= 0.5


def test_rule_wording_drops_lead_ins_and_trailing_punctuation() -> None:
    assert as_rule("ok, from now on, we must never push to main!") == "Never push to main"


def test_a_rule_naming_a_flag_or_path_is_more_specific() -> None:
    assert more_specific("Run tests with --no-cache", "Run tests")
    assert more_specific("Always use yarn, not npm, for installs in web/", "Always use yarn, not npm")
    assert not more_specific("Use yarn not npm", "Always use yarn, not npm")
