"""Subagent domain rules: cron expressions, profile validation, and the engine flags a profile becomes."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from agent.engines.definitions import engine_for
from chalicelib.agents.domain.builtin_profiles import BUILTIN_PROFILES
from chalicelib.agents.domain.cron_schedule import parse_cron
from chalicelib.agents.domain.profiles import profile_from_body
from chalicelib.kernel.errors import InvalidInput

TUESDAY = datetime(2026, 11, 24, 1, 55, tzinfo=UTC)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("0 9 * * mon", datetime(2026, 11, 30, 9, 0, tzinfo=UTC)),
        ("*/15 * * * *", datetime(2026, 11, 24, 2, 0, tzinfo=UTC)),
        ("0 0 29 2 *", datetime(2028, 2, 29, 0, 0, tzinfo=UTC)),
        ("30 8 1 * 1-5", datetime(2026, 11, 24, 8, 30, tzinfo=UTC)),  # either day field matches
        ("0 12 * dec sun", datetime(2026, 12, 6, 12, 0, tzinfo=UTC)),
        ("5,10 2 * * 7", datetime(2026, 11, 29, 2, 5, tzinfo=UTC)),  # 7 is Sunday too
    ],
)
def test_a_cron_expression_gives_the_next_matching_minute_after_now(
    expression: str, expected: datetime
) -> None:
    assert parse_cron(expression).next_after(TUESDAY) == expected


@pytest.mark.parametrize(
    "expression", ["* * * *", "61 * * * *", "0 9 * * funday", "5-1 * * * *", "*/0 * * * *"]
)
def test_a_bad_cron_expression_is_refused_naming_the_schedule(expression: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        parse_cron(expression)
    assert refused.value.field == "schedule"


def test_a_profile_is_validated_field_by_field() -> None:
    good = profile_from_body(
        {"name": "doc-writer", "system_prompt": "Write docs.", "allowed_tools": "Read, Write"}
    )
    assert good.allowed_tools == ("Read", "Write") and good.permission_mode == "acceptEdits"
    cases: list[tuple[dict[str, Any], str]] = [
        ({"name": "Doc Writer", "system_prompt": "x"}, "name"),
        ({"name": "a", "system_prompt": ""}, "system_prompt"),
        ({"name": "a", "system_prompt": "x", "engine": "cobol"}, "engine"),
        ({"name": "a", "system_prompt": "x", "time_budget_s": 0}, "time_budget_s"),
        ({"name": "a", "system_prompt": "x", "allowed_tools": ["Bash; rm -rf /"]}, "allowed_tools"),
    ]
    for body, field in cases:
        with pytest.raises(InvalidInput) as refused:
            profile_from_body(body)
        assert refused.value.field == field


def test_a_profile_becomes_each_engines_flags() -> None:
    options = BUILTIN_PROFILES["code-reviewer"].engine_options()
    claude = engine_for("claude", {}).session_argv(options)
    codex = engine_for("codex", {}).task_argv("review", {**options, "model": "o5"})
    gemini = engine_for("gemini", {}).task_argv("review", options)
    assert claude[:3] == ["claude", "-p", "--input-format"]
    assert claude[claude.index("--permission-mode") + 1] == "plan"
    assert claude[claude.index("--append-system-prompt") + 1] == options["system_prompt"]
    assert claude[claude.index("--allowedTools") + 1] == "Read,Grep,Glob,Bash(git diff:*),Bash(git log:*)"
    assert codex[:5] == ["codex", "exec", "--json", "-m", "o5"] and "--sandbox" in codex
    assert codex[-1].startswith(options["system_prompt"]) and codex[-1].endswith("review")
    assert gemini[gemini.index("--approval-mode") + 1] == "default"
    assert engine_for("claude", {}).task_argv("x")[-2:] == [
        "--permission-mode",
        "acceptEdits",
    ]  # tasks unchanged
