"""One interactive session: an engine fed one user turn at a time, switched on a rate limit.

Turns are handed over strictly in sequence order and only once the previous turn's `result`
line came back (`agent/sessions/session_engines.py`), whatever order SQS delivered them in. Closing ends
the engine's input; an engine still alive `CLOSE_GRACE_S` later has its process tree killed.
A turn that hits a rate limit moves the session to the next engine of the machine's order,
as tasks do: the guard is `plan_switch` here and the server's switch count, and the next
engine's first prompt is the limited turn with a handoff (what was done so far).
"""
from __future__ import annotations

import subprocess
import threading
from pathlib import Path
from typing import Any

from agent.agent_context import AgentContext, call_with_retry, log
from agent.engines import process_tree
from agent.engines.approval_env import approval_env
from agent.engines.approval_relay import ApprovalRelay, relay_for
from agent.sessions.attachment_files import save_files, with_files
from agent.sessions.session_engines import TurnQueue, run_stint
from agent.tasks.event_batcher import EventBatcher, to_wire
from agent.tasks.worktrees import WorkspaceError, git
from chalicelib.contracts.agent_api import (
    MachineRequest,
    ProgressEvent,
    SessionClaim,
    SessionEndedRequest,
    SessionEventsRequest,
    SessionSwitchRequest,
)
from chalicelib.contracts.api_transport import ApiError
from chalicelib.contracts.engine_events import EngineEvent
from chalicelib.contracts.engine_switch import FALLBACK_ENV, engine_order, handoff_prompt, plan_switch

CLOSE_GRACE_S = 10.0


