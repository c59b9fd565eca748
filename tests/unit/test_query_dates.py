"""The time a search query names, and how near a memory's time is to it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from chalicelib.memory.domain.query_dates import TimeWindow, date_factor, query_window, relative_window

NOW = datetime(2026, 11, 24, 15, 30, tzinfo=UTC)


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


@pytest.mark.parametrize(("query", "start", "end"), [
    ("What did Gina find on 1 February, 2023?", day(2023, 2, 1), day(2023, 2, 2)),
    ("the painting shown on October 13, 2023", day(2023, 10, 13), day(2023, 10, 14)),
    ("which migration ran on 2025-03-07", day(2025, 3, 7), day(2025, 3, 8)),
    ("the outage of 3rd of Sept 2024", day(2024, 9, 3), day(2024, 9, 4)),
    ("what broke in December 2023", day(2023, 12, 1), day(2024, 1, 1)),
    ("decisions made during 2022", day(2022, 1, 1), day(2023, 1, 1)),
    ("the flaky test fixed yesterday", day(2026, 11, 23), day(2026, 11, 24)),
    ("what we decided last week", day(2026, 11, 10), day(2026, 11, 18)),
    ("the rollback 3 days ago", day(2026, 11, 20), day(2026, 11, 23)),
])
def test_a_query_naming_a_date_or_a_time_relative_to_now_is_about_that_window(
        query: str, start: datetime, end: datetime) -> None:
    assert query_window(query, NOW) == TimeWindow(start, end)


def test_an_absolute_date_wins_over_a_relative_one_and_words_that_are_no_date_name_no_window() -> None:
    window = query_window("what did she do last weekend before April 10, 2023?", NOW)
    assert window == TimeWindow(day(2023, 4, 10), day(2023, 4, 11))
    for query in ("how do we deploy the api", "port 2023 is taken", "retry 5 times"):
        assert query_window(query, NOW) is None
    # A day the month does not have: the month is what is left of it.
    assert query_window("the 31 February 2023 bug", NOW) == TimeWindow(day(2023, 2, 1), day(2023, 3, 1))


def test_closeness_is_one_inside_the_window_and_halves_with_each_window_length_outside() -> None:
    month = TimeWindow(day(2023, 5, 1), day(2023, 6, 1))
    assert month.closeness(day(2023, 5, 20)) == 1.0
    assert month.closeness(day(2023, 6, 1) + timedelta(days=31)) == pytest.approx(0.5)
    assert month.closeness(day(2023, 5, 1) - timedelta(days=62)) == pytest.approx(0.25)
    one_day = TimeWindow(day(2023, 5, 1), day(2023, 5, 2))
    assert one_day.closeness(day(2023, 5, 4)) == pytest.approx(0.25)  # a day is the least scale


def test_the_date_factor_leaves_a_query_without_a_window_or_a_zero_weight_untouched() -> None:
    window = TimeWindow(day(2023, 5, 1), day(2023, 5, 2))
    far = day(2020, 1, 1)
    assert date_factor(None, far, 0.5) == 1.0
    assert date_factor(window, far, 0.0) == 1.0
    assert date_factor(window, day(2023, 5, 1), 0.3) == 1.0
    assert date_factor(window, day(2023, 5, 3), 0.3) == pytest.approx(0.7 + 0.3 * 0.5)


@pytest.mark.parametrize("text", [
    "The pyramids at Giza were finished about 4500 years ago.",
    "that fossil formed 66000000 years ago",
    "a backup from 999999999 days ago",
])
def test_a_time_ago_beyond_the_calendar_names_no_window_instead_of_failing(text: str) -> None:
    assert relative_window(text, NOW) is None
    assert query_window(text, NOW) is None
