"""The brain's pure rules: heuristic order, the LLM's order checked, dedup and the cap, settings."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from chalicelib.brain.domain.brain_state import BrainState, configured
from chalicelib.brain.domain.proposals import Observation, callback_data, parse_callback
from chalicelib.brain.domain.ranking import decide, heuristic_rank, llm_rank
from chalicelib.kernel.errors import InvalidInput

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def obs(key: str, severity: int, count: int = 1) -> Observation:
    return Observation("dlq", key, None, f"about {key}", severity, {"kind": "requeue_dlq", "queue": key},
                       {"count": count})


def test_the_heuristic_ranks_by_severity_then_occurrences() -> None:
    ranked = heuristic_rank([obs("c", 3), obs("a", 1), obs("b", 1, count=5)], NOW)
    assert [p.dedup_key for p in ranked] == ["b", "a", "c"]


def test_an_llm_answer_is_used_only_for_indexes_it_was_given() -> None:
    observations = [obs("a", 2), obs("b", 2)]
    answer = {"ranked": [{"index": 1, "title": "B first", "rationale": "r", "priority": 1},
                         {"index": 7, "title": "?", "rationale": "", "priority": 1},
                         {"index": 1, "title": "again", "rationale": "", "priority": 1}]}
    ranked = llm_rank(observations, answer, NOW)
    assert ranked is not None
    assert [(p.dedup_key, p.title, p.priority) for p in ranked] == [("b", "B first", 1)]
    assert llm_rank(observations, {"ranked": "no"}, NOW) is None
    assert llm_rank(observations, None, NOW) is None


def test_decide_skips_covered_keys_and_keeps_at_most_the_limit() -> None:
    ranked = heuristic_rank([obs(k, 1) for k in "abcde"], NOW)
    assert [p.dedup_key for p in decide(ranked, covered_keys={"a", "c"}, limit=2)] == ["b", "d"]


def test_settings_take_minutes_or_seconds_within_their_bounds() -> None:
    state = BrainState()
    assert configured(state, "interval", "15m").interval_s == 900
    assert configured(state, "interval", "120").interval_s == 120
    assert configured(state, "max", "0").max_proposals == 0
    for name, value in (("interval", "30"), ("max", "11"), ("budget", "-1"), ("budget", "lots"), ("x", "1")):
        with pytest.raises(InvalidInput):
            configured(state, name, value)


def test_button_data_round_trips_and_rejects_anything_else() -> None:
    pid = "0b9c7b39-2f7f-4c59-9d0e-2b8f3a3f0a11"
    assert parse_callback(callback_data(pid, True)) == (pid, True)
    assert parse_callback(callback_data(pid, False)) == (pid, False)
    assert len(callback_data(pid, True).encode()) <= 64
    assert parse_callback("bp:short:a") is None and parse_callback(f"sp:{pid}:a") is None
