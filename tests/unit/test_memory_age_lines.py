"""Every injected memory line says how old it is, and one that nothing confirmed within the horizon
reads "possibly stale": the prompt hook's block, the session briefing, MEMORY.md and recall."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from chalicelib.contracts.prompt_context import (
    STALE_AFTER_DAYS,
    age_label,
    epoch_seconds,
    search_context,
    stale_after_days,
)
from hooks.context_render import session_context_lines, session_start_context

NOW = datetime(2026, 11, 27, 15, 0, tzinfo=UTC)


def _memory(content: str, age: timedelta, confirmed: timedelta | None = None, **extra: str) -> dict[str, str]:
    item = {"id": content, "project": "p", "category": "decision", "content": content,
            "created_at": (NOW - age).isoformat(), **extra}
    if confirmed is not None:
        item["last_reinforced_at"] = (NOW - confirmed).isoformat()
    return item


def test_iso_times_read_without_datetime_agree_with_datetime_over_three_centuries() -> None:
    moment = datetime(1970, 1, 1, tzinfo=UTC)
    while moment.year < 2200:
        assert epoch_seconds(moment.isoformat()) == moment.timestamp() - moment.microsecond / 1e6
        moment += timedelta(days=37, hours=5, minutes=7, seconds=11, microseconds=250)
    assert epoch_seconds("2026-03-14") == datetime(2026, 3, 14, tzinfo=UTC).timestamp()
    assert epoch_seconds("not a time") is None and epoch_seconds(None) is None


def test_ages_read_like_a_person_would_say_them() -> None:
    day = 86400
    assert [age_label(s * day) for s in (0, 0.5, 1.2, 5, 15, 45, 95, 364, 365, 800)] == [
        "today", "today", "yesterday", "5 days ago", "2 weeks ago", "6 weeks ago", "3 months ago",
        "12 months ago", "1 year ago", "2 years ago"]


def test_each_line_of_the_prompt_block_says_how_old_its_memory_is() -> None:
    answer = {"results": [_memory("We moved to Redis.", timedelta(days=95)),
                          _memory("Deploys are on Thursdays.", timedelta(hours=30)),
                          _memory("Use uv.", timedelta(minutes=5))]}
    lines = search_context(answer, "p", now=NOW.timestamp()).splitlines()
    assert lines[2:] == ["- [decision] We moved to Redis. (3 months ago)",
                         "- [decision] Deploys are on Thursdays. (yesterday)",
                         "- [decision] Use uv. (today)"]


def test_a_memory_past_the_horizon_that_nothing_confirmed_since_is_marked_possibly_stale() -> None:
    old = timedelta(days=STALE_AFTER_DAYS + 20)
    answer = {"results": [
        _memory("Staging runs Postgres 15.", old, confirmed=old),
        _memory("Reviews happen on Tuesdays.", old, confirmed=timedelta(days=3)),
        _memory("The CI cache lives in S3.", old, confirmed_at=(NOW - timedelta(days=10)).isoformat()),
        _memory("A person kept this.", old, promoted_at=(NOW - timedelta(days=1)).isoformat()),
    ]}
    lines = search_context(answer, "p", now=NOW.timestamp()).splitlines()[2:]
    assert lines == ["- [decision] Staging runs Postgres 15. (6 months ago, possibly stale)",
                     "- [decision] Reviews happen on Tuesdays. (6 months ago)",
                     "- [decision] The CI cache lives in S3. (6 months ago)",
                     "- [decision] A person kept this. (6 months ago)"]
    longer = search_context(answer, "p", now=NOW.timestamp(), stale_after=365)
    assert "possibly stale" not in longer


def test_the_horizon_is_read_from_itachi_stale_after_days() -> None:
    assert stale_after_days({}) == STALE_AFTER_DAYS == 180
    assert stale_after_days({"ITACHI_STALE_AFTER_DAYS": " 30 "}) == 30
    assert stale_after_days({"ITACHI_STALE_AFTER_DAYS": "soon"}) == STALE_AFTER_DAYS
    assert stale_after_days({"ITACHI_STALE_AFTER_DAYS": "0"}) == STALE_AFTER_DAYS


def test_the_session_briefing_and_memory_md_list_recent_memories_with_their_age() -> None:
    year = timedelta(days=400)
    recent = {"results": [_memory("Switched the queue to SQS.", year, confirmed=year)]}
    assert "- [decision] Switched the queue to SQS. (1 year ago, possibly stale)" in session_context_lines(
        None, recent)
    assert "Switched the queue to SQS. (1 year ago)" in session_start_context("p", None, None, recent,
                                                                             stale_after=500)


def test_a_line_without_a_readable_date_is_left_as_it_was() -> None:
    answer = {"results": [{"id": "1", "category": "fact", "content": "Undated."}]}
    assert search_context(answer, "p").splitlines()[2] == "- [fact] Undated."
