"""A subagent run's memory scope, found from the run itself.

The scope comes from the run's task (its engine options, fixed at spawn), never from the
request: the hooks of a run only say which run they belong to. The reads it narrows are
`chalicelib/memory/services/scoped_reads.py`; the rules, `chalicelib/memory/domain/memory_scope.py`.
"""

from __future__ import annotations

import uuid

from chalicelib.agents.services.ports import AgentsUnits, AgentTasks
from chalicelib.kernel.errors import InvalidInput, NotFound
from chalicelib.memory.domain.memory_scope import MemoryScope

FIELD = "X-Itachi-Agent-Run"


class RunMemoryScopes:
    """The scope of a run, found by its id; an unknown run is refused (its reads get nothing)."""

    def __init__(self, units: AgentsUnits, tasks: AgentTasks) -> None:
        self._units, self._tasks = units, tasks

    def for_run(self, raw_id: str) -> MemoryScope:
        try:
            run_id = str(uuid.UUID(raw_id.strip()))
        except ValueError:
            raise InvalidInput("X-Itachi-Agent-Run must be an agent run id", field=FIELD) from None
        with self._units() as uow:
            run = uow.runs.get(run_id)
        if run is None:
            raise InvalidInput("X-Itachi-Agent-Run names no agent run", field=FIELD)
        if run.task_id is None:
            return MemoryScope(("-",), ("-",))  # no task yet: nothing was spawned with a scope to read
        try:
            options = self._tasks.get(run.task_id).engine_options
        except NotFound:
            return MemoryScope(("-",), ("-",))
        return MemoryScope.from_options(options)
