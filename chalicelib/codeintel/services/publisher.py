"""Store what a worker produced for (project, subject) only when it differs from last time.

The product row remembers the content hash, the memories written and the source mark (e.g. the
newest edit id seen), so a run with nothing new writes nothing. A changed product replaces the
memories of the previous one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace

from chalicelib.codeintel.domain.products import Product
from chalicelib.codeintel.services.ports import CodeIntelUnits, StoreMemories
from chalicelib.memory.domain.memory_model import MemoryDraft


def content_hash(drafts: Sequence[MemoryDraft]) -> str:
    return hashlib.sha256("\n\x1e".join(f"{d.category}:{d.content}" for d in drafts).encode()).hexdigest()


class Publisher:
    def __init__(self, units: CodeIntelUnits, store: StoreMemories) -> None:
        self._units, self._store = units, store

    def due(self, worker: str, max_projects: int) -> list[tuple[str, int]]:
        """(project, newest edit id) of the projects with edits `worker` has not seen yet."""
        with self._units() as uow:
            return uow.intel.projects_with_new_edits(worker, max_projects)

    def unchanged(self, worker: str, project: str, subject: str, fingerprint: str, *, mark: int = 0) -> bool:
        """True when the product's content is unchanged; its source mark then moves on to `mark`."""
        with self._units() as uow:
            previous = uow.intel.product(worker, project, subject)
            if previous is None or previous.content_hash != fingerprint:
                return False
            if previous.mark != mark:
                uow.intel.save_product(worker, project, subject, replace(previous, mark=mark))
                uow.commit()
        return True

    def publish(
        self,
        worker: str,
        project: str,
        subject: str,
        drafts: Sequence[MemoryDraft],
        *,
        mark: int = 0,
        generator: str = "rules",
        fingerprint: str | None = None,
    ) -> bool:
        """Store `drafts` as this product; False (and nothing written but the mark) if unchanged."""
        digest = fingerprint or content_hash(drafts)
        if self.unchanged(worker, project, subject, digest, mark=mark):
            return False
        ids = tuple(r.id for r in self._store(drafts)) if drafts else ()
        with self._units() as uow:
            previous = uow.intel.product(worker, project, subject)
            uow.intel.drop_memories([i for i in (previous.memory_ids if previous else ()) if i not in ids])
            uow.intel.save_product(worker, project, subject, Product(mark, digest, ids, generator))
            uow.commit()
        return True
