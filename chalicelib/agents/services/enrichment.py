"""The task prompt enricher, extended for subagent runs.

Every task's prompt gets the project's lessons and rules (the learning loop's enricher, wrapped
here). A task that is a subagent run also gets its profile's best lessons (recorded on the run,
so its outcome and the user's verdict can move them) and the messages that arrived before it
started (marked delivered).
"""

from __future__ import annotations

from typing import Protocol

from chalicelib.agents.domain.records import TASK_KEY_PREFIX, AgentRun, run_prompt
from chalicelib.agents.services.lessons import MAX_LESSONS
from chalicelib.agents.services.ports import AgentsUnits, AgentTasks
from chalicelib.kernel.logging import get_logger


class BaseEnricher(Protocol):
    def enrich(self, prompt: str, project: str, task_id: str | None = None) -> str: ...


class AgentPromptEnricher:
    def __init__(self, base: BaseEnricher, units: AgentsUnits, tasks: AgentTasks) -> None:
        self._base, self._units, self._tasks = base, units, tasks

    def enrich(self, prompt: str, project: str, task_id: str | None = None) -> str:
        enriched = self._base.enrich(prompt, project, task_id)
        run = self._run_of(task_id) if task_id else None
        if run is None:
            return enriched
        with self._units() as uow:
            lessons = uow.lessons.top(run.profile, MAX_LESSONS)
            waiting = [m for m in uow.messages.for_run(run.id) if m.status == "pending"]
            if waiting:
                uow.messages.mark(run.id, [m.seq for m in waiting], "delivered")
            uow.runs.update(run.id, lessons_applied=[lesson.id for lesson in lessons])
            uow.commit()
        return run_prompt(enriched, run.profile, lessons, waiting)

    def _run_of(self, task_id: str) -> AgentRun | None:
        with self._units() as uow:
            run = uow.runs.by_task(task_id)
        if run is not None:
            return run
        try:  # claimed before the spawn recorded the task on the run: the task's key names it
            key = self._tasks.get(task_id).idempotency_key or ""
        except Exception:
            get_logger().exception("task not found while enriching", extra={"task_id": task_id})
            return None
        if not key.startswith(TASK_KEY_PREFIX):
            return None
        with self._units() as uow:
            return uow.runs.get(key[len(TASK_KEY_PREFIX):])
