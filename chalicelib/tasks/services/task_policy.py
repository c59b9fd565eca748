"""Timing and retry policy of task orchestration, from ITACHI_TASK_* environment variables."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from chalicelib.tasks.domain.engine_switch import MAX_SWITCHES
from chalicelib.tasks.domain.machine_selection import OFFLINE_AFTER_S


@dataclass(frozen=True)
class TaskPolicy:
    lease_s: float = 90.0  # an agent renews every lease_s / 4; a lease not renewed expires
    offline_after_s: float = OFFLINE_AFTER_S
    heartbeat_s: float = 30.0
    claim_timeout_s: float = 300.0  # a dispatched task nobody claimed goes back to queued
    overdue_grace_s: float = 120.0  # past its time budget plus this, a running task is timed out
    max_switches: int = MAX_SWITCHES
    waiting_batch: int = 50  # queued tasks re-offered per trigger

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> TaskPolicy:
        env = os.environ if env is None else env

        def number(name: str, default: float) -> float:
            raw = env.get(f"ITACHI_TASK_{name}")
            return float(raw) if raw else default

        return cls(
            lease_s=number("LEASE_S", cls.lease_s),
            offline_after_s=number("OFFLINE_AFTER_S", cls.offline_after_s),
            heartbeat_s=number("HEARTBEAT_S", cls.heartbeat_s),
            claim_timeout_s=number("CLAIM_TIMEOUT_S", cls.claim_timeout_s),
            overdue_grace_s=number("OVERDUE_GRACE_S", cls.overdue_grace_s),
            max_switches=int(number("MAX_SWITCHES", cls.max_switches)),
        )
