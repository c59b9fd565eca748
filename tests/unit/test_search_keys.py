"""A memory's search key: what a question names about it that its own words do not."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

from chalicelib.memory.domain.key_facts import FACT_CHARS, FACTS_PER_MEMORY, facts_of
from chalicelib.memory.domain.memory_model import MemoryDraft
from chalicelib.memory.domain.search_keys import MAX_KEY_CHARS, keyed, search_key, with_facts

WRITTEN = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def test_identifiers_are_keyed_by_their_parts() -> None:
    key = search_key("Fixed the pool in memory_search.py and PostgresMemorySearch; see api/memory/search")
    for part in ("memory", "search", "py", "postgres", "api"):
        assert part in key.split()


def test_numbers_are_keyed_both_as_digits_and_as_words_and_a_glued_unit_apart() -> None:
    key = search_key("The run took three hours on 2 workers with 16GB each").split()
    assert "3" in key and "two" in key
    assert "16" in key and "gb" in key


def test_the_day_a_memory_was_written_is_keyed_as_words_and_iso() -> None:
    key = search_key("Caroline: I love painting sunsets.", WRITTEN).split()
    assert key == ["Monday", "8", "May", "2023", "2023-05-08"]


def test_a_day_named_relative_to_the_writing_is_keyed_as_the_day_it_resolves_to() -> None:
    key = search_key("Caroline: I went to the LGBTQ support group yesterday.", WRITTEN)
    assert "Sunday 7" in key and "2023-05-07" in key
    weeks = search_key("We went camping last week.", datetime(2023, 7, 3, tzinfo=UTC)).split()
    assert "June" in weeks and "2023-06-26" not in weeks  # a week names its month, not a day


def test_a_memory_without_identifiers_numbers_or_a_date_has_an_empty_key_and_keys_are_bounded() -> None:
    assert search_key("We prefer small pull requests.") == ""
    long = " ".join(f"module_{i}.py" for i in range(2_000))
    key = search_key(long, WRITTEN)
    assert 0 < len(key) <= MAX_KEY_CHARS
    assert len(set(key.split())) == len(key.split())  # each term once


def _draft(content: str, project: str = "app", minutes: int = 0) -> MemoryDraft:
    return MemoryDraft(project=project, category="conversation", content=content,
                       created_at=WRITTEN + timedelta(minutes=minutes))


def test_a_memory_is_keyed_by_what_was_written_just_before_it_in_its_project_and_half_hour() -> None:
    question = _draft("Caroline: Did you go to the pottery workshop?")
    drafts = keyed([question, _draft("Melanie: Yes! It was amazing.", minutes=1),
                    _draft("Gina: The pottery workshop is full.", project="other", minutes=1),
                    _draft("Melanie: Anyway, how is the dog?", minutes=45)], WRITTEN)

    assert "pottery workshop" in drafts[1].search_context
    assert "pottery" not in drafts[1].search_key  # the context is kept apart from the key's own terms
    assert "Did you go" not in drafts[2].search_context  # another project
    assert "It was amazing" not in drafts[3].search_context  # too long after
    assert drafts[0].search_context == ""  # nothing before the first


def test_a_memory_is_keyed_by_the_one_before_it_in_its_own_session_when_two_sessions_write_at_once() -> None:
    # One batch holding two terminals' memories interleaved (a spool flushed late, an import): each
    # memory's context is its own session's memory before, as its neighbours are at search time.
    def in_session(content: str, session: str | None, minutes: int) -> MemoryDraft:
        return dataclasses.replace(_draft(content, minutes=minutes), session_id=session)

    drafts = keyed([in_session("Decided: the quartz lantern ships in the camping kit", "s1", 0),
                    in_session("Renamed the billing cron to nightly-invoices", "s2", 1),
                    in_session("The packing list is in docs/kit.md", "s1", 2),
                    in_session("Billing retries now back off exponentially", "s2", 3),
                    in_session("A note in no session", None, 4)], WRITTEN)

    assert "quartz lantern" in drafts[2].search_context and "billing" not in drafts[2].search_context
    assert "nightly-invoices" in drafts[3].search_context
    assert drafts[4].search_context == ""  # no session before it in this write


def test_the_models_facts_replace_the_ones_a_pass_before_added_after_the_model_free_key() -> None:
    base = search_key("Caroline: I love painting sunsets.", WRITTEN)
    first, appended = with_facts(base, "", ["Caroline paints", "Likes sunsets"])
    assert first == f"{base} Caroline paints. Likes sunsets" and appended == "Caroline paints. Likes sunsets"
    again, appended = with_facts(first, appended, ["Caroline is a painter"])
    assert again == f"{base} Caroline is a painter" and appended == "Caroline is a painter"


def test_only_whole_facts_that_fit_within_the_cap_are_appended() -> None:
    base = "w" * (MAX_KEY_CHARS - 20)
    key, appended = with_facts(base, "", ["a fact too long to fit in", "short one", "tiny"])
    assert appended == "short one. tiny" and key == f"{base} short one. tiny" and len(key) <= MAX_KEY_CHARS


def test_the_models_answer_is_data_strings_only_cleaned_and_capped_per_memory() -> None:
    answer = {"notes": [{"note": 2, "facts": ["Ran\x07 5 km\n", 7, None, "Ran 5 km", "y" * 400]},
                        {"note": 9, "facts": ["misnumbered"]},
                        {"note": True, "facts": ["a bool is no number"]}, "not an object"]}
    first, second = facts_of(answer, 2)
    assert first == [] and second == ["Ran 5 km", "y" * FACT_CHARS]
    assert len(facts_of({"notes": [{"note": 1, "facts": [f"fact {i}" for i in range(50)]}]}, 1)[0]) \
        == FACTS_PER_MEMORY
