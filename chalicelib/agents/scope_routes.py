"""The routes' side of a subagent's memory scope (a helper of the memory, session and rule routes).

A subagent's engine runs with ITACHI_AGENT_RUN_ID in its environment; its hooks send it as the
`X-Itachi-Agent-Run` header, and the memory reads (search, recent, recall, briefing, rules)
narrow their answer to the run's scope, looked up here from the run itself.
"""

from __future__ import annotations

from chalice.app import Request

from chalicelib.agents.domain.memory_scope import HEADER, MemoryScope
from chalicelib.bootstrap import get_container


def run_scope(request: Request) -> MemoryScope | None:
    """The scope of the run the request names (None: not a subagent's request, or no limit)."""
    raw = (request.headers.get(HEADER) or "").strip()
    if not raw:
        return None
    scope = get_container().run_memory_scopes.for_run(raw)
    return None if scope.unlimited else scope
