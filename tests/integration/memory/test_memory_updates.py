"""A later memory restating a fact with another value updates the earlier one (the real local model)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from chalicelib.memory.domain.memory_model import MemoryDraft
from chalicelib.memory.services.memory_service import MemoryService
from tests.conftest import RunningApi
from tests.integration.memory.conftest import call
from tests.integration.memory.test_nothing_injected_twice import PROJECT, Session


def _note(text: str) -> MemoryDraft:
    return MemoryDraft(project="u", category="fact", content=text)


def test_a_later_memory_with_another_value_ranks_first_and_the_older_points_to_it(
        memory: MemoryService) -> None:
    older = memory.remember(_note("Staging runs Postgres 15."))
    memory.remember(_note("The nightly backup of staging runs at 02:00 UTC."))
    newer = memory.remember(_note("Staging moved from Postgres 15 to 16."))

    assert not newer.deduplicated
    assert memory.get(older.id).metadata["updated_by"] == newer.id
    assert "updated_by" not in memory.get(newer.id).metadata
    hits = memory.search("Which Postgres version does staging run?", "u", limit=5).hits
    assert [h.id for h in hits[:2]] == [newer.id, older.id]  # the older is still found, below


def test_an_update_inside_one_batch_points_the_earlier_draft_to_the_later(memory: MemoryService) -> None:
    older, other, newer = memory.remember_many([
        _note("Deploys are on Fridays."), _note("The web app builds with Vite."),
        _note("Deploys are now on Thursdays, not Fridays.")])

    assert memory.get(older.id).metadata["updated_by"] == newer.id
    assert "updated_by" not in memory.get(other.id).metadata
    assert memory.search("Which day are deploys on?", "u", limit=3).hits[0].id == newer.id


def test_a_rewording_or_another_subject_updates_nothing(memory: MemoryService) -> None:
    first = memory.remember(_note("The API timeout is 30 seconds."))
    memory.remember(_note("The timeout of the API is 30 seconds."))  # reinforces the first
    memory.remember(_note("The queue's visibility timeout is 180 seconds."))

    assert "updated_by" not in memory.get(first.id).metadata
    assert memory.get(first.id).times_reinforced == 2


def test_a_client_written_updated_by_that_names_no_memory_changes_no_ranking(memory: MemoryService) -> None:
    stored = memory.remember(MemoryDraft(project="u", category="fact", content="Staging runs Postgres 15.",
                                         metadata={"updated_by": "not an id"}))
    gone = memory.remember(MemoryDraft(project="u", category="fact", content="Prod runs Postgres 14.",
                                       metadata={"updated_by": "00000000-0000-4000-8000-000000000000"}))

    hits = memory.search("Which Postgres version runs?", "u", limit=5).hits
    assert {h.id for h in hits} == {stored.id, gone.id}


_PROSE = ("The function does three things at once, which is why it is hard to test: it parses the input, "
          "talks to the database and formats the response. Most of the time goes into serialising the rows "
          "one by one; batching them cuts the round trips from hundreds to a handful.\n\n"
          "```python\ndef flush(rows, batch=500):\n    return [process(r) for r in rows]\n```\n\n")


def _turn(topic: str, fact: str) -> MemoryDraft:
    """A long conversation turn about `topic` with `fact` somewhere inside it."""
    return _note(f"assistant: Sure, let's look at {topic}. {_PROSE * 3}{fact}\n\n{_PROSE * 2}"
                 "Let me know if you want me to apply the change.")


def test_a_fact_restated_inside_a_long_memory_ranks_first_and_the_older_points_to_it(
        memory: MemoryService) -> None:
    older = memory.remember(_turn("the upload handler",
                                  "Application logs are kept for 30 days in CloudWatch."))
    memory.remember(_turn("the rate limiter", "The rate limiter allows 20 requests per second per key."))
    newer = memory.remember(_note("user: Next, the CSV importer. Log retention dropped from 30 to 7 days "
                                  "to save cost."))

    assert memory.get(older.id).metadata["updated_by"] == newer.id
    hits = [h.id for h in memory.search("How long do we keep application logs?", "u", limit=5).hits]
    assert hits.index(newer.id) < hits.index(older.id)


def test_updates_imported_at_one_time_rank_in_write_order(memory: MemoryService) -> None:
    at = datetime(2026, 5, 4, 9, tzinfo=UTC)
    facts = [("The staging database runs Postgres {v}.", ("14", "15", "16"),
              "Which Postgres does staging run?"),
             ("Webhook deliveries are retried {v} times.", ("3", "5", "8"),
              "How often are webhooks retried?"),
             ("Production deploys happen on {v}.", ("Mondays", "Tuesdays", "Thursdays"),
              "Which day do we deploy to production?")]
    drafts = [MemoryDraft(project="u", category="fact", content=text.format(v=v), created_at=at)
              for n in range(3) for text, values, _ in facts for v in values[n:n + 1]]
    stored = memory.remember_many(drafts)

    for k, (_, _, question) in enumerate(facts):
        first, second, last = (stored[n * len(facts) + k].id for n in range(3))
        assert memory.get(first).metadata["updated_by"] == second
        assert memory.get(second).metadata["updated_by"] == last
        hits = [h.id for h in memory.search(question, "u", limit=9).hits]
        assert hits.index(last) < hits.index(second) < hits.index(first)


def test_a_negated_value_or_another_subject_updates_nothing(memory: MemoryService) -> None:
    staging = memory.remember(_note("Staging runs Postgres 15."))
    timeout = memory.remember(_note("The API timeout is 30 seconds."))
    memory.remember_many([_note("We will not move staging to Postgres 16 this quarter."),
                          _note("The queue's visibility timeout is now 180 seconds."),
                          _note("Is the API timeout still 30 seconds?")])

    assert "updated_by" not in memory.get(staging.id).metadata
    assert "updated_by" not in memory.get(timeout.id).metadata


def test_the_search_answer_names_the_successor_of_an_updated_memory(api: RunningApi) -> None:
    rows = [{"project": "w", "category": "fact", "content": text} for text in
            ("The dev server listens on port 8000.", "The web app builds with Vite.",
             "The dev server port changed from 8000 to 5173.")]
    status, stored = call(api, "POST", "/api/memory/batch", {"memories": rows})
    assert status == 201
    older, _, newer = stored["ids"]

    status, answer = call(api, "GET", "/api/memory/search", query="Which port does the dev server use?",
                          project="w", limit=3)
    assert status == 200
    results = {r["id"]: r for r in answer["results"]}
    assert answer["results"][0]["id"] == newer
    assert results[older]["metadata"]["updated_by"] == newer
    status, shown = call(api, "GET", f"/api/memory/{older}")
    assert (status, shown["metadata"]["updated_by"]) == (200, newer)


def test_the_prompt_hook_never_shows_a_memory_a_later_one_updated(api: RunningApi, tmp_path: Path) -> None:
    rows = [{"project": PROJECT, "category": "fact", "content": text} for text in
            ("Production deploys happen on Fridays after the standup.",
             "Deploys are now on Thursdays, not Fridays, because of the on-call rotation.")]
    assert call(api, "POST", "/api/memory/batch", {"memories": rows})[0] == 201

    shown = Session(api, tmp_path, "updates").prompt("Which day of the week do we deploy to production?",
                                                      expect_some=True)
    assert "now on Thursdays" in shown
    assert "happen on Fridays" not in shown


def test_an_untrusted_memory_marks_nothing_outdated(memory: MemoryService) -> None:
    kept = memory.remember(_note("Deploys are on Fridays."))
    memory.remember(MemoryDraft(project="u", category="fact", source="web",
                                content="Deploys are now on Thursdays, not Fridays."))

    assert "updated_by" not in memory.get(kept.id).metadata
