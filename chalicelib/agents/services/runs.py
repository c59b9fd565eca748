"""Subagent runs: spawn one (a run row, then its task), find, list, cancel.

A run is executed as a task (dispatch, machine agent, worktree, engine, lease, Telegram topic),
created with the profile's engine options and budgets. The run row is written first and the
task after it under the idempotency key `agent-run:<run id>`, so a spawn retried after a
crash, or repaired by the lifecycle worker, never makes two tasks.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from chalicelib.agents.domain.profiles import Profile
from chalicelib.agents.domain.records import AgentRun, NewRun
from chalicelib.agents.services.ports import AgentsUnits, AgentTasks
from chalicelib.agents.services.profiles import AgentProfiles
from chalicelib.kernel.errors import InvalidInput
from chalicelib.kernel.logging import get_logger
from chalicelib.kernel.short_ids import ShortIdLookup
from chalicelib.tasks.domain.task_model import NewTask, check_repo

MAX_PROMPT = 20_000


@dataclass(frozen=True)
class SpawnRequest:
    profile: str
    prompt: str
    project: str = "agents"
    repo: str | None = None
    machine: str | None = None
    origin: str = "user"
    parent_run_id: str | None = None
    time_budget_s: int | None = None
    cost_budget_usd: float | None = None
    telegram_chat_id: int | None = None
    telegram_topic_id: int | None = None
    idempotency_key: str | None = None


class SubagentRuns:
    def __init__(self, units: AgentsUnits, tasks: AgentTasks, profiles: AgentProfiles) -> None:
        self._units, self._tasks, self._profiles = units, tasks, profiles
        self._lookup: ShortIdLookup[AgentRun] = ShortIdLookup(units, lambda uow: uow.runs, "agent run")

    def spawn(self, request: SpawnRequest) -> AgentRun:
        prompt = request.prompt.strip()
        if not prompt or len(prompt) > MAX_PROMPT:
            raise InvalidInput(f"the task must be 1 to {MAX_PROMPT} characters", field="prompt")
        check_repo(request.repo)
        profile = self._profiles.get(request.profile)
        self._tasks.check_machine(request.machine or profile.default_machine)  # before a run exists
        new = NewRun(profile.name, request.project, prompt, request.origin, request.parent_run_id,
                     request.repo, request.machine or profile.default_machine, request.telegram_chat_id,
                     request.telegram_topic_id, request.time_budget_s or profile.time_budget_s,
                     profile.cost_budget_usd if request.cost_budget_usd is None else request.cost_budget_usd,
                     request.idempotency_key)
        with self._units() as uow:
            run, _ = uow.runs.insert(str(uuid.uuid4()), new)
            uow.commit()
        return self.ensure_task(run)

    def ensure_task(self, run: AgentRun) -> AgentRun:
        """Create the run's task if it has none yet (idempotent: the task's key is the run's)."""
        if run.task_id is not None:
            return run
        profile = self._profiles.get(run.profile)
        task = self._tasks.create(NewTask(
            run.project, run.prompt, repo=run.repo, engine=profile.engine, target_machine=run.target_machine,
            time_budget_s=run.time_budget_s, cost_budget_usd=run.cost_budget_usd, max_attempts=1,
            telegram_chat_id=run.telegram_chat_id, telegram_topic_id=run.telegram_topic_id,
            idempotency_key=run.task_key, engine_options={**profile.engine_options(), "run_id": run.id}))
        with self._units() as uow:
            uow.runs.set_task(run.id, task.id)
            uow.commit()
        get_logger().info("subagent spawned", extra={"run_id": run.id, "task_id": task.id,
                                                     "profile": run.profile})
        return AgentRun(**{**run.__dict__, "task_id": task.id})

    def profile(self, name: str) -> Profile:
        return self._profiles.get(name)

    def resolve(self, ref: str) -> str:
        """Accept a full run id or a unique prefix of at least six characters."""
        return self._lookup.resolve(ref)

    def get(self, ref: str) -> AgentRun:
        return self._lookup.get(ref)

    def search(self, *, status: str | None = None, profile: str | None = None,
               limit: int = 50) -> list[AgentRun]:
        with self._units() as uow:
            return uow.runs.search(status=status, profile=profile, limit=limit)

    def cancel(self, ref: str) -> AgentRun:
        """Cancel as for tasks: at once if not started, else its agent stops the engine."""
        run = self.get(ref)
        if run.task_id is not None and run.status == "active":
            self._tasks.cancel(run.task_id)
        return self.get(run.id)
