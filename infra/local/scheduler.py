"""Local scheduler: runs the schedule table's handlers on their period (EventBridge does it in AWS)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from chalicelib.kernel.logging import log_failure
from chalicelib.kernel.schedule_table import SCHEDULES, ScheduleSpec
from infra.local.lambda_runtime import LocalLambdaContext, load_handler, scheduled_event


def run_schedule_once(spec: ScheduleSpec, region: str = "local") -> object:
    """Invoke one scheduled handler now, exactly as EventBridge would."""
    handler = load_handler(spec.handler)
    return handler(scheduled_event(spec.name, region), LocalLambdaContext(spec.name, timeout_s=900))


class Scheduler:
    """One thread; each schedule first fires one period after start, then every period."""

    def __init__(self, schedules: Sequence[ScheduleSpec] = SCHEDULES, region: str = "local") -> None:
        self._schedules = list(schedules)
        self._region = region
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="scheduler", daemon=True)
        self.last_run: dict[str, float] = {}

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        started = time.monotonic()
        due = {s.name: started + s.every_s for s in self._schedules}
        while not self._stop.is_set():
            now = time.monotonic()
            for spec in self._schedules:
                if now >= due[spec.name]:
                    due[spec.name] = now + spec.every_s
                    self._fire(spec)
            self._stop.wait(1.0)

    def _fire(self, spec: ScheduleSpec) -> None:
        try:
            run_schedule_once(spec, self._region)
            self.last_run[spec.name] = time.time()
        except Exception as exc:  # one failing worker must not stop the others; it is logged
            log_failure("scheduled handler failed", exc, schedule=spec.name)
