"""A later memory restating a fact with another value updates the earlier one (the real local model)."""

from __future__ import annotations

from chalicelib.memory.domain.memory_model import MemoryDraft
from chalicelib.memory.services.memory_service import MemoryService


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
