"""Choosing the machine for a task: online, with a free slot, that has the repo or project.

A machine is online when it reported a heartbeat within `offline_after_s` and did not say it
is offline or draining. When some registered machine (online or not) has the task's repo or
project, only such machines are candidates, so a task waits for its machine rather than run
where its code is missing. When no machine knows it, any online machine with capacity may
take it (the agent clones a URL or fails clearly on a missing path).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

OFFLINE_AFTER_S = 90.0


@dataclass(frozen=True)
class MachineView:
    id: str
    reported_status: str
    seconds_since_heartbeat: float
    max_concurrent: int
    assigned_tasks: int  # tasks dispatched to or running on it (the server's own count)
    engines: tuple[str, ...] = ()
    projects: tuple[str, ...] = ()
    repos: tuple[str, ...] = ()
    paused: bool = False  # by the server (an approved proposal): online, but takes no new task

    def online(self, offline_after_s: float = OFFLINE_AFTER_S) -> bool:
        return (self.reported_status not in {"offline", "draining"}
                and self.seconds_since_heartbeat <= offline_after_s)

    @property
    def free_slots(self) -> int:
        return max(0, self.max_concurrent - self.assigned_tasks)


@dataclass(frozen=True)
class TaskNeeds:
    project: str
    repo: str | None = None
    engine: str | None = None
    target_machine: str | None = None


def _norm(repo: str) -> str:
    cleaned = repo.strip().rstrip("/")
    return cleaned[:-4] if cleaned.endswith(".git") else cleaned


def has_code(machine: MachineView, needs: TaskNeeds) -> bool:
    if needs.repo and _norm(needs.repo) in {_norm(r) for r in machine.repos}:
        return True
    return needs.project in machine.projects


def online_status(machine: MachineView, offline_after_s: float = OFFLINE_AFTER_S) -> str:
    """The status to show: the reported one while heartbeats arrive, otherwise offline."""
    if not machine.online(offline_after_s):
        return "offline"
    return "paused" if machine.paused else machine.reported_status


def _load(machine: MachineView) -> tuple[float, float, str]:
    """Least loaded first (by share of capacity in use), then the freshest heartbeat, then id."""
    return (machine.assigned_tasks / max(1, machine.max_concurrent), machine.seconds_since_heartbeat,
            machine.id)


def machine_with_code(machines: Sequence[MachineView], project: str,
                      offline_after_s: float = OFFLINE_AFTER_S) -> str | None:
    """The machine to name for a task of `project` before it exists (an offer, a deploy): online,
    not paused, with the project or its repo, least loaded first; None when no such machine is up."""
    needs = TaskNeeds(project, repo=project)
    having = [m for m in machines if m.online(offline_after_s) and not m.paused and has_code(m, needs)]
    return min(having, key=_load).id if having else None


def choose_machine(machines: Sequence[MachineView], needs: TaskNeeds,
                   offline_after_s: float = OFFLINE_AFTER_S) -> str | None:
    """Return the id of the machine to run the task on, or None if it must wait."""
    pool = list(machines)
    if needs.target_machine:
        pool = [m for m in pool if m.id == needs.target_machine]
    elif any(has_code(m, needs) for m in pool):
        pool = [m for m in pool if has_code(m, needs)]
    if needs.engine:
        pool = [m for m in pool if not m.engines or needs.engine in m.engines]
    ready = [m for m in pool if m.online(offline_after_s) and m.free_slots > 0 and not m.paused]
    if not ready:
        return None
    return min(ready, key=_load).id
