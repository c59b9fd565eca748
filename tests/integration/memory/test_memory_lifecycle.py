"""Phased eviction on real Postgres: priority order, the four phases, restore, protection,
search and read of archived memories, and an interrupted run resumed."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from chalicelib.memory.domain.memory_lifecycle import HINT
from chalicelib.memory.services.memory_eviction import MemoryEviction
from chalicelib.memory.services.memory_reducers import DeterministicReducer
from tests.integration.memory.lifecycle_support import (
    LONG,
    lifecycle_container,
    phases,
    start_sessions,
    store,
    use,
)


def test_eviction_takes_the_lowest_priority_first_from_difficulty_recency_and_frequency(
        tmp_path: Path, database_url: str) -> None:
    c = lifecycle_container(tmp_path, database_url, memory_budget=3)
    start_sessions(c, "p", 1, prefix="hard", failures=40, successes=10)
    hard = store(c, "p", "A hard-won fix for the flaky deploy.", session_id="hard-p-0")
    used = store(c, "p", "A note read often.")
    use(c, used, 10)
    plain = [store(c, "p", f"Plain old note number {i}.") for i in range(3)]
    start_sessions(c, "p", 4)  # four sessions pass: everything above is four sessions old
    recent = store(c, "p", "A note from the latest session.")
    with c.lifecycle_units() as uow:
        facts = {f.memory_id: f for f in uow.lifecycle.usage_facts("p", "probe")}
    assert (facts[hard].difficulty or 0) > 0.5
    assert facts[hard].sessions_since_use == 4 and facts[recent].sessions_since_use == 0
    report = c.memory_eviction.run("week-1")
    assert report.advanced == 3 and report.finished
    with c.memory_units() as uow:
        got = {m: uow.memories.get(m) for m in [hard, used, recent, *plain]}
    assert {m for m, memory in got.items() if memory and memory.phase == HINT} == set(plain)
    c.close()


def test_a_memory_walks_all_four_phases_across_sessions_and_restore_brings_it_back_whole(
        tmp_path: Path, database_url: str) -> None:
    c = lifecycle_container(tmp_path, database_url, memory_budget=1)
    kept = store(c, "p", "Deploys go through the staging stack first.")
    old = store(c, "p", LONG)
    use(c, kept, 5)
    seen = []
    for week in range(1, 5):
        start_sessions(c, "p", 2, prefix=f"w{week}")
        use(c, kept, 5 + week)
        c.memory_eviction.run(f"week-{week}")
        memory = c.memory.get(old, record_access=False)
        seen.append((memory.phase, len(memory.content)))
    assert [p for p, _ in seen] == [1, 2, 3, 3]
    assert LONG.startswith(c.memory.get(old, record_access=False).content.split(" [")[0])
    assert seen[0][1] < len(LONG) and seen[1][1] <= seen[0][1]
    assert "2026-03-14" in c.memory.get(old, record_access=False).content
    assert c.memory.get(kept, record_access=False).phase == 0
    hits = c.memory.search("Redis memcached cache outage", "p", mode="text", limit=10).hits
    assert old not in {h.id for h in hits}
    restored, changed = c.memory_lifecycle.restore(old)
    assert changed and restored.phase == 0 and restored.content == LONG
    assert old in {h.id for h in c.memory.search("Redis memcached cache outage", "p", mode="text").hits}
    assert c.memory_lifecycle.restore(old)[1] is False
    c.close()


def test_rules_instructions_confident_lessons_and_kept_memories_never_shrink(
        tmp_path: Path, database_url: str) -> None:
    c = lifecycle_container(tmp_path, database_url, memory_budget=1)
    protected = [
        store(c, "p", LONG, category="project_rule"),
        store(c, "p", LONG + " (instruction)", category="instruction"),
        store(c, "p", LONG + " (lesson)", category="task_lesson", confidence=0.9),
        store(c, "p", LONG + " (kept)", metadata={"tags": ["keep"]}),
    ]
    unsure = store(c, "p", LONG + " (unsure lesson)", category="task_lesson", confidence=0.3)
    for week in range(6):
        start_sessions(c, "p", 3, prefix=f"w{week}")
        c.memory_eviction.run(f"week-{week}")
    for memory_id in protected:
        memory = c.memory.get(memory_id, record_access=False)
        assert memory.phase == 0 and memory.content.startswith(LONG)
    assert c.memory.get(unsure, record_access=False).phase == 3
    c.close()


class _BrokenReducer(DeterministicReducer):
    """Fails on its `fail_on`-th call: the process died in the middle of a run."""

    def __init__(self, fail_on: int) -> None:
        self.calls, self.fail_on = 0, fail_on

    def reduce(self, texts: Sequence[str], to_phase: int) -> list[str]:
        self.calls += 1
        if self.calls == self.fail_on:
            raise RuntimeError("killed halfway")
        return super().reduce(texts, to_phase)


def test_an_interrupted_run_rerun_ends_where_an_uninterrupted_one_does(
        tmp_path: Path, database_url: str) -> None:
    c = lifecycle_container(tmp_path, database_url, memory_budget=5)
    for project in ("whole", "broken"):
        for i in range(20):
            memory_id = store(c, project, f"Note {i} about module_{i} and its setting {i * 7}.")
            use(c, memory_id, i % 4)
    start_sessions(c, "whole", 2)
    start_sessions(c, "broken", 2)
    units = c.lifecycle_units

    def eviction(reducer: DeterministicReducer) -> MemoryEviction:
        return MemoryEviction(units, reducer, budget=5, batch_size=5)

    eviction(DeterministicReducer()).run("w1", project="whole")
    with pytest.raises(RuntimeError):
        eviction(_BrokenReducer(fail_on=2)).run("w1", project="broken")
    halfway = phases(c, "broken")
    assert sum(1 for p in halfway.values() if p == 1) == 5
    report = eviction(DeterministicReducer()).run("w1", project="broken")
    assert report.already_done == 5 and report.advanced == 10
    again = eviction(DeterministicReducer()).run("w1", project="broken")
    assert again.advanced == 0
    whole = phases(c, "whole")
    broken = phases(c, "broken")
    assert whole == broken and sorted(broken.values()) == [0] * 5 + [1] * 15
    with c.db.connection() as conn:
        unarchived = conn.execute(
            "SELECT count(*) AS n FROM memories m WHERE m.phase > 0"
            " AND NOT EXISTS (SELECT 1 FROM memory_archive a WHERE a.memory_id = m.id)").fetchone()
    assert unarchived is not None and unarchived["n"] == 0
    c.close()


def test_a_bounded_run_stops_unfinished_and_the_next_call_of_the_same_run_finishes_it(
        tmp_path: Path, database_url: str) -> None:
    c = lifecycle_container(tmp_path, database_url, memory_budget=2, memory_eviction_batch=3)
    for i in range(12):
        store(c, "p", f"Short note {i} on topic_{i}.")
    first = c.memory_eviction.run("w1", max_steps=4)
    assert not first.finished and first.advanced == 4
    second = c.memory_eviction.run("w1")
    assert second.finished and second.advanced == 6 and second.already_done == 4
    assert sorted(phases(c, "p").values()) == [0, 0] + [1] * 10
    c.close()