class SessionRunner:
    def __init__(self, ctx: AgentContext, session_id: str) -> None:
        self.ctx = ctx
        self.session_id = session_id
        self.turns = TurnQueue(prepare=self._with_files)
        self._files: dict[int, tuple[str, ...]] = {}  # a turn's attachments, by its seq
        self._cwd: Path | None = None
        self._engine = ""
        self._done = threading.Event()
        self._proc: subprocess.Popen[str] | None = None
        self._proc_lock = threading.Lock()
        self._order: tuple[str, ...] = ()
        self._tried: list[str] = []
        self._switches = 0
        self._next_engine: str | None = None
        self.batcher = EventBatcher(self._post_events, interval_s=0.5)
        self._relay: ApprovalRelay | None = None

    # Control, from the work router's thread.
    def add_input(self, seq: int, text: str, files: tuple[str, ...] = ()) -> None:
        if files:
            self._files.setdefault(seq, files)
        self.turns.add(seq, text)

    def close(self) -> None:
        self._end_input()
        timer = threading.Timer(CLOSE_GRACE_S, self._kill_if_alive)
        timer.daemon = True
        timer.start()

    def stop(self) -> None:
        """The agent is stopping: end the engine now."""
        self._end_input()
        self._kill_if_alive()

    def _end_input(self) -> None:
        self.turns.close()
        if self._relay is not None:  # a question still open in the topic is answered "deny"
            self._relay.stop.set()

    # The run.
    def run(self) -> None:
        """Claim, run the engine(s) until the session ends, report the end. Owns the engine processes."""
        try:
            claim = SessionClaim.from_body(self.ctx.api.post(f"/api/sessions/{self.session_id}/claim",
                                                             MachineRequest(self.ctx.machine_id).to_body()))
        except ApiError as exc:
            log.warning("session %s not claimed: %s", self.session_id, exc)
            return
        session = claim.session
        if session["status"] == "closing":
            self._ended(0, None)
            return
        for item in claim.inputs:
            self.add_input(int(item["seq"]), str(item["text"]), tuple(item.get("files") or ()))
        threading.Thread(target=self._tick, daemon=True).start()
        try:
            code = self._run_engines(session)
        except (OSError, WorkspaceError, ValueError) as exc:
            self._ended(None, f"engine did not start: {exc}")
            return
        finally:
            self._done.set()
        closing = self.turns.closing
        self._ended(code, None if code in (0, None) or closing else f"engine exited with code {code}")

    def _run_engines(self, session: dict[str, Any]) -> int | None:
        cwd = self._cwd = self._workdir(session)
        logs = self.ctx.config.home / "logs" / "sessions"
        logs.mkdir(parents=True, exist_ok=True)
        self._order = engine_order(session["engine"], self.ctx.config.engine_priority)
        self._relay = relay_for(self.ctx.api, {**session, "id": self.session_id}, self.ctx.config.env)
        name, first = self._order[0], None
        resume = session.get("resume_id")  # a terminal session picked up: its first engine continues it
        mode = session.get("permission_mode")  # "plan": Claude's plan is approved in the topic first
        while True:
            env = {**self.ctx.config.env, "ITACHI_SESSION_ID": self.session_id,
                   "ITACHI_PROJECT": session["project"], "ITACHI_CLIENT": name,
                   **approval_env(session, self.ctx.config.env)}
            if self._tried:
                env[FALLBACK_ENV] = "1"
            self._next_engine, self._engine = None, name
            stint = run_stint(self, self.ctx.engine(name), first, cwd=cwd, env=env,
                              stderr_path=logs / f"{self.session_id}-{name}.stderr", relay=self._relay,
                              resume=resume if name == session["engine"] else None,
                              options={"permission_mode": mode} if mode else None)
            self._tried.append(name)
            if stint.limited_turn is None or self._next_engine is None:
                return stint.exit_code
            first = handoff_prompt(stint.limited_turn, name, stint.summary.progress_notes(),
                                   _changed_files(cwd))
            name = self._next_engine

    # What the engine stints call (SessionHost).
    def forward(self, event: EngineEvent) -> None:
        wire = to_wire(event)
        if wire is not None:
            self.batcher.add(wire)

    def attach(self, proc: subprocess.Popen[str] | None) -> None:
        with self._proc_lock:
            previous, self._proc = self._proc, proc
        if previous is not None:
            self.ctx.registry.forget(previous.pid)
        if proc is not None:
            self.ctx.registry.record(proc.pid, self.session_id)

    def may_switch(self, engine: str, reason: str) -> bool:
        """A turn of `engine` was rate limited: may the session move to the next engine?"""
        if self.turns.closing:
            return False
        decision = plan_switch(self._order, [*self._tried, engine], self._switches,
                               fallback_active=self.ctx.config.fallback_active)
        if decision.next_engine is None:
            self._notice(f"{engine} is rate limited; no switch: {decision.reason}")
            return False
        switch = SessionSwitchRequest(self.ctx.machine_id, engine, decision.next_engine,
                                      (reason or "rate limited")[:300])
        try:
            answer = self.ctx.api.post(f"/api/sessions/{self.session_id}/engine-switch", switch.to_body())
        except ApiError as exc:
            self._notice(f"engine switch refused: {exc.message}")
            return False
        self._switches = int(answer["engine_switches"])
        self._next_engine = decision.next_engine
        return True

    def _with_files(self, seq: int, text: str) -> str:
        """A turn with attachments: its files saved in the session's folder and named first."""
        names = self._files.pop(seq, ())
        if not names or self._cwd is None:
            return text
        def fetch(path: str) -> Any:
            return self.ctx.api.get(path, machine_id=self.ctx.machine_id)

        saved = save_files(fetch, f"/api/sessions/{self.session_id}/files", seq, names, self._cwd,
                           self._notice)
        return with_files(text, names, saved, self._engine)

    def _notice(self, text: str) -> None:
        self.batcher.add(ProgressEvent("notice", text, {}))

    def _workdir(self, session: dict[str, Any]) -> Path:
        if session.get("repo") or session["project"] in self.ctx.config.repos:
            return self.ctx.worktrees.repo_root(session.get("repo"), session["project"])
        scratch = self.ctx.config.home / "sessions" / self.session_id
        scratch.mkdir(parents=True, exist_ok=True)
        return scratch

    def _kill_if_alive(self) -> None:
        with self._proc_lock:
            proc = self._proc
        if proc is not None and proc.poll() is None:
            process_tree.kill_tree(proc)

    def _tick(self) -> None:
        while not self._done.wait(0.25):
            self.batcher.flush_if_due()

    def _ended(self, exit_code: int | None, error: str | None) -> None:
        self.batcher.flush()
        try:
            ended = SessionEndedRequest(self.ctx.machine_id, exit_code, error).to_body()
            call_with_retry(lambda: self.ctx.api.post(f"/api/sessions/{self.session_id}/ended", ended))
        except ApiError as exc:
            log.warning("session %s end not reported: %s", self.session_id, exc)

    def _post_events(self, batch: list[ProgressEvent]) -> None:
        self.ctx.api.post(f"/api/sessions/{self.session_id}/events",
                          SessionEventsRequest(self.ctx.machine_id, batch).to_body())


def _changed_files(cwd: Path) -> list[str]:
    """Files changed in the session's folder, if it is a git checkout."""
    try:
        status = git(cwd, "status", "--porcelain", "--untracked-files=all", check=False)
    except OSError:
        return []
    return sorted(line[3:].split(" -> ")[-1] for line in status.splitlines() if line.strip())
