"""What every task and session runner of one agent process shares."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent.agent_config import AgentConfig
from agent.engines.definitions import Engine, engine_for
from agent.engines.process_tree import ProcessRegistry
from agent.tasks.worktrees import WorktreeManager
from chalicelib.contracts.api_transport import ApiClient, ApiError
from chalicelib.kernel.queues import SqsQueue

log = logging.getLogger("itachi.agent")


@dataclass
class AgentContext:
    config: AgentConfig
    api: ApiClient
    instance: str
    registry: ProcessRegistry
    worktrees: WorktreeManager
    queue: SqsQueue | None = None
    stopping: threading.Event = field(default_factory=threading.Event)

    @property
    def machine_id(self) -> str:
        return self.config.machine_id

    def engine(self, name: str) -> Engine:
        return engine_for(name, self.config.env)

    def delete_message(self, receipt_handle: str) -> None:
        if self.queue is None:
            return
        try:
            self.queue.delete(receipt_handle)
        except Exception as exc:  # it reappears later and is recognised as stale
            log.warning("could not delete a queue message: %s", exc)


def call_with_retry(call: Callable[[], Any], *, attempts: int = 5, first_wait_s: float = 0.5,
                    stop: threading.Event | None = None) -> Any:
    """Retry an API call on transport errors and 5xx; raise other errors (a 409 means 'not yours')."""
    wait = first_wait_s
    for attempt in range(attempts):
        try:
            return call()
        except ApiError as exc:
            if exc.status not in (0, 500, 502, 503, 504) or attempt == attempts - 1:
                raise
        if stop is not None and stop.wait(wait):
            break
        if stop is None:
            time.sleep(wait)
        wait = min(wait * 2, 8.0)
    raise ApiError(0, "gave up")
