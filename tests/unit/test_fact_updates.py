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


@pytest.mark.parametrize(
    ("new", "old"),
    [
        # a time is one value: "01:00" is not the clause "01" and the clause "00"
        ("We moved the cleanup job from 01:00 to 03:30 UTC.", "The cleanup job runs nightly at 01:00 UTC."),
        # an identifier with dashes and digits is a value
        ("The cache was migrated from cache-node-1 to cache-node-4.", "Our cache lives on cache-node-1."),
        # a name opening a clause is still a name
        ("Builds use Gradle; Maven was removed.", "Builds use Maven."),
        # a name opening the earlier sentence, swapped for another with "now"
        ("The release checklist is owned by Omar now.", "Ines owns the release checklist."),
        # every word of the later sentence in the earlier one, a value swapped, "from now on"
        ("Staging deploys: 3 approvals required from now on.", "Staging deploys require 2 senior approvals."),
        # a change said with another verb, about the same thing
        ("We shortened the session timeout to 15 minutes.", "The session timeout is 60 minutes."),
        ("The weekly sync happens on Wednesdays these days.", "The weekly sync happens on Mondays."),
        # the subject named by the same identifier, the value replaced
        ("New v2 cutoff: May 30 instead of April 15.", "API v2 goes read-only on April 15."),
    ],
)
def test_an_update_said_in_other_ways_is_found(new: str, old: str) -> None:
    assert updates(new, old)


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("The deploy checklist is kept by Omar now.", "Ines keeps the release checklist."),
        ("Mira reviews the billing code now.", "Ines keeps the release checklist."),
        ("Batches hold 1,000 rows.", "Batches hold 1,000 rows and retry 3 times."),
        ("The nightly report goes out at 03:30 UTC now.", "The cleanup job runs nightly at 01:00 UTC."),
    ],
)
def test_another_subject_said_with_a_change_word_updates_nothing(new: str, old: str) -> None:
    assert not updates(new, old)


def test_a_name_opening_the_earlier_sentence_counts_only_when_the_later_one_names_it() -> None:
    assert updates("Omar took over the release checklist from Ines.", "Ines owns the release checklist.")
    assert not updates("Deploys now run a smoke test called Canary.", "Deploys run on Fridays.")


def test_a_replacement_both_sentences_say_is_no_change() -> None:
    assert not updates("Fixed the flaky test in test_upload.py by polling instead of sleeping.",
                       "Fixed the flaky test in test_session.py by polling instead of sleeping.")


def test_without_is_no_denial_of_an_earlier_statement() -> None:
    assert not updates("The report importer skips rows without an email address.",
                       "The nightly report email goes out at 02:30 UTC.")
