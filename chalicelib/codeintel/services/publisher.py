"""Store what a worker produced for (project, subject) only when it differs from last time.

The product row remembers the content hash, the memories written and the source mark (e.g. the
newest edit id seen), so a run with nothing new writes nothing. A changed product replaces the
memories of the previous one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from chalicelib.codeintel.services.ports import CodeIntelUnits, StoreMemories
from chalicelib.memory.domain.memory_model import MemoryDraft


def content_hash(drafts: Sequence[MemoryDraft]) -> str:
    return hashlib.sha256("\n\x1e".join(f"{d.category}:{d.content}" for d in drafts).encode()).hexdigest()


class Publisher:
    def __init__(self, units: CodeIntelUnits, store: StoreMemories) -> None:
        self._units, self._store = units, store

    def unchanged(self, worker: str, project: str, subject: str, fingerprint: str) -> bool:
        with self._units() as uow:
            previous = uow.intel.product(worker, project, subject)
        return previous is not None and previous["content_hash"] == fingerprint

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
        with self._units() as uow:
            previous = uow.intel.product(worker, project, subject)
            if previous is not None and previous["content_hash"] == digest:
                if int(previous["source_mark"]) != mark:
                    uow.intel.save_product(
                        worker,
                        project,
                        subject,
                        mark=mark,
                        content_hash=digest,
                        memory_ids=list(previous["memory_ids"]),
                        generator=previous["generator"],
                    )
                    uow.commit()
                return False
        ids = [r.id for r in self._store(drafts)] if drafts else []
        with self._units() as uow:
            old = [i for i in (previous or {}).get("memory_ids") or [] if i not in ids]
            uow.intel.drop_memories(old)
            uow.intel.save_product(
                worker, project, subject, mark=mark, content_hash=digest, memory_ids=ids, generator=generator
            )
            uow.commit()
        return True
