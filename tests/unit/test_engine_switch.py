"""The engine auto-switch decision and its loop guard."""

from __future__ import annotations

from chalicelib.contracts.engine_switch import engine_order, handoff_prompt, plan_switch

PRIORITY = ("claude", "codex", "gemini")


def test_the_requested_engine_comes_first_then_the_priority_list() -> None:
    assert engine_order("gemini", PRIORITY) == ("gemini", "claude", "codex")
    assert engine_order(None, PRIORITY) == PRIORITY
    assert engine_order(None, ()) == ("claude",)


def test_a_rate_limited_engine_hands_over_to_the_next_untried_one() -> None:
    decision = plan_switch(PRIORITY, ["claude"], 0, fallback_active=False)
    assert decision.switch and decision.next_engine == "codex"


def test_no_engine_is_tried_twice() -> None:
    assert plan_switch(PRIORITY, PRIORITY, 0, fallback_active=False, max_switches=5).next_engine is None


def test_the_switch_count_caps_the_chain() -> None:
    decision = plan_switch(PRIORITY, ["claude", "codex"], 2, fallback_active=False, max_switches=2)
    assert decision.next_engine is None
    assert "limit" in decision.reason


def test_an_agent_started_inside_a_fallback_never_switches() -> None:
    decision = plan_switch(PRIORITY, ["claude"], 0, fallback_active=True)
    assert decision.next_engine is None
    assert "ITACHI_FALLBACK_ACTIVE" in decision.reason


def test_the_handoff_prompt_keeps_the_task_and_says_what_was_done() -> None:
    prompt = handoff_prompt("fix the bug", "claude", "- tools used: Edit x2", ["app.py"])
    assert prompt.startswith("fix the bug")
    assert "Handoff from claude" in prompt and "Edit x2" in prompt and "app.py" in prompt
