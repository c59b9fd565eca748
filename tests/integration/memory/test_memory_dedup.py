"""Deduplication with the real local model: exact, near, and the date/number/name guard."""

from __future__ import annotations

import pytest

from chalicelib.memory.domain.memory_model import MemoryDraft
from chalicelib.memory.services.memory_service import NEAR_DUPLICATE_COSINE, MemoryService


# The memory core's own dedup: a category outside the instruction store, which reconciles rules itself
# (tests/integration/test_instruction_store.py).
def _fact(text: str, project: str = "d", category: str = "decision") -> MemoryDraft:
    return MemoryDraft(project=project, category=category, content=text)


def test_an_exact_duplicate_is_stored_once_and_reinforced(memory: MemoryService) -> None:
    first = memory.remember(_fact("Always squash commits before merging."))
    again = memory.remember(_fact("  always squash commits   before merging. "))
    assert again.id == first.id and again.deduplicated and again.duplicate_kind == "exact"
    assert memory.get(first.id).times_reinforced == 2
    assert memory.stats("d").total == 1


def test_a_rewording_reinforces_the_existing_memory(memory: MemoryService) -> None:
    first = memory.remember(_fact("Always squash commits before merging."))
    reworded = memory.remember(_fact("Squash commits before merging, always."))
    assert reworded.id == first.id and reworded.duplicate_kind == "near"
    item = memory.get(first.id)
    assert item.times_reinforced == 2 and item.content == "Always squash commits before merging."
    assert memory.stats("d").total == 1


def test_rewordings_inside_one_batch_collapse_too(memory: MemoryService) -> None:
    results = memory.remember_many([_fact("The API timeout is 30 seconds."),
                                    _fact("The timeout of the API is 30 seconds."),
                                    _fact("The API timeout is 30 seconds.")])
    assert len({r.id for r in results}) == 1
    assert [r.deduplicated for r in results] == [False, True, True]
    assert memory.get(results[0].id).times_reinforced == 3


@pytest.mark.parametrize(("first", "second"), [
    ("The API timeout is 30 seconds.", "The API timeout is 60 seconds."),
    ("The release is on Tuesday 3 March.", "The release is on Tuesday 4 March."),
    ("Release date: 2026-05-03.", "Release date: 2026-05-04."),
    ("The memory store runs on Postgres with pgvector and the queue runs on SQS with a dead letter queue.",
     "The memory store runs on MySQL with pgvector and the queue runs on SQS with a dead letter queue."),
    ("Use pnpm, not npm, in the web package.", "Use npm, not pnpm, in the web package."),
])
def test_similar_statements_that_differ_in_a_date_number_or_name_stay_apart(
        memory: MemoryService, first: str, second: str) -> None:
    kept = memory.remember(_fact(first))
    similar = memory.find_similar("d", "decision", second, threshold=0.0, limit=1)
    assert similar[0].memory.id == kept.id
    assert similar[0].similarity >= NEAR_DUPLICATE_COSINE, "the pair must look like a near duplicate"
    other = memory.remember(_fact(second))
    assert other.id != kept.id and not other.deduplicated
    assert memory.stats("d").total == 2


def test_the_same_text_in_another_project_or_category_is_a_separate_memory(memory: MemoryService) -> None:
    ids = {memory.remember(_fact("Run the linter before committing.", project=p, category=c)).id
           for p, c in (("d", "decision"), ("e", "decision"), ("d", "task_lesson"))}
    assert len(ids) == 3


def test_find_similar_reinforce_and_update_serve_the_learning_loop(memory: MemoryService) -> None:
    rule = memory.remember(_fact("Prefer uv over pip for installing packages."))
    similar = memory.find_similar("d", "decision", "Install packages with uv, not pip.", threshold=0.6)
    assert [s.memory.id for s in similar] == [rule.id]
    assert memory.find_similar("d", "decision", "The sky is blue.", threshold=0.6) == []
    assert memory.reinforce(rule.id).times_reinforced == 2
    updated = memory.update_content(rule.id, "Always install Python packages with uv, never pip.")
    assert updated.content.startswith("Always install") and updated.times_reinforced == 2
    tagged = memory.update_metadata(rule.id, {"source": "user", "applications": 3})
    assert tagged.metadata == {"source": "user", "applications": 3}
    assert memory.update_scores(rule.id, confidence=0.95).confidence == 0.95
    tagged_rules = memory.recent("d", category="decision", metadata={"source": "user"})
    assert [m.id for m in tagged_rules] == [rule.id]


@pytest.mark.parametrize("chunk", [1, 2, 3, 100])  # embedded and written chunk by chunk, or whole
def test_a_batch_decides_as_storing_its_drafts_one_by_one_would(memory: MemoryService, chunk: int) -> None:
    memory.store.chunk = chunk
    stored = memory.remember(_fact("The API timeout is 30 seconds."))
    results = memory.remember_many([
        _fact("The timeout of the API is 30 seconds."),  # a rewording of the stored memory
        _fact("The API timeout is 60 seconds."),  # a changed number: a memory of its own
        _fact("The timeout of the API is 60 seconds."),  # a rewording of the draft before
        _fact("The API timeout is 60 seconds."),  # the same text as a draft before
        _fact("The API timeout is 30 seconds.", category="pattern"),  # another category
    ])
    assert [(r.deduplicated, r.duplicate_kind) for r in results] == [
        (True, "near"), (False, None), (True, "near"), (True, "exact"), (False, None)]
    assert results[0].id == stored.id and results[2].id == results[3].id == results[1].id
    assert len({stored.id, results[1].id, results[4].id}) == 3
    assert memory.get(stored.id).times_reinforced == 2
    assert memory.get(results[1].id).times_reinforced == 3
    assert memory.stats("d").total == 3
