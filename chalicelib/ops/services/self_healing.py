"""Self-healing: an agent whose check failed three times in a row is restarted as `/restart`
restarts it, and Telegram hears so; restarts are capped per machine and hour, and the cap is
reported once per hour rather than a restart loop running on."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from chalicelib.kernel.errors import DomainError
from chalicelib.kernel.logging import get_logger
from chalicelib.ops.domain.health_rules import CheckState

WINDOW_S = 3600.0


class RestartLog(Protocol):
    def recent(self, machine_id: str, within_s: float) -> tuple[int, bool]:
        """(restarts asked of the machine, whether the cap was already reported) in the window."""
        ...

    def record(self, machine_id: str, *, capped: bool) -> None: ...


RequestRestart = Callable[[str], object]  # machine id -> the request (as /restart makes it)


class SelfHealing:
    def __init__(self, log: RestartLog, request_restart: RequestRestart, max_per_hour: int) -> None:
        self._log, self._request, self._max = log, request_restart, max_per_hour

    def heal(self, due: Sequence[tuple[str, CheckState]]) -> list[str]:
        """Restart each agent due for it unless capped; return the alerts to send."""
        alerts = []
        for machine, state in due:
            restarts, cap_reported = self._log.recent(machine, WINDOW_S)
            if restarts >= self._max:
                if not cap_reported:
                    self._log.record(machine, capped=True)
                    alerts.append(f"⛔ {machine}: its agent still fails ({state.detail}) after {restarts} "
                                  f"restart(s) in the last hour; not restarting it again this hour "
                                  f"(ITACHI_HEALTH_MAX_RESTARTS_PER_HOUR={self._max}). /logs shows why.")
                get_logger().warning("agent restart capped", extra={"machine_id": machine})
                continue
            try:
                self._request(machine)
            except DomainError as exc:  # e.g. no agent runs there any more
                alerts.append(f"⚠️ {machine}: could not restart its agent: {exc.message}")
                continue
            self._log.record(machine, capped=False)
            get_logger().warning("agent restart requested by the monitor", extra={"machine_id": machine})
            alerts.append(f"🔁 Restarting {machine}'s agent: its check failed {state.failures} times in a "
                          f"row ({state.detail}). Restart {restarts + 1} of at most {self._max} this hour.")
        return alerts
