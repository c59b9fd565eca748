"""How one task's run ended, as the result the server records and the outcome learning hears."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from agent.tasks.worktrees import Workspace
from chalicelib.contracts.agent_api import TaskOutcomeRequest, TaskResultRequest
from chalicelib.contracts.agent_vocabulary import Outcome, ResultStatus

NO_RESULT = frozenset({"lost", "shutdown"})  # the server already moved on, or will recover it


@dataclass
class Finish:
    status: str
    summary: str = ""
    exit_code: int | None = None
    cost_usd: float | None = None
    engine: str | None = None
    error: str | None = None
    files: list[str] = field(default_factory=list)
    workspace: Workspace | None = None

    def result(self, machine_id: str, attempt: int) -> TaskResultRequest:
        ws = self.workspace
        return TaskResultRequest(
            machine_id, attempt, status=cast(ResultStatus, self.status), summary=self.summary[:20_000],
            files_changed=self.files, exit_code=self.exit_code, cost_usd=self.cost_usd, engine=self.engine,
            worktree=ws.location if ws else None, branch=ws.branch if ws else None, error=self.error)

    def outcome(self, attempt: int, duration_s: float) -> TaskOutcomeRequest:
        """What the learning loop hears: success, failure or cancelled."""
        outcome = {"completed": "success", "cancelled": "cancelled"}.get(self.status, "failure")
        return TaskOutcomeRequest(attempt, cast(Outcome, outcome), self.engine,
                                  (self.summary or self.error or "")[:5000], self.files, self.cost_usd,
                                  round(duration_s, 3))
