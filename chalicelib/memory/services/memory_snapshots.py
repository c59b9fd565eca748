"""Snapshots and profiles of one project's memory (`itachi memory snapshot|profile`).

A snapshot is a consistent copy (one REPEATABLE READ transaction) of the project's memories,
archives and access counts (graph nodes and edges join once they exist), restorable in place.
Loading a snapshot or a profile over live memories needs `yes` (the CLI's `--yes`) and first
takes an automatic snapshot (`auto-<UTC time>`), so nothing is ever lost by a load. A profile
is a built-in dataset (`memory_profiles.PROFILES`) loaded into the project; the project then
names it as active until it is unloaded (which clears the project, after a snapshot too).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from chalicelib.kernel.errors import Conflict, InvalidInput, NotFound
from chalicelib.kernel.wire import EARLIEST, LATEST, TIME_RANGE
from chalicelib.memory.domain.memory_model import MemoryDraft
from chalicelib.memory.domain.memory_profiles import PROFILES, generate
from chalicelib.memory.services.lifecycle_ports import LifecycleUnits


class MemorySnapshots:
    def __init__(self, units: LifecycleUnits, *,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._units = units
        self._clock = clock

    def create(self, project: str, name: str, *, automatic: bool = False) -> dict[str, int]:
        with self._units() as uow:
            snaps = uow.snapshots
            snaps.consistent()
            counts = snaps.create(project, name, automatic=automatic)
            if counts is None:
                raise Conflict(f"project {project} already has a snapshot named {name}", field="name")
            uow.commit()
        return counts

    def listing(self, project: str) -> list[dict[str, Any]]:
        with self._units() as uow:
            return uow.snapshots.listing(project)

    def load(self, project: str, name: str, *, yes: bool) -> dict[str, Any]:
        """Replace the project's memory by the snapshot's (an automatic snapshot first); one holding
        a time outside the range every write keeps to is refused."""
        with self._units() as uow:
            part = uow.snapshots.dated_outside(project, name, EARLIEST, LATEST)
        if part is not None:
            raise InvalidInput(f"snapshot {name} is not loaded: its {part} hold a time that is not "
                               f"{TIME_RANGE}", field="name")
        safety = self._guard(project, yes)
        with self._units() as uow:
            counts = uow.snapshots.restore(project, name)
            if counts is None:
                raise NotFound(f"project {project} has no snapshot named {name}", field="name")
            uow.commit()
        return {"loaded": name, "counts": counts, "safety_snapshot": safety}

    def profiles(self) -> dict[str, int]:
        return dict(PROFILES)

    def active(self, project: str) -> dict[str, Any]:
        with self._units() as uow:
            snaps = uow.snapshots
            return {"project": project, "profile": snaps.active_profile(project),
                    "memories": snaps.live_count(project)}

    def load_profile(self, project: str, profile: str, *, yes: bool) -> dict[str, Any]:
        if profile not in PROFILES:
            known = ", ".join(sorted(PROFILES))
            raise InvalidInput(f"unknown profile {profile} (one of {known})", field="name")
        safety = self._guard(project, yes)
        drafts: list[MemoryDraft] = list(generate(profile, project))
        with self._units() as uow:
            snaps = uow.snapshots
            snaps.clear(project)
            loaded = snaps.load_drafts(project, drafts)
            snaps.set_active_profile(project, profile)
            uow.commit()
        return {"profile": profile, "memories": loaded, "safety_snapshot": safety}

    def unload(self, project: str, *, yes: bool) -> dict[str, Any]:
        safety = self._guard(project, yes)
        with self._units() as uow:
            snaps = uow.snapshots
            snaps.clear(project)
            snaps.set_active_profile(project, None)
            uow.commit()
        return {"unloaded": True, "safety_snapshot": safety}

    def _guard(self, project: str, yes: bool) -> str | None:
        """Refuse to replace live memories without `yes`; with it, snapshot them first."""
        with self._units() as uow:
            live = uow.snapshots.live_count(project)
        if not live:
            return None
        if not yes:
            raise Conflict(f"project {project} holds {live} memories: loading over them needs --yes "
                           "(an automatic snapshot is taken first)", field="yes")
        name = "auto-" + self._clock().strftime("%Y%m%dT%H%M%S.%fZ")
        self.create(project, name, automatic=True)
        return name
