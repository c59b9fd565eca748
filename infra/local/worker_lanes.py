"""Slots for the requests being served: a shared lane, and a reserved one for health and the agent.

Only a request read whole takes a slot. When the shared lane is full, `/health` and the agent's
routes (the `agent` area of the access policy: heartbeat, claim, events, result...) take a slot
of the reserved lane, so a busy server still tells `itachi status` it is up and a machine's agent
keeps its lease; any other request is answered 503 at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from chalice.local import RouteMatcher

from chalicelib.auth.domain.access_policy import Area, rule_for

Release = Callable[[], None]


def health_or_agent_route(app: Any) -> Callable[[str, str], bool]:
    """Whether a request (method, path) is the health check or one of the agent's routes."""
    matcher = RouteMatcher(list(app.routes))

    def matches(method: str, path: str) -> bool:
        try:
            route = matcher.match_route(path).route
        except ValueError:  # no such route
            return False
        return route == "/health" or rule_for(method, route).area is Area.AGENT

    return matches


class WorkerLanes:
    """At most `shared` requests served at once, and `reserved` more of those `priority` picks."""

    def __init__(self, *, shared: int, reserved: int, priority: Callable[[str, str], bool]) -> None:
        self._shared = threading.BoundedSemaphore(shared)
        self._reserved = threading.BoundedSemaphore(reserved)
        self._priority = priority

    def enter(self, method: str, path: str) -> Release | None:
        """A slot for this request (call the result to give it back); None when there is none."""
        if self._shared.acquire(blocking=False):
            return self._shared.release
        if self._priority(method, path) and self._reserved.acquire(blocking=False):
            return self._reserved.release
        return None
