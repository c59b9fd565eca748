"""The subagent lifecycle worker (every 30 s locally, every minute on EventBridge).

For each active run: create its task if a crash left it without one; stop it (cancel its task)
when it runs past its time budget plus a grace the agent should have enforced; and once its
task has ended, finish the run: its status, summary and cost, the lessons of its profile, a
follow-up run for messages it never got, and a report to whoever spawned it (the parent run's
inbox, the Telegram chat). Finishing is a conditional update, so the worker and the outcome
hook can both try it and only one reports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from chalicelib.agents.domain.records import ACTIVE, AgentRun
from chalicelib.agents.services.lessons import ProfileLessons
from chalicelib.agents.services.messaging import AgentMessaging
from chalicelib.agents.services.ports import AgentsUnits, AgentTasks, RunReporter
from chalicelib.agents.services.runs import SubagentRuns
from chalicelib.kernel.logging import get_logger
from chalicelib.tasks.domain.task_model import Task
from chalicelib.tasks.domain.task_states import TaskStatus

TERMINAL = {"completed", "failed", "cancelled", "timed_out"}
ORPHAN_AFTER = timedelta(seconds=10)
SWEEP_LIMIT = 200


@dataclass
class SweepReport:
    finished: list[str] = field(default_factory=list)
    stopped: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)


class SubagentLifecycle:
    def __init__(self, units: AgentsUnits, tasks: AgentTasks, runs: SubagentRuns, messaging: AgentMessaging,
                 lessons: ProfileLessons, reporter: RunReporter, *, grace_s: float = 60.0,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._units, self._tasks, self._runs = units, tasks, runs
        self._messaging, self._lessons, self._reporter = messaging, lessons, reporter
        self._grace = timedelta(seconds=grace_s)
        self._clock = clock

    def sweep(self) -> SweepReport:
        report, now = SweepReport(), self._clock()
        for run in self._runs.search(status=ACTIVE, limit=SWEEP_LIMIT):
            try:
                self._check(run, now, report)
            except Exception:  # one broken run must not stop the others'
                get_logger().exception("subagent lifecycle check failed", extra={"run_id": run.id})
        return report

    def _check(self, run: AgentRun, now: datetime, report: SweepReport) -> None:
        if run.task_id is None:
            if run.created_at is None or now - run.created_at > ORPHAN_AFTER:
                self._runs.ensure_task(run)
                report.repaired.append(run.id)
            return
        task = self._tasks.get(run.task_id)
        if task.status.value in TERMINAL:
            if self.finish(run.id, task) is not None:
                report.finished.append(run.id)
        elif self._overdue(run, task, now):
            with self._units() as uow:
                uow.runs.update(run.id, stop_reason=f"time budget of {run.time_budget_s}s exceeded")
                uow.commit()
            self._tasks.cancel(task.id)
            report.stopped.append(run.id)

    def _overdue(self, run: AgentRun, task: Task, now: datetime) -> bool:
        started = task.started_at
        return (task.status == TaskStatus.RUNNING and started is not None and not task.cancel_requested
                and now - started > timedelta(seconds=run.time_budget_s) + self._grace)

    def finish_task(self, task_id: str) -> AgentRun | None:
        """The outcome hook: finish the run of a task that just ended (nothing for other tasks)."""
        with self._units() as uow:
            run = uow.runs.by_task(task_id)
        if run is None or run.status != ACTIVE:
            return None
        task = self._tasks.get(task_id)
        return self.finish(run.id, task) if task.status.value in TERMINAL else None

    def finish(self, run_id: str, task: Task) -> AgentRun | None:
        status = task.status.value
        with self._units() as uow:
            run = uow.runs.get(run_id, for_update=True)
            if run is None or run.status != ACTIVE:
                return None
            over_cost = (run.cost_budget_usd is not None and task.cost_usd is not None
                         and task.cost_usd > run.cost_budget_usd)
            if (status == "cancelled" and run.stop_reason) or over_cost:
                status = "timed_out"
            if over_cost and not run.stop_reason:
                reason = f"cost ${task.cost_usd:.4f} over budget ${run.cost_budget_usd}"
                uow.runs.update(run_id, stop_reason=reason)
            elif status == "timed_out" and not run.stop_reason:  # the agent stopped it at the budget
                uow.runs.update(run_id, stop_reason=f"time budget of {run.time_budget_s}s spent")
            done = uow.runs.finish(run_id, status, task.result_summary or task.error, task.cost_usd)
            uow.commit()
        if done is None:
            return None
        waiting = [m for m in self._messaging.reconcile(done) if m.status == "pending"]
        if waiting:
            self._messaging.follow_up(done, waiting)
        self._lessons.learn_from_run(done, status, task.result_summary or "", task.error)
        self._report(done, task)
        return done

    def _report(self, run: AgentRun, task: Task) -> None:
        why = f" ({run.stop_reason})" if run.stop_reason else ""
        cost = f", ${run.cost_usd:.4f}" if run.cost_usd is not None else ""
        text = (f"{run.profile} run {run.id[:8]} {run.status}{why}{cost}: "
                f"{(run.result_summary or task.error or '')[:1500]}")
        try:
            self._reporter.report(run, text)
            if run.parent_run_id:
                parent = self._runs.get(run.parent_run_id)
                if parent.status == ACTIVE:
                    self._messaging.send(text, run=parent.id, sender=f"run:{run.id[:8]}")
        except Exception:  # the run is finished either way; a lost report is logged
            get_logger().exception("subagent report failed", extra={"run_id": run.id})
        get_logger().info("subagent finished", extra={"run_id": run.id, "status": run.status})
