"""What the agent does with each message of its queue: tasks, cancels, sessions and SSH runs.

Every runner gets its own thread, which also owns the engine process (an engine dies with
the thread that started it).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol

from agent.agent_context import AgentContext, log
from agent.folders import configured_roots, list_folder
from agent.sessions.session_runner import SessionRunner
from agent.ssh.run_runner import SshRunRunner
from agent.tasks.task_runner import TaskRunner
from chalicelib.contracts import machine_messages as mm
from chalicelib.contracts.agent_api import TaskClaim, TaskClaimRequest, TaskReleaseRequest
from chalicelib.contracts.api_transport import ApiError
from chalicelib.kernel.queues import ReceivedMessage


class Runner(Protocol):
    def run(self) -> None: ...


class WorkRouter:
    def __init__(self, ctx: AgentContext) -> None:
        self.ctx = ctx
        self.config = ctx.config
        self.tasks: dict[str, TaskRunner] = {}
        self.sessions: dict[str, SessionRunner] = {}
        self.ssh_runs: dict[str, SshRunRunner] = {}
        self._lock = threading.Lock()
        self.draining = False  # a restart is coming: tasks sent now are handed back

    @property
    def active_tasks(self) -> int:
        with self._lock:
            return len(self.tasks)

    def stop_all(self) -> None:
        with self._lock:
            runners, sessions = list(self.tasks.values()), list(self.sessions.values())
            ssh_runs = list(self.ssh_runs.values())
        for runner in runners:
            runner.stop("shutdown")
        for session in sessions:
            session.stop()
        for ssh_run in ssh_runs:
            ssh_run.stop()

    def handle(self, message: ReceivedMessage) -> None:
        try:
            msg = mm.parse_machine_message(message.body)
        except mm.BadMessage as exc:  # left on the queue: after 3 receives it moves to the DLQ
            log.warning("poison message %s: %s", message.message_id, exc)
            return
        if msg.kind == mm.TASK:
            self._on_task(msg, message)
            return
        if msg.kind in (mm.CANCEL, mm.TASK_INPUT):
            with self._lock:
                runner = self.tasks.get(str(msg.task_id))
            if runner is not None and msg.kind == mm.CANCEL:
                runner.stop("cancelled")
            elif runner is not None:  # one not running here stays pending on the server
                runner.receive(msg.seq, msg.text, msg.mode, msg.files)
        elif msg.kind == mm.SESSION_START:
            self._on_session_start(str(msg.session_id))
        elif msg.kind == mm.SSH_RUN:
            self._on_ssh_run(str(msg.run_id))
        elif msg.kind == mm.FOLDER_LIST:
            self._on_folder_list(msg)
        elif msg.kind == mm.SESSION_LIST:
            self._on_session_list(msg)
        else:
            with self._lock:
                session = self.sessions.get(str(msg.session_id))
            # Inputs for a session not running here yet arrive with its claim; closes need nothing.
            if session is not None and msg.kind == mm.SESSION_INPUT:
                session.add_input(msg.seq, msg.text, msg.files)
            elif session is not None and msg.kind == mm.SESSION_CLOSE:
                session.close()
        self.ctx.delete_message(message.receipt_handle)

    def _on_task(self, msg: mm.MachineMessage, message: ReceivedMessage) -> None:
        task_id = str(msg.task_id)
        with self._lock:
            running = task_id in self.tasks
            full = self.draining or len(self.tasks) >= self.config.max_concurrent
        if running:  # a duplicate delivery of the task we are running
            self.ctx.delete_message(message.receipt_handle)
            return
        if full:
            try:
                release = TaskReleaseRequest(self.config.machine_id, msg.dispatch_seq)
                self.ctx.api.post(f"/api/tasks/{task_id}/release", release.to_body())
            except ApiError as exc:
                if exc.status not in (404, 409):
                    return  # try again when the message comes back
            self.ctx.delete_message(message.receipt_handle)
            return
        try:
            request = TaskClaimRequest(self.config.machine_id, msg.dispatch_seq, self.ctx.instance)
            claim = TaskClaim.from_body(self.ctx.api.post(f"/api/tasks/{task_id}/claim", request.to_body()))
        except ApiError as exc:
            if exc.status in (404, 409):  # stale, duplicate or cancelled: nothing to run
                log.info("task %s not claimed: %s", task_id, exc.message)
                self.ctx.delete_message(message.receipt_handle)
            return
        self._start(self.tasks, task_id, lambda: TaskRunner(self.ctx, claim, message.receipt_handle), "task")

    def _on_session_start(self, session_id: str) -> None:
        self._start(self.sessions, session_id, lambda: SessionRunner(self.ctx, session_id), "session")

    def _on_folder_list(self, msg: mm.MachineMessage) -> None:
        """List a folder for the session picker (checked against this machine's roots) and answer."""
        roots = configured_roots(",".join(self.config.folder_roots), self.config.repos.values())
        answer = list_folder(self.config.machine_id, roots, msg.path, msg.offset)
        try:
            self.ctx.api.post(f"/api/machines/{self.config.machine_id}/folders/{msg.listing_id}",
                              answer.to_body())
        except ApiError as exc:  # the user asks again; a listing is never worth retrying later
            log.warning("folder listing %s not delivered: %s", msg.listing_id, exc)

    def _on_session_list(self, msg: mm.MachineMessage) -> None:
        """List the terminal sessions /continue may resume (in this machine's roots) and answer."""
        from agent.transcripts.resumable import resumable_listing

        roots = configured_roots(",".join(self.config.folder_roots), self.config.repos.values())
        answer = resumable_listing(self.config.machine_id, roots, msg.path)
        try:
            self.ctx.api.post(f"/api/machines/{self.config.machine_id}/resumable/{msg.listing_id}",
                              answer.to_body())
        except ApiError as exc:  # the user asks again
            log.warning("session listing %s not delivered: %s", msg.listing_id, exc)

    def _on_ssh_run(self, run_id: str) -> None:
        self._start(self.ssh_runs, run_id, lambda: SshRunRunner(self.ctx, run_id), "ssh-run")

    def _start(self, running: dict[str, Any], key: str, make: Callable[[], Runner], kind: str) -> None:
        """Run key's runner on a thread of its own, which also owns its engine, unless it runs
        already; forget it once it ends."""
        with self._lock:
            if key in running:
                return
            runner = running[key] = make()

        def run() -> None:
            try:
                runner.run()
            finally:
                with self._lock:
                    running.pop(key, None)

        threading.Thread(target=run, name=f"{kind}-{key[:8]}", daemon=True).start()
