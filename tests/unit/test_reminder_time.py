"""Parsing `/remind <when> <message>`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from chalicelib.kernel.errors import InvalidInput
from chalicelib.telegram.domain.reminder_time import parse_reminder

NOW = datetime(2026, 11, 22, 15, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "after"),
    [
        ("10m check the deploy", timedelta(minutes=10)),
        ("in 2h check the deploy", timedelta(hours=2)),
        ("1h30m check the deploy", timedelta(hours=1, minutes=30)),
        ("in 3 days check the deploy", timedelta(days=3)),
        ("90 minutes check the deploy", timedelta(minutes=90)),
    ],
)
def test_durations_count_from_now(text: str, after: timedelta) -> None:
    reminder = parse_reminder(text, NOW)

    assert reminder.due_at == NOW + after
    assert reminder.message == "check the deploy"


def test_a_clock_time_later_today_is_today() -> None:
    assert parse_reminder("17:30 standup", NOW).due_at == datetime(2026, 11, 22, 17, 30, tzinfo=UTC)


def test_a_clock_time_that_has_passed_is_tomorrow() -> None:
    assert parse_reminder("at 9am standup", NOW).due_at == datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


def test_tomorrow_defaults_to_nine_and_takes_a_time() -> None:
    assert parse_reminder("tomorrow standup", NOW).due_at == datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
    assert parse_reminder("tomorrow at 6pm ship", NOW).due_at == datetime(2026, 11, 23, 18, 0, tzinfo=UTC)


def test_a_date_with_a_time_is_taken_as_utc() -> None:
    reminder = parse_reminder("2026-12-01 14:15 renew the cert", NOW)

    assert reminder.due_at == datetime(2026, 12, 1, 14, 15, tzinfo=UTC)
    assert reminder.message == "renew the cert"


@pytest.mark.parametrize(
    "text",
    ["", "soon do things", "10m", "2025-01-01 in the past", "2026-02-30 bad date", "in 400 days x",
     "25:00 x"],
)
def test_unclear_or_impossible_reminders_are_refused_with_the_usage(text: str) -> None:
    with pytest.raises(InvalidInput):
        parse_reminder(text, NOW)
