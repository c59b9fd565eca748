"""What the memory lifecycle needs: its repository, bound to the memory core's unit of work."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any, Protocol

from chalicelib.memory.domain.memory_lifecycle import Step, UsageFacts
from chalicelib.memory.domain.memory_model import Memory, MemoryDraft
from chalicelib.memory.services.ports import MemoryUnitOfWork


class LifecycleRepository(Protocol):
    def live_counts(self, project: str | None, over: int) -> list[tuple[str, int]]:
        """(project, live memories) of the projects (or the one) holding more than `over`."""
        ...

    def run_progress(self, run_key: str, project: str) -> tuple[int, int]:
        """(steps the run took in the project, of which into the archived phase)."""
        ...

    def usage_facts(self, project: str, run_key: str) -> list[UsageFacts]:
        """Facts of the live, unprotected memories of the project the run has not advanced."""
        ...

    def texts(self, memory_ids: Sequence[str]) -> dict[str, tuple[str, int]]: ...

    def apply_steps(self, run_key: str, project: str, steps: Sequence[Step]) -> set[str]:
        """Claim and apply steps (archive before the first reduction); return the ids applied."""
        ...

    def forget_old_steps(self, older_than_days: int) -> int: ...

    def archive_of(self, memory_id: str) -> tuple[str, str] | None: ...

    def restore(self, memory_id: str) -> bool:
        """The archived original back in place (phase full); False if there is no archive."""
        ...

    def set_tags(self, memory_id: str, add: Sequence[str], remove: Sequence[str]) -> bool: ...

    def listing(self, *, project: str | None, phase: int | None, tag: str | None, category: str | None,
                after: tuple[datetime, str] | None, limit: int) -> list[Memory]: ...

    def phase_counts(self, project: str | None) -> dict[int, int]: ...


class IntegrityRepository(Protocol):
    def counts(self, project: str | None, model: str) -> dict[str, int | None]:
        """Rows in each kind of trouble (`memory_integrity.CHECKS`); None: check not applicable."""
        ...

    def stale_vectors(self, project: str | None, model: str, limit: int) -> list[tuple[str, str, str]]: ...

    def supersede_duplicates(self, project: str | None) -> int: ...

    def open_loops(self, project: str | None) -> int: ...


class TransferRepository(Protocol):
    def export_page(self, project: str | None, after: str | None, limit: int) -> list[dict[str, Any]]:
        """Memories by id after `after`, every exported field, `superseded_by` and `archive`."""
        ...

    def upsert(self, record: dict[str, Any]) -> str:
        """"inserted", "updated", "unchanged" or "conflict" (the project's content hash is taken)."""
        ...

    def upsert_many(self, records: Sequence[dict[str, Any]]) -> list[str] | None:
        """Every record's outcome, or None (nothing stored) if one of them conflicts."""
        ...

    def link(self, links: Sequence[tuple[str, str | None]]) -> list[tuple[str, str | None]]: ...

    def unembedded(self, memory_ids: Sequence[str]) -> list[tuple[str, str, str]]: ...


class GraphTransferRepository(Protocol):
    """The graph's rows as export and import carry them (nodes without their vectors)."""

    def export_page(self, project: str | None, after: str | None, limit: int
                    ) -> dict[str, list[dict[str, Any]]]:
        """Nodes by id after `after`, with their outgoing edges and the contradictions they raised."""
        ...

    def upsert(self, table: str, records: Sequence[dict[str, Any]]) -> dict[str, str]:
        """Each id's outcome: "inserted", "updated", "unchanged", "conflict" or "missing" (its nodes)."""
        ...

    def link(self, links: Sequence[tuple[str, str | None]]) -> list[tuple[str, str | None]]: ...
    def unembedded(self, node_ids: Sequence[str]) -> list[tuple[str, str]]: ...
    def set_vectors(self, vectors: Sequence[tuple[str, Sequence[float]]]) -> None: ...


class SnapshotRepository(Protocol):
    """A project's memory copied and restored in place (`memory_snapshots`)."""

    def consistent(self) -> None: ...
    def create(self, project: str, name: str, *, automatic: bool) -> dict[str, int] | None: ...
    def listing(self, project: str) -> list[dict[str, Any]]: ...
    def live_count(self, project: str) -> int: ...
    def clear(self, project: str) -> None: ...
    def restore(self, project: str, name: str) -> dict[str, int] | None: ...
    def dated_outside(self, project: str, name: str, earliest: datetime, latest: datetime) -> str | None: ...
    def load_drafts(self, project: str, drafts: Iterable[MemoryDraft]) -> int: ...
    def active_profile(self, project: str) -> str | None: ...
    def set_active_profile(self, project: str, profile: str | None) -> None: ...


class LifecycleUnitOfWork(MemoryUnitOfWork, Protocol):
    """The repositories bound to the unit's transaction, as attributes."""

    lifecycle: LifecycleRepository
    integrity: IntegrityRepository
    transfer: TransferRepository
    graph_transfer: GraphTransferRepository
    snapshots: SnapshotRepository


LifecycleUnits = Callable[[], LifecycleUnitOfWork]


class Reducer(Protocol):
    """Shortens texts for a phase: HINT keeps the gist and key facts, ABSTRACT one line."""

    def reduce(self, texts: Sequence[str], to_phase: int) -> list[str]: ...


Enqueue = Callable[[dict[str, Any]], object]
