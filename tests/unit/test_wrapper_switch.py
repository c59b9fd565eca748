"""Wrapper auto-switch: which prompt is handed over, in which mode, and when a run counts as rate limited."""

from __future__ import annotations

import pytest

from agent.engines.engine_run import RunSummary
from agent.wrappers.wrapper_switch import enabled, fallback_args, original_prompt
from agent.wrappers.wrapper_watch import WatchedRun

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("client", "argv", "prompt"), [
    ("claude", ["--dp", "hello"], "hello"),
    ("claude", ["-p", "fix it", "--output-format", "stream-json", "--verbose"], "fix it"),
    ("claude", ["--model", "opus", "--ds"], ""),
    ("claude", ["-c", "go on"], "go on"),  # claude's -c takes no value
    ("codex", ["exec", "-c", "model=o3", "refactor"], "refactor"),
    ("codex", ["--c"], ""),
    ("gemini", ["-p", "explain", "--yolo"], "explain"),
    ("gemini", ["-i", "start here", "-m", "pro"], "start here"),
    ("claude", ["--ds", "--", "-not-a-flag"], ""),
])
def test_the_handed_over_prompt_is_the_users_own_words(client: str, argv: list[str], prompt: str) -> None:
    assert original_prompt(client, argv) == prompt


def test_the_next_engine_keeps_the_runs_mode_permissions_and_stream_format() -> None:
    assert fallback_args("codex", ["--dp", "x", "--output-format", "stream-json"], "H", headless=True) == [
        "--json", "--dp", "H"]
    assert fallback_args("gemini", ["--p", "x"], "H", headless=True) == ["--p", "H"]
    assert fallback_args("gemini", ["--ds"], "H", headless=False) == ["--ds", "-i", "H"]
    assert fallback_args("claude", ["explain"], "H", headless=False) == ["H"]


def test_a_failed_plain_text_run_naming_a_limit_is_rate_limited_but_a_successful_one_is_not() -> None:
    failed = WatchedRun("claude", 1, RunSummary("claude"),
                        last_output="Claude AI usage limit reached|1767225600")
    assert failed.rate_limited and "usage limit" in failed.reason
    worked = WatchedRun("claude", 0, RunSummary("claude"), last_output="Added rate limiting to the API")
    assert not worked.rate_limited
    on_stderr = WatchedRun("codex", 1, RunSummary("codex"), stderr_tail=["ERROR: 429 Too Many Requests"])
    assert on_stderr.rate_limited and on_stderr.reason == "ERROR: 429 Too Many Requests"


def test_auto_switch_is_off_in_fallback_runs_and_when_turned_off() -> None:
    assert enabled({})
    assert not enabled({"ITACHI_FALLBACK_ACTIVE": "1"})
    assert not enabled({"ITACHI_AUTO_SWITCH": "0"})
