"""A later statement restating a fact with another value updates the earlier one, sentence by sentence."""

from __future__ import annotations

import pytest

from chalicelib.memory.domain.fact_updates import search_words, updated_sentences, updates


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("Staging moved from Postgres 15 to 16.", "Staging runs Postgres 15."),
        ("Deploys are now on Thursdays, not Fridays.", "Deploys are on Fridays."),
        ("The API timeout is 45 seconds.", "The API timeout is 30 seconds."),
        ("The web app now builds with Vite.", "The web app builds with Webpack."),
        ("We no longer squash merges.", "We squash merges."),
    ],
)
def test_a_later_statement_with_another_value_updates_the_earlier_one(new: str, old: str) -> None:
    assert updates(new, old)


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("The timeout of the API is 30 seconds", "The API timeout is 30 seconds."),
        ("Run the tests before you push, always.", "Always run the tests before pushing."),
        ("Staging runs Postgres 15.", "Staging moved from Postgres 15 to 16."),
    ],
)
def test_a_rewording_or_a_statement_saying_less_updates_nothing(new: str, old: str) -> None:
    assert not updates(new, old)


def test_two_long_texts_each_with_their_own_names_and_numbers_update_nothing() -> None:
    old = ("Refactored `load_events` in app/events.py: batches of 500, 3 retries, port 8080, "
           "Postgres 15 on staging, Redis TTL 30 minutes, reviewed by Mira.")
    new = ("Refactored `sync_orders` in app/orders.py: batches of 200, 5 retries, port 9090, "
           "Postgres 15 on staging, Redis TTL 45 minutes, reviewed by Omar.")
    assert not updates(new, old)


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("Staging will not move to Postgres 16.", "Staging runs Postgres 15."),
        ("Deploys are not on Thursdays.", "Deploys are on Fridays."),
        ("The queue's visibility timeout is 180 seconds.", "The API timeout is 30 seconds."),
        ("Can we move staging to Postgres 16?", "Staging runs Postgres 15."),
    ],
)
def test_a_negated_value_a_question_or_another_subject_updates_nothing(new: str, old: str) -> None:
    assert not updates(new, old)


def test_a_fact_restated_inside_a_long_memory_updates_the_sentence_it_restates() -> None:
    old = ("We looked at the upload handler today. The function does three things at once, which is "
           "why it is hard to test.\n\n```python\ndef load(rows, batch=500):\n    return rows\n```\n\n"
           "The nightly export keeps 14 days of archives in the bucket. Let me know if you want the change.")
    new = ("Next, the CSV importer. It parses each row, then writes the batch. By the way, export "
           "archives are now kept for 30 days instead of 14. The function does three things at once.")
    assert updated_sentences(new, old) == ["The nightly export keeps 14 days of archives in the bucket."]


def test_the_same_prose_repeated_in_two_long_memories_updates_nothing() -> None:
    prose = ("The retry loop has no upper bound on its sleep, so a long outage turns into hour-long waits. "
             "Keep the public signature as it is for now; callers in three packages depend on it.")
    assert not updates(f"Sure, let's look at the rate limiter. {prose}", f"Next: the CSV importer. {prose}")


def test_the_words_searched_for_come_from_sentences_that_state_a_value_changes_first() -> None:
    words = search_words("Let's refactor this. Logs stay in the bucket for 30 days. "
                         "Log retention dropped from 30 to 7 days to save cost.")
    assert words[0] == ["log", "retention", "dropped", "days", "save", "cost"]
    assert ["logs", "stay", "bucket", "days"] in words
    assert not any("refactor" in w for w in words)
