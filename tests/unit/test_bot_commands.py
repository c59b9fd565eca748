"""Parsing the bot's commands and the session picker's callback data."""

from __future__ import annotations

import pytest

from chalicelib.kernel.errors import InvalidInput
from chalicelib.telegram.domain.bot_commands import (
    COMMANDS,
    help_text,
    parse_engines,
    parse_feedback,
    parse_learn,
    parse_picker_data,
    parse_session,
    parse_task,
    parse_task_ref,
    picker_data,
)


def test_help_lists_every_command_with_its_usage() -> None:
    text = help_text()

    assert all(spec.usage in text for spec in COMMANDS)


def test_task_takes_a_project_then_a_description() -> None:
    request = parse_task(["myproject", "fix", "the", "login", "bug"])

    assert (request.project, request.description) == ("myproject", "fix the login bug")


def test_task_without_a_description_answers_with_the_usage() -> None:
    with pytest.raises(InvalidInput, match=r"/task \[--plan\] <project> <description>"):
        parse_task(["myproject"])


def test_task_with_plan_first_asks_for_a_plan_and_a_flag_is_no_project() -> None:
    request = parse_task(["--plan", "myproject", "add", "rate", "limits"])

    assert (request.project, request.description, request.plan) == ("myproject", "add rate limits", True)
    assert parse_task(["myproject", "--plan", "x"]).plan is False  # only first: a description may say --plan
    with pytest.raises(InvalidInput, match="Usage: /task"):
        parse_task(["--plan", "--fast", "x"])


def test_session_with_plan_first_names_its_machine_next_and_a_flag_is_no_machine() -> None:
    request = parse_session(["--plan", "laptop", "app:", "add", "rate", "limits"])

    assert (request.machine, request.prompt, request.plan) == ("laptop", "app: add rate limits", True)
    assert parse_session(["laptop", "--plan", "x"]).plan is False
    with pytest.raises(InvalidInput, match=r"Usage: /session \[--plan\]"):
        parse_session(["--plan", "--fast", "x"])


def test_session_takes_a_machine_then_a_prompt() -> None:
    assert parse_session(["laptop", "show", "git", "status"]).prompt == "show git status"


def test_feedback_needs_a_task_and_good_or_bad() -> None:
    assert parse_feedback(["7f3c9a12", "GOOD"]).good is True
    assert parse_feedback(["7f3c9a12", "GOOD"]).note == ""
    noted = parse_feedback(["7f3c9a12", "bad", "always", "run", "the", "migrations", "first"])
    assert (noted.good, noted.note) == (False, "always run the migrations first")
    with pytest.raises(InvalidInput):
        parse_feedback(["7f3c9a12", "meh"])
    with pytest.raises(InvalidInput):
        parse_feedback(["not-an-id!", "bad"])


def test_task_ref_may_be_optional() -> None:
    assert parse_task_ref([], "cancel", optional=True) is None
    assert parse_task_ref(["7F3C9A12"], "cancel") == "7f3c9a12"


def test_engines_reads_an_order_with_commas_or_spaces_and_rejects_unknown_engines() -> None:
    assert parse_engines([]).machine is None
    assert parse_engines(["laptop"]).order is None
    assert parse_engines(["laptop", "codex,claude"]).order == ("codex", "claude")
    assert parse_engines(["laptop", "gemini", "claude"]).order == ("gemini", "claude")
    with pytest.raises(InvalidInput):
        parse_engines(["laptop", "claude,cursor"])
    with pytest.raises(InvalidInput):
        parse_engines(["laptop", "claude,claude"])


def test_learn_takes_an_optional_project_prefix() -> None:
    assert parse_learn(["always", "run", "ruff"]).project is None
    scoped = parse_learn(["myproject:", "always", "run", "ruff"])
    assert (scoped.project, scoped.rule) == ("myproject", "always run ruff")


def test_picker_data_round_trips_and_fits_telegrams_limit() -> None:
    data = picker_data("a1b2c3d4", "itachic", "cds")

    choice = parse_picker_data(data)

    assert len(data.encode()) <= 64
    assert choice is not None
    assert (choice.engine, choice.resume) == ("codex", True)


def test_foreign_callback_data_is_not_a_picker_choice() -> None:
    assert parse_picker_data("task:run:7f3c9a") is None
    assert parse_picker_data("sp:x:cursor:ds") is None


def test_deploy_names_a_project_or_sets_its_command_verbatim() -> None:
    from chalicelib.telegram.domain.bot_commands import parse_deploy

    assert parse_deploy("/deploy acme/web").command is None
    stored = parse_deploy("/deploy set acme/web @box make deploy ENV=prod && echo 'ok'")
    assert (stored.project, stored.machine) == ("acme/web", "box")
    assert stored.command == "make deploy ENV=prod && echo 'ok'"
    assert parse_deploy("/deploy set acme/web ./deploy.sh").machine is None
    for bad in ("/deploy", "/deploy set acme/web", "/deploy a b", "/deploy set"):
        with pytest.raises(InvalidInput, match="/deploy <project>"):
            parse_deploy(bad)
