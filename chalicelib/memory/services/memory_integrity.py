"""`itachi memory check [--fix]`: count what is wrong in a memory store, repair what is safe.

The fix re-embeds missing and foreign-model vectors in batches within a time budget, a long
memory's windows with them as a write embeds them (`memory_store.embed_stored`; what is not done
is reported as left, run it again), supersedes duplicate texts by their oldest copy
and opens superseded loops at their newest member, all in one transaction each. Archive rows
without a memory and reduced memories without an archive are reported, never touched.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from chalicelib.memory.domain.memory_integrity import UNFIXABLE, IntegrityReport
from chalicelib.memory.services.lifecycle_ports import LifecycleUnits
from chalicelib.memory.services.memory_store import embed_stored
from chalicelib.memory.services.ports import Embedder

EMBED_BATCH = 64


class MemoryIntegrity:
    def __init__(self, units: LifecycleUnits, embedder: Embedder, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._units = units
        self._embedder = embedder
        self._clock = clock

    def check(self, project: str | None = None) -> IntegrityReport:
        with self._units() as uow:
            return IntegrityReport(project, uow.integrity.counts(project, self._embedder.model))

    def fix(self, project: str | None = None, *, time_budget_s: float = 120.0) -> IntegrityReport:
        before = self.check(project)
        report = IntegrityReport(project, before.counts)
        with self._units() as uow:
            report.fixed["duplicate_contents"] = uow.integrity.supersede_duplicates(project)
            report.fixed["superseded_loops"] = uow.integrity.open_loops(project)
            uow.commit()
        report.fixed["vectors"] = self._reembed(project, self._clock() + time_budget_s)
        after = self.check(project)
        for name, count in after.counts.items():
            if count:
                report.left[name] = UNFIXABLE.get(name, f"{count} left: run the fix again")
        report.counts = after.counts
        return report

    def _reembed(self, project: str | None, deadline: float) -> int:
        done, model = 0, self._embedder.model
        while self._clock() < deadline:
            with self._units() as uow:
                stale = uow.integrity.stale_vectors(project, model, EMBED_BATCH)
            if not stale:
                break
            try:
                fresh = embed_stored(self._embedder, stale)
            except Exception:  # the embedder is down: what is left is reported
                break
            with self._units() as uow:
                uow.memories.set_embeddings(fresh, model)
                uow.commit()
            done += len(stale)
        return done
