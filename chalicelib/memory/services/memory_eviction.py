"""Phased eviction: over its budget, a project's least valuable memories move one phase on.

A run is identified by a key (the ISO week for the weekly schedule, the session id for a
SessionEnd trigger). For each project holding more live memories than the budget, the run
advances the `excess` lowest-priority unprotected memories by one phase (full -> hint ->
abstract -> archived), in batches of `batch_size`, each batch one transaction, stopping when
its time or step budget is spent (`finished` False: run it again). The excess is fixed per run
key (the run's own archived steps count back in) and each step is recorded with the key, so a
rerun of an interrupted run takes the same memories the whole run would have, never one twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from chalicelib.kernel.logging import get_logger
from chalicelib.memory.domain.memory_lifecycle import (
    ABSTRACT,
    ARCHIVED,
    EvictionReport,
    Step,
    UsageFacts,
    eviction_order,
)
from chalicelib.memory.services.lifecycle_ports import LifecycleUnits, Reducer

STEP_RETENTION_DAYS = 90


class MemoryEviction:
    def __init__(self, units: LifecycleUnits, reducer: Reducer, *, budget: int, batch_size: int = 500,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._units = units
        self._reducer = reducer
        self.budget = budget
        self._batch = batch_size
        self._clock = clock

    def over_budget(self, project: str) -> bool:
        with self._units() as uow:
            return bool(uow.lifecycle.live_counts(project, self.budget))

    def run(self, run_key: str, *, project: str | None = None, time_budget_s: float = 600.0,
            max_steps: int | None = None) -> EvictionReport:
        """Advance the lowest-priority memories of every project over budget (or of one)."""
        started = self._clock()
        deadline = started + time_budget_s
        by_phase = [0, 0, 0]
        projects = already = 0
        finished = True
        with self._units() as uow:
            counts = uow.lifecycle.live_counts(project, 0)
        for name, live in counts:
            with self._units() as uow:
                done, archived = uow.lifecycle.run_progress(run_key, name)
                excess = live + archived - self.budget - done
                if excess <= 0:
                    already += done
                    continue
                chosen = eviction_order(uow.lifecycle.usage_facts(name, run_key))[:excess]
            projects += 1
            already += done
            for start in range(0, len(chosen), self._batch):
                room = None if max_steps is None else max_steps - sum(by_phase)
                if self._clock() >= deadline or (room is not None and room <= 0):
                    finished = False
                    break
                batch = chosen[start:start + min(self._batch, room if room is not None else self._batch)]
                for step in self._advance(run_key, name, batch):
                    by_phase[step.from_phase] += 1
            if not finished:
                break
        with self._units() as uow:
            uow.lifecycle.forget_old_steps(STEP_RETENTION_DAYS)
            uow.commit()
        report = EvictionReport(run_key, projects, sum(by_phase), (by_phase[0], by_phase[1], by_phase[2]),
                                already, finished, self._clock() - started)
        get_logger().info("memory eviction run", extra=report.as_json())
        return report

    def _advance(self, run_key: str, project: str, batch: list[UsageFacts]) -> list[Step]:
        """Reduce the texts (outside the transaction), then claim and apply the batch in one."""
        with self._units() as uow:
            texts = uow.lifecycle.texts([f.memory_id for f in batch])
        steps: list[Step] = []
        for to_phase in (1, ABSTRACT):
            group = [(i, c) for i, (c, phase) in texts.items() if phase + 1 == to_phase]
            reduced = self._reducer.reduce([c for _, c in group], to_phase) if group else []
            steps += [Step(i, to_phase - 1, text) for (i, _), text in zip(group, reduced, strict=True)]
        steps += [Step(i, ARCHIVED - 1, None) for i, (_, phase) in texts.items() if phase == ARCHIVED - 1]
        with self._units() as uow:
            applied = uow.lifecycle.apply_steps(run_key, project, steps)
            uow.commit()
        return [s for s in steps if s.memory_id in applied]
