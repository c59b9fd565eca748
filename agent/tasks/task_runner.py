"""Run one claimed task: worktree, engine(s), progress, lease, budget, cancel, result, outcome.

A watch thread renews the task's lease (the answer also carries cancellation), extends the
SQS message's visibility, enforces the time budget and flushes progress events.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Sequence
from typing import Any

from agent.agent_context import AgentContext, call_with_retry, log
from agent.engines.process_tree import kill_tree
from agent.sessions.attachment_files import save_files, with_files
from agent.ssh.remote_task import remote_repo, run_remote_task
from agent.tasks.cost_guard import CostGuard
from agent.tasks.engine_chain import run_engine_chain
from agent.tasks.event_batcher import EventBatcher
from agent.tasks.task_finish import NO_RESULT, Finish
from agent.tasks.task_inbox import TaskInbox
from agent.tasks.worktrees import Workspace, WorkspaceError
from chalicelib.contracts.agent_api import (
    AttemptRequest,
    Body,
    LeaseState,
    ProgressEvent,
    TaskClaim,
    TaskEventsRequest,
)
from chalicelib.contracts.api_transport import ApiError

WORKSPACE_WAIT_S = 120  # a message with files that comes before the worktree is made waits for it


class TaskRunner:
    def __init__(self, ctx: AgentContext, claim: TaskClaim, receipt_handle: str) -> None:
        self.ctx = ctx
        self.task: dict[str, Any] = claim.task
        self.task_id: str = self.task["id"]
        self.attempt = int(claim.attempt)
        self.prompt = claim.prompt
        self.lease_s = float(claim.lease_s)
        self.max_switches = int(claim.max_switches)
        self.receipt = receipt_handle
        self.stop_reason: str | None = None
        self._stop = threading.Event()
        self._done = threading.Event()
        self._proc: subprocess.Popen[str] | None = None
        self._proc_lock = threading.Lock()
        self.started = time.monotonic()
        self._deadline = self.started + float(self.task["time_budget_s"])
        self._lease_ok = self.started
        self.batcher = EventBatcher(self._post_events)
        self.inbox = TaskInbox(self.event)  # messages that steer the engine or wait for its next turn
        self.engine_name = ""  # the engine running now (run_engine sets it)
        self.workspace: Workspace | None = None  # the task's worktree here, once made
        self._workspace_known = threading.Event()  # made, failed, or the task runs on an SSH target
        self.cost_guard = CostGuard(self, self.task.get("cost_budget_usd"),  # stops it mid-turn
                                    (self.task.get("engine_options") or {}).get("budget"))

    # Control, from other threads.
    def stop(self, reason: str) -> None:
        """Stop the run (cancelled, timed_out, lost or shutdown) and kill the engine's process tree."""
        if self.stop_reason is None:
            self.stop_reason = reason
        self._stop.set()
        with self._proc_lock:
            proc = self._proc
        if proc is not None and proc.poll() is None:
            threading.Thread(target=kill_tree, args=(proc,), daemon=True).start()

    def set_process(self, proc: subprocess.Popen[str] | None) -> subprocess.Popen[str] | None:
        """Make `proc` the engine process a stop kills; the one it replaces comes back."""
        with self._proc_lock:
            previous, self._proc = self._proc, proc
        if proc is not None and self._stop.is_set():
            kill_tree(proc)
        return previous

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def receive(self, seq: int, text: str, mode: str, files: Sequence[str] = ()) -> None:
        """A message for the engine (`task_inbox`); its files are saved in the worktree first."""
        names = tuple(files)
        prepare = (lambda t: self._with_files(seq, t, names)) if names else None
        self.inbox.add(seq, text, mode, prepare=prepare)

    def _with_files(self, seq: int, text: str, names: tuple[str, ...]) -> str:
        """The message as the engine reads it: its files saved under the worktree and named first."""
        self._workspace_known.wait(WORKSPACE_WAIT_S)
        ws = self.workspace
        if ws is None or ws.host is not None:
            self.event("notice", "attached files reach a task whose worktree is on this machine")
            return with_files(text, names, [], self.engine_name)

        def fetch(path: str) -> Any:
            return self.ctx.api.get(path, machine_id=self.ctx.machine_id)

        def notice(line: str) -> None:
            self.event("notice", line)

        saved = save_files(fetch, f"/api/tasks/{self.task_id}/files", seq, names, ws.path, notice)
        return with_files(text, names, saved, self.engine_name)

    # The run.
    def run(self) -> None:
        watch = threading.Thread(target=self._watch, name=f"watch-{self.task_id[:8]}", daemon=True)
        watch.start()
        ids = {"task_id": self.task_id}
        log.info("task %s started (attempt %s)", self.task_id, self.attempt, extra=ids)
        try:
            finish = self._execute()
        except Exception as exc:  # report it as the task's failure rather than leave it running
            log.exception("task %s crashed in the agent", self.task_id, extra=ids)
            finish = Finish("failed", error=f"agent error: {exc}")
        finally:
            self._done.set()
            watch.join(timeout=5)
        for text in self.inbox.undelivered():  # came after the engine's last turn
            self.event("notice", f"📨 not delivered, the task has ended: {text[:200]}")
        log.info("task %s ended: %s", self.task_id, finish.status, extra=ids)
        try:
            self._report(finish)
        finally:
            self.ctx.delete_message(self.receipt)

    def _execute(self) -> Finish:
        remote = remote_repo(self.task.get("repo") or self.ctx.config.repos.get(self.task["project"]))
        if remote is not None:  # `@<target>:<path>`: the worktree and the engine live on an SSH target
            self._workspace_known.set()
            return run_remote_task(self, remote)
        try:
            root = self.ctx.worktrees.repo_root(self.task.get("repo"), self.task["project"])
            ws = self.ctx.worktrees.create(root, self.task_id)
        except WorkspaceError as exc:
            return Finish("failed", error=str(exc))
        finally:
            self._workspace_known.set()
        self.workspace = ws
        self.event("workspace", f"worktree {ws.path} on branch {ws.branch}",
                   {"worktree": str(ws.path), "branch": ws.branch, "base": ws.base})
        run, code, engine, cost = run_engine_chain(self, ws)
        cost = self.cost_guard.final_cost(cost)  # stopped mid-turn, or engines that report only tokens
        status = self.stop_reason or ("completed" if run.succeeded(code) else "failed")
        message = (f"itachi: {self.task['description'].splitlines()[0][:60]}\n\n"
                   f"Task {self.task_id} (attempt {self.attempt}, {engine})")
        commit = self.ctx.config.commit_changes and status not in NO_RESULT
        files = self.ctx.worktrees.finish(ws, commit=commit, message=message)
        error = run.failure(engine, code) if status == "failed" else None
        return Finish(status, run.summary, code, cost, engine, error, files, ws)

    def _report(self, finish: Finish) -> None:
        self.batcher.flush()
        if finish.status in NO_RESULT:
            log.warning("task %s stopped (%s): no result reported", self.task_id, finish.status,
                        extra={"task_id": self.task_id})
            return
        ws = finish.workspace
        try:
            call_with_retry(lambda: self.post("result", finish.result(self.ctx.machine_id, self.attempt)))
        except ApiError as exc:
            log.warning("task %s result not accepted: %s", self.task_id, exc, extra={"task_id": self.task_id})
            return
        learned = finish.outcome(self.attempt, time.monotonic() - self.started)
        try:
            call_with_retry(lambda: self.post("outcome", learned))
        except ApiError as exc:
            log.warning("task %s outcome not recorded: %s", self.task_id, exc,
                        extra={"task_id": self.task_id})
        policy = self.ctx.config.worktree_policy
        if ws and ws.host is None and (policy == "remove" or (policy == "remove-on-success"
                                                              and finish.status == "completed")):
            self.ctx.worktrees.remove(ws)

    # The watch thread.
    def _watch(self) -> None:
        every = max(0.5, self.lease_s / 4)
        vis_every = max(1.0, self.ctx.config.visibility_s / 3)
        next_lease, next_vis = time.monotonic() + every, time.monotonic() + vis_every
        while not self._done.wait(0.25):
            now = time.monotonic()
            if now >= self._deadline and not self._stop.is_set():
                self.event("notice", f"time budget of {self.task['time_budget_s']}s exhausted")
                self.stop("timed_out")
            if now >= next_lease:
                self._renew(now)
                next_lease = now + every
            if now >= next_vis and self.ctx.queue is not None:
                next_vis = now + vis_every
                try:
                    self.ctx.queue.extend(self.receipt, self.ctx.config.visibility_s)
                except Exception as exc:  # a deleted or redelivered message cannot be extended
                    log.debug("visibility not extended: %s", exc)
            self.batcher.flush_if_due()

    def _renew(self, now: float) -> None:
        try:
            lease = AttemptRequest(self.ctx.machine_id, self.attempt)
            state = LeaseState.from_body(self.post("lease", lease))
        except ApiError as exc:
            if exc.status in (404, 409) or now - self._lease_ok > self.lease_s * 0.75:
                # Without a lease the server will retry the task elsewhere: this run must end first.
                self.stop("lost")
            return
        self._lease_ok = now
        if not state.keep_running:
            if state.cancel_requested or state.status == "cancelled":
                self.stop("cancelled")
            elif state.status == "timed_out":
                self.stop("timed_out")
            else:
                self.stop("lost")

    # API helpers.
    def event(self, kind: str, text: str = "", data: dict[str, Any] | None = None) -> None:
        self.batcher.add(ProgressEvent(kind, text, data or {}))

    def _post_events(self, batch: list[ProgressEvent]) -> None:
        self.post("events", TaskEventsRequest(self.ctx.machine_id, self.attempt, batch))

    def post(self, action: str, request: Body) -> Any:
        """POST one of this attempt's requests (lease, events, engine-switch, result, outcome)."""
        return self.ctx.api.post(f"/api/tasks/{self.task_id}/{action}", request.to_body())
