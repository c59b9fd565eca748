"""The lifecycle's everyday use cases: restore an archived original, tag, list by phase and tag.

Listing pages with an opaque cursor (the last row's created_at and id), newest first; every
phase is listed unless one is asked for. Search never sees archived memories (`LIVE`), but
`get` and this listing do, with their phase.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from chalicelib.kernel.errors import Conflict, NotFound
from chalicelib.memory.domain.memory_lifecycle import FULL, PHASES
from chalicelib.memory.domain.memory_model import Memory
from chalicelib.memory.domain.memory_tags import merge_tags, normal_tag
from chalicelib.memory.services.lifecycle_ports import Enqueue, LifecycleUnits


@dataclass(frozen=True)
class MemoryPage:
    memories: list[Memory]
    next_after: tuple[datetime, str] | None  # the cursor of the next page, None on the last


class MemoryLifecycle:
    def __init__(self, units: LifecycleUnits, *, budget: int, enqueue: Enqueue | None = None) -> None:
        self._units = units
        self._budget = budget
        self._enqueue = enqueue

    def restore(self, memory_id: str) -> tuple[Memory, bool]:
        """Bring the archived original back whole (phase full); (memory, restored). A memory in
        full phase is left as it is; one reduced without an archive is a Conflict."""
        with self._units() as uow:
            memory = uow.memories.get(memory_id)
            if memory is None:
                raise NotFound(f"no memory {memory_id}", field="id")
            if memory.phase == FULL:
                return memory, False
            if not uow.lifecycle.restore(memory_id):
                raise Conflict(f"memory {memory_id} is {PHASES[memory.phase]} and has no archived original",
                               field="id")
            uow.memories.record_access([memory_id], throttled=False)  # just used: not evicted again at once
            restored = uow.memories.get(memory_id)
            uow.commit()
        assert restored is not None
        return restored, True

    def tag(self, memory_id: str, add: Sequence[str], remove: Sequence[str]) -> Memory:
        adding = merge_tags(add)
        removing = [t for t in (normal_tag(r) for r in remove) if t]
        with self._units() as uow:
            if not uow.lifecycle.set_tags(memory_id, adding, removing):
                raise NotFound(f"no memory {memory_id}", field="id")
            memory = uow.memories.get(memory_id)
            uow.commit()
        assert memory is not None
        return memory

    def listing(self, *, project: str | None = None, phase: int | None = None, tag: str | None = None,
                category: str | None = None, after: tuple[datetime, str] | None = None,
                limit: int = 50) -> MemoryPage:
        with self._units() as uow:
            rows = uow.lifecycle.listing(project=project, phase=phase, tag=tag, category=category,
                                         after=after, limit=limit + 1)
        page = rows[:limit]
        more = len(rows) > limit
        return MemoryPage(page, (page[-1].created_at, page[-1].id) if more else None)

    def phase_counts(self, project: str | None = None) -> dict[str, int]:
        with self._units() as uow:
            counts = uow.lifecycle.phase_counts(project)
        return {name: counts.get(number, 0) for number, name in enumerate(PHASES)}

    def after_session(self, project: str, session_id: str) -> bool:
        """SessionEnd: queue an eviction run for the project if it is over budget; True if queued."""
        if self._enqueue is None:
            return False
        with self._units() as uow:
            over = bool(uow.lifecycle.live_counts(project, self._budget))
        if over:
            self._enqueue({"kind": "evict_memories", "project": project, "run_key": f"session:{session_id}"})
        return over
