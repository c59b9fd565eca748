"""The memory write path on the in-memory fakes: what is reinforced, what is a new memory."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from chalicelib.kernel.errors import InvalidInput
from chalicelib.memory.domain.memory_model import MemoryDraft
from chalicelib.memory.services.memory_service import NEAR_DUPLICATE_COSINE, MemoryService
from chalicelib.memory.services.memory_store import chunked
from tests.fakes.memory_embedders import FailingEmbedder, FixedEmbedder, word_vector
from tests.fakes.memory_fakes import MemoryTable, in_memory_units

SAME_DIRECTION = word_vector("one shared direction")


@pytest.fixture
def table() -> MemoryTable:
    return MemoryTable()


def service(table: MemoryTable, embedder: FixedEmbedder | FailingEmbedder) -> MemoryService:
    return MemoryService(in_memory_units(table), embedder, write_timeout_s=5.0)


TWIN_TEXTS = ["Always run the tests before pushing.", "Run the tests before you push, always.",
              "Release is planned for 3 May 2026.", "Release is planned for 4 May 2026."]


@pytest.fixture
def twins(table: MemoryTable) -> Iterator[MemoryService]:
    """Every text of TWIN_TEXTS embeds to the same vector: each is a near duplicate of the others."""
    memory = service(table, FixedEmbedder({text: SAME_DIRECTION for text in TWIN_TEXTS}))
    yield memory
    memory.close()


def draft(content: str, category: str = "project_rule", project: str = "p") -> MemoryDraft:
    return MemoryDraft(project=project, category=category, content=content)


def test_the_same_words_in_other_case_and_spacing_reinforce_the_first_memory(
        table: MemoryTable, twins: MemoryService) -> None:
    first = twins.remember(draft("Use uv for installs."))

    again = twins.remember(draft("  use UV for   installs. "))

    assert (again.id, again.deduplicated, again.duplicate_kind) == (first.id, True, "exact")
    assert table.rows[first.id].memory.times_reinforced == 2 and len(table.rows) == 1


def test_a_rewording_that_states_the_same_facts_reinforces_as_a_near_duplicate(
        table: MemoryTable, twins: MemoryService) -> None:
    first = twins.remember(draft(TWIN_TEXTS[0]))

    again = twins.remember(draft(TWIN_TEXTS[1]))

    assert (again.id, again.duplicate_kind) == (first.id, "near")
    assert table.rows[first.id].memory.content == TWIN_TEXTS[0]  # the first wording stays


def test_a_near_twin_with_another_date_is_a_memory_of_its_own(table: MemoryTable,
                                                              twins: MemoryService) -> None:
    first = twins.remember(draft(TWIN_TEXTS[2]))

    second = twins.remember(draft(TWIN_TEXTS[3]))

    assert second.id != first.id and not second.deduplicated and len(table.rows) == 2


def test_near_duplicates_stay_apart_without_near_dedup_or_in_another_category(
        table: MemoryTable, twins: MemoryService) -> None:
    first = twins.remember(draft(TWIN_TEXTS[0]))

    unguarded = twins.remember(draft(TWIN_TEXTS[1]), near_dedup=False)
    elsewhere = twins.remember(draft(TWIN_TEXTS[1], category="fact"))

    assert len({first.id, unguarded.id, elsewhere.id}) == 3


def test_below_the_threshold_nothing_merges(table: MemoryTable) -> None:
    a, b = "Always run the tests before pushing.", "Run the tests before you push, always."
    apart = [1.0] + [0.0] * 383
    tilted = [NEAR_DUPLICATE_COSINE - 0.01, (1 - (NEAR_DUPLICATE_COSINE - 0.01) ** 2) ** 0.5] + [0.0] * 382
    memory = service(table, FixedEmbedder({a: apart, b: tilted}))

    results = [memory.remember(draft(a)), memory.remember(draft(b))]

    assert not any(r.deduplicated for r in results) and len(table.rows) == 2


def test_a_batch_deduplicates_against_itself_and_keeps_input_order(table: MemoryTable,
                                                                   twins: MemoryService) -> None:
    results = twins.remember_many([draft(TWIN_TEXTS[0]), draft("Something else entirely."),
                                   draft(TWIN_TEXTS[1])])

    assert [r.deduplicated for r in results] == [False, False, True]
    assert results[2].id == results[0].id and len(table.rows) == 2


def test_a_bad_item_of_a_batch_is_named_by_its_position(twins: MemoryService) -> None:
    with pytest.raises(InvalidInput) as refused:
        twins.remember_many([draft("Fine."), draft("<private>nothing left</private>")])

    assert refused.value.field == "memories.1.content"


def test_without_an_embedder_memories_are_stored_unembedded_and_embedded_later(table: MemoryTable) -> None:
    down = service(table, FailingEmbedder())
    stored = down.remember(draft("The nightly backup runs at two."))
    assert table.rows[stored.id].embedding is None
    down.close()

    healed = service(table, FixedEmbedder({}))
    assert healed.embed_pending() == 1
    assert table.rows[stored.id].embedding is not None and healed.embed_pending() == 0
    healed.close()


def test_a_draft_that_brings_its_vector_is_not_embedded_again(table: MemoryTable) -> None:
    embedder = FixedEmbedder({})
    memory = service(table, embedder)

    memory.remember(MemoryDraft("p", "task_lesson", "Pin the toolchain.", embedding=SAME_DIRECTION,
                                embedding_model="given"))

    assert embedder.calls == []
    (row,) = table.rows.values()
    assert row.embedding == SAME_DIRECTION and row.memory.embedding_model == "given"
    memory.close()


@pytest.mark.parametrize(("count", "size"), [(500, 100), (120, 100), (30, 100), (5, 2), (1, 100), (0, 100)])
def test_a_batchs_chunks_keep_every_draft_in_order_and_end_with_a_short_one(count: int, size: int) -> None:
    drafts = [draft(f"Fact number {i}.") for i in range(count)]

    chunks = chunked(drafts, size)

    assert [d for c in chunks for d in c] == drafts
    assert all(0 < len(c) <= size for c in chunks)
    assert not chunks or len(chunks[-1]) <= max(1, size // 4)
