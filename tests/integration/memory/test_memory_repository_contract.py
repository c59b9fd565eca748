"""One contract, two implementations: the in-memory fakes and the Postgres adapters of the memory
core's ports (`MemoryRepository`, `SearchIndex`) must answer the same way."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from chalicelib.kernel.database import Database
from chalicelib.memory.adapters.memory_unit_of_work import memory_units
from chalicelib.memory.domain.memory_model import MemoryDraft, SearchScope, StoredVectors, content_hash
from chalicelib.memory.domain.search_scoring import SearchWeights
from chalicelib.memory.services.ports import DuplicateContent, MemoryUnits
from tests.fakes.memory_fakes import in_memory_units

DIM = 384
WEIGHTS = SearchWeights().normalised()


def axis(*weights: float) -> list[float]:
    """A unit vector with the given leading components (the rest 0)."""
    values = list(weights) + [0.0] * (DIM - len(weights))
    norm = sum(v * v for v in values) ** 0.5
    return [v / norm for v in values]


def draft(content: str, *, project: str = "p", category: str = "fact", vector: list[float] | None = None,
          **fields: object) -> MemoryDraft:
    return MemoryDraft(project=project, category=category, content=content, embedding=vector,
                       embedding_model="m" if vector else None, **fields)  # type: ignore[arg-type]


@pytest.fixture(params=["in_memory", "postgres"])
def units(request: pytest.FixtureRequest) -> Iterator[MemoryUnits]:
    if request.param == "in_memory":
        yield in_memory_units()
        return
    db = Database(request.getfixturevalue("database_url"))
    yield memory_units(db)
    db.close()


def store(units: MemoryUnits, *drafts: MemoryDraft) -> list[str]:
    with units() as uow:
        ids = [uow.memories.insert(d)[0] for d in drafts]
        uow.commit()
    return ids


def test_an_inserted_memory_reads_back_and_the_same_content_reinforces_it(units: MemoryUnits) -> None:
    created = datetime(2025, 1, 2, tzinfo=UTC)
    with units() as uow:
        memory_id, inserted = uow.memories.insert(draft("Use uv.", files=("a.py",), metadata={"k": 1},
                                                        created_at=created, confidence=0.9,
                                                        source_ids=("x",)))
        again = uow.memories.insert(draft("Use uv."))
        elsewhere = uow.memories.insert(draft("Use uv.", project="q"))
        memory = uow.memories.get(memory_id)
        uow.commit()
    assert inserted and again == (memory_id, False) and elsewhere[1] and elsewhere[0] != memory_id
    assert memory is not None
    assert (memory.content, memory.files, memory.metadata, memory.confidence, memory.significance) == (
        "Use uv.", ("a.py",), {"k": 1}, 0.9, 0.5)
    assert (memory.created_at, memory.times_reinforced, memory.source_ids) == (created, 2, ("x",))


def test_nearest_and_similar_rank_live_memories_of_the_scope_by_cosine(units: MemoryUnits) -> None:
    close, far, other, gone = store(units, draft("close", vector=axis(1, 0.1)),
                                    draft("far", vector=axis(1, 1)),
                                    draft("other category", category="rule", vector=axis(1)),
                                    draft("superseded", vector=axis(1)))
    with units() as uow:
        uow.memories.update_fields(gone, superseded_by=close)
        nearest = uow.memories.nearest("p", "fact", axis(1))
        similar = uow.memories.similar("p", None, axis(1), 0.9, 10)
    assert [n.memory.id for n in nearest] == [close, far]
    assert nearest[0].similarity == pytest.approx(0.995, abs=1e-3)
    assert {s.memory.id for s in similar} == {close, other}


def test_reinforce_update_and_delete_report_unknown_ids(units: MemoryUnits) -> None:
    (memory_id,) = store(units, draft("Pin the SDK."))
    missing = "00000000-0000-0000-0000-000000000000"
    with units() as uow:
        assert uow.memories.reinforce(memory_id) and not uow.memories.reinforce(missing)
        assert uow.memories.update_fields(memory_id, metadata={"a": 1}, confidence=0.2)
        assert uow.memories.update_fields(memory_id, metadata={"b": 2})
        assert not uow.memories.update_fields(missing, confidence=0.1)
        memory = uow.memories.get(memory_id)
        assert uow.memories.update_fields(memory_id, metadata={"c": 3}, merge=False)
        replaced = uow.memories.get(memory_id)
        assert uow.memories.delete([memory_id, missing]) == 1
        assert uow.memories.get(memory_id) is None
        uow.commit()
    assert memory is not None and replaced is not None
    assert (memory.times_reinforced, memory.metadata, memory.confidence) == (2, {"a": 1, "b": 2}, 0.2)
    assert replaced.metadata == {"c": 3}


def test_new_wording_that_repeats_another_memory_is_refused_and_the_unit_goes_on(units: MemoryUnits) -> None:
    _, second = store(units, draft("Use uv."), draft("Use pip."))
    with units() as uow:
        with pytest.raises(DuplicateContent):
            uow.memories.update_content(second, content="use UV.", summary=None,
                                        content_hash=content_hash("fact", "use UV."))
        assert uow.memories.update_content(second, content="Use poetry.", summary="tooling",
                                           content_hash=content_hash("fact", "Use poetry."))
        uow.commit()
    with units() as uow:
        memory = uow.memories.get(second)
        assert uow.memories.insert(draft("use poetry."))[0] == second
    assert memory is not None and (memory.content, memory.summary) == ("Use poetry.", "tooling")


def test_recent_and_stats_see_the_scope(units: MemoryUnits) -> None:
    now = datetime.now(UTC)
    day = timedelta(days=1)
    old, new, rule = store(units, draft("old", created_at=now - 2 * day, metadata={"t": 1}),
                           draft("new", created_at=now - day, metadata={"t": 1}, vector=axis(1)),
                           draft("rule", category="project_rule", project="q"))
    with units() as uow:
        assert [m.id for m in uow.memories.recent("p", None, 10)] == [new, old]
        assert [m.id for m in uow.memories.recent(None, "project_rule", 10)] == [rule]
        assert [m.id for m in uow.memories.recent(None, None, 10, {"t": 1})] == [new, old]
        stats = uow.memories.stats("p")
    assert (stats.total, stats.by_category, stats.with_embedding, stats.reinforced) == (2, {"fact": 2}, 1, 0)


def test_indexed_chunks_and_missing_vectors_are_found_and_filled(units: MemoryUnits) -> None:
    chunk, _ = store(units, draft("chunk", metadata={"source_path": "a.md", "file_hash": "h1"}),
                         draft("plain", vector=axis(1)))
    with units() as uow:
        assert uow.memories.chunks_of("p", "a.md") == [(chunk, content_hash("fact", "chunk"), "h1")]
        assert uow.memories.missing_embeddings(10) == [(chunk, "chunk", "")]
        uow.memories.set_embeddings([StoredVectors(chunk, axis(0, 1))], "m2")
        uow.commit()
    with units() as uow:
        assert uow.memories.missing_embeddings(10) == []
        (near,) = uow.memories.nearest("p", "fact", axis(0, 1), limit=1)
    assert near.memory.id == chunk and near.memory.embedding_model == "m2"


def test_accesses_are_counted_and_throttled_ones_at_most_once_in_a_while(units: MemoryUnits) -> None:
    (memory_id,) = store(units, draft("Counted."))
    with units() as uow:
        uow.memories.record_access([memory_id], throttled=False)
        uow.memories.record_access([memory_id], throttled=True)
        uow.memories.record_access([memory_id, "00000000-0000-0000-0000-000000000000"], throttled=False)
        memory = uow.memories.get(memory_id)
        uow.commit()
    assert memory is not None and memory.access_count == 2 and memory.last_accessed_at is not None


def test_search_stays_in_scope_and_ranks_with_scores_in_zero_to_one(units: MemoryUnits) -> None:
    store(units, draft("The nightly backup runs at two.", vector=axis(1, 0.2)),
          draft("The deploy needs a green build.", vector=axis(0, 1)),
          draft("Global: backups are encrypted.", project="_global", vector=axis(1, 0.5)),
          draft("Another project's backup.", project="x", vector=axis(1)))
    with units() as uow:
        both = uow.search.search("nightly backup", axis(1), SearchScope(("p", "_global")), mode="hybrid",
                                 limit=10, weights=WEIGHTS)
        text = uow.search.search("deploy", None, SearchScope(("p",)), mode="text", limit=10, weights=WEIGHTS)
        one = uow.search.search("backup", axis(1), SearchScope(("p", "_global")), mode="vector", limit=1,
                                weights=WEIGHTS)
        assert uow.search.refresh_statistics() >= 0
    assert both[0].content == "The nightly backup runs at two."
    assert {h.project for h in both} <= {"p", "_global"} and "Another project's backup." not in {
        h.content for h in both}
    assert [h.score for h in both] == sorted((h.score for h in both), reverse=True)
    assert all(0.0 <= h.score <= 1.0 for h in both)
    assert [h.content for h in text] == ["The deploy needs a green build."]
    assert len(one) == 1 and one[0].content == "The nightly backup runs at two."
