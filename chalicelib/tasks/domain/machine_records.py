"""What an agent reports in a heartbeat, and the registry's record of a machine."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from chalicelib.tasks.domain.machine_selection import MachineView


@dataclass(frozen=True)
class Heartbeat:
    machine_id: str
    status: str
    agent_instance: str
    active_tasks: int
    max_concurrent: int
    engine_priority: tuple[str, ...]
    projects: tuple[str, ...]
    repos: tuple[str, ...]
    hostname: str | None = None
    agent_version: str | None = None


@dataclass(frozen=True)
class MachineRecord:
    view: MachineView
    agent_instance: str | None
    active_tasks: int
    queue_url: str | None
    hostname: str | None
    last_heartbeat_at: datetime
    registered_at: datetime
    agent_version: str | None = None
