"""Timing and retry policy of task orchestration (`ITACHI_TASK_*` settings)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib.contracts.engine_switch import MAX_SWITCHES
from chalicelib.tasks.domain.machine_selection import OFFLINE_AFTER_S

if TYPE_CHECKING:
    from chalicelib.kernel.settings import Settings


@dataclass(frozen=True)
class TaskPolicy:
    lease_s: float = 90.0  # an agent renews every lease_s / 4; a lease not renewed expires
    offline_after_s: float = OFFLINE_AFTER_S
    heartbeat_s: float = 30.0
    claim_timeout_s: float = 300.0  # a dispatched task nobody claimed goes back to queued
    overdue_grace_s: float = 120.0  # past its time budget plus this, a running task is timed out
    max_switches: int = MAX_SWITCHES
    waiting_batch: int = 50  # queued tasks re-offered per trigger, per machine and project

    @classmethod
    def from_settings(cls, settings: Settings) -> TaskPolicy:
        s = settings
        return cls(lease_s=s.task_lease_s, offline_after_s=s.task_offline_after_s,
                   heartbeat_s=s.task_heartbeat_s, claim_timeout_s=s.task_claim_timeout_s,
                   overdue_grace_s=s.task_overdue_grace_s,
                   max_switches=s.task_max_switches)
