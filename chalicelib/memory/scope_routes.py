"""The routes' side of a subagent's memory scope (a helper of the memory, session and rule routes).

A subagent's engine runs with ITACHI_AGENT_RUN_ID in its environment; its hooks send it as the
`X-Itachi-Agent-Run` header, and the memory reads (search, recent, recall, briefing, rules)
narrow their answer to the run's scope, which `scopes` finds from the run itself.
"""

from __future__ import annotations

from typing import Protocol

from chalice.app import Request

from chalicelib.memory.domain.memory_scope import HEADER, MemoryScope


class RunScopes(Protocol):
    def for_run(self, raw_id: str) -> MemoryScope: ...


def run_scope(request: Request, scopes: RunScopes) -> MemoryScope | None:
    """The scope of the run the request names (None: not a subagent's request, or no limit)."""
    raw = (request.headers.get(HEADER) or "").strip()
    if not raw:
        return None
    scope = scopes.for_run(raw)
    return None if scope.unlimited else scope
