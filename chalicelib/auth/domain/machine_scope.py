"""The machine a request acts on, and the one rule that binds a machine key to its own machine.

A machine key acts on its own machine's work only. What a request acts on is found from the route
and the request, whatever a field is called: a machine the path, the query or the body names
(`machine_id`, `machine`), and the stored machine of the resource the route acts on (a task, an
interactive session, a subagent run, an SSH run: the routes under `RESOURCES`, and the body fields of
`REFERENCES`). Work not on a machine yet is not the key's: a machine key's new task, session or run
goes to its own machine and its lists show its own machine's work (the services ask
`request_principal.own_machine`). Routes whose work is on no machine a request can name (cron jobs,
a message to whichever run of a profile, every machine's subagent runs) are refused to machine keys.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any

from chalicelib.auth.domain.api_keys import KeyKind, Principal


class Owned(StrEnum):
    TASK = "task"
    SESSION = "session"
    AGENT_RUN = "agent run"
    SSH_RUN = "ssh run"


# How the API finds a stored resource's machine: (whether it exists, its machine or None if unassigned).
MachineOf = Callable[[Owned, str], tuple[bool, str | None]]

# A route under one of these paths acts on the resource its path parameter names.
RESOURCES: tuple[tuple[str, str, Owned], ...] = (
    ("/api/tasks/{task_id}", "task_id", Owned.TASK),
    ("/api/sessions/{session_id}", "session_id", Owned.SESSION),
    ("/api/agents/runs/{run_id}", "run_id", Owned.AGENT_RUN),
    ("/api/ssh/runs/{run_id}", "run_id", Owned.SSH_RUN),
)
# Body fields that name a stored resource the request acts on too (a spawned run reports to its parent).
REFERENCES: dict[str, dict[str, Owned]] = {"POST /api/agents/runs": {"parent_run_id": Owned.AGENT_RUN}}
NAMING_FIELDS = ("machine_id", "machine")  # how a path, query or body names a machine
NO_MACHINE_ROUTES = frozenset({"GET /api/agents/runs", "POST /api/agents/cron", "GET /api/agents/cron",
                               "POST /api/agents/profiles/{name}/messages"})


def machine_refusal(principal: Principal, route: str, params: Mapping[str, str], query: Mapping[str, str],
                    body: Any, machine_of: MachineOf | None) -> str | None:
    """Why a machine key may not make this request (None: it may, or the key is no machine's).

    `route` is `METHOD /resource/path`; `machine_of` may be None only where no route looks a
    resource up (then any route that would is refused)."""
    if principal.kind is not KeyKind.MACHINE:
        return None
    own = principal.machine_id
    mine_only = f"the key {principal.name!r} acts for machine {own!r} only"
    if route in NO_MACHINE_ROUTES:
        return f"{mine_only}: {route} acts on work of any machine; use a client or admin key"
    top = body if isinstance(body, dict) else {}
    named = {str(source[f]) for source in (params, query, top) for f in NAMING_FIELDS
             if isinstance(source.get(f), str | int)}
    if named - {own}:
        return mine_only
    path = route.split(" ", 1)[1]
    looked_up = [(kind, params.get(param)) for prefix, param, kind in RESOURCES
                 if path == prefix or path.startswith(prefix + "/")]
    looked_up += [(kind, top.get(field)) for field, kind in REFERENCES.get(route, {}).items()]
    for kind, ref in looked_up:
        if not isinstance(ref, str) or not ref:
            continue
        if machine_of is None:
            return mine_only
        exists, machine = machine_of(kind, ref)
        if exists and machine != own:  # a missing one is the route's 404
            return f"{mine_only}: that {kind} is " + ("another machine's" if machine else "on no machine yet")
    return None
