"""/memory stats|check|snapshot: the memory lifecycle's counts, integrity and snapshots as chat text."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chalicelib.memory.services.memory_integrity import MemoryIntegrity
    from chalicelib.memory.services.memory_lifecycle import MemoryLifecycle
    from chalicelib.memory.services.memory_snapshots import MemorySnapshots


class TelegramMemoryAdmin:
    def __init__(self, *, lifecycle: Callable[[], MemoryLifecycle], integrity: Callable[[], MemoryIntegrity],
                 snapshots: Callable[[], MemorySnapshots]) -> None:
        self._lifecycle = lifecycle
        self._integrity = integrity
        self._snapshots = snapshots

    def stats(self, project: str | None) -> str:
        phases = self._lifecycle().phase_counts(project)
        where = project or "all projects"
        return f"Memory of {where}: " + ", ".join(f"{name} {count}" for name, count in phases.items())

    def check(self, project: str | None) -> str:
        report = self._integrity().check(project)
        lines = [f"{name}: {'n/a' if count is None else count}" for name, count in report.counts.items()]
        verdict = "no problems" if not report.problems else f"{report.problems} problem(s); run " \
            "`itachi memory check --fix`"
        return f"Integrity of {project or 'all projects'}: {verdict}\n" + "\n".join(lines)

    def snapshot(self, project: str, name: str) -> str:
        counts = self._snapshots().create(project, name)
        return (f"Snapshot {name} of {project}: {counts.get('memories', 0)} memories, "
                f"{counts.get('memory_archive', 0)} archived originals.")
