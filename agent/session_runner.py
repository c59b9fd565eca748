"""One interactive session: a long-lived engine fed one stream-json user turn at a time.

Turns are written strictly in sequence order and only once the previous turn's `result` line
came back (the engine's protocol), whatever order SQS delivered them in. Closing ends stdin;
an engine still alive `CLOSE_GRACE_S` later has its process tree killed.
"""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

from agent import process_tree
from agent.agent_context import AgentContext, call_with_retry, log
from agent.engine_process import pump, read_lines
from agent.event_batcher import EventBatcher, to_wire
from agent.worktrees import WorkspaceError
from chalicelib.contracts.agent_api import (
    MachineRequest,
    ProgressEvent,
    SessionClaim,
    SessionEndedRequest,
    SessionEventsRequest,
)
from chalicelib.contracts.api_transport import ApiError
from chalicelib.tasks.domain.engine_events import EventKind

CLOSE_GRACE_S = 10.0


class SessionRunner:
    def __init__(self, ctx: AgentContext, session_id: str) -> None:
        self.ctx = ctx
        self.session_id = session_id
        self._inputs: dict[int, str] = {}
        self._next_seq = 1
        self._busy = False
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._done = threading.Event()
        self._proc: subprocess.Popen[str] | None = None
        self.batcher = EventBatcher(self._post_events, interval_s=0.5)

    def add_input(self, seq: int, text: str) -> None:
        with self._lock:
            if seq >= self._next_seq:
                self._inputs[seq] = text
            self._write_next()

    def close(self) -> None:
        self._closing.set()
        with self._lock:
            self._close_stdin()
        timer = threading.Timer(CLOSE_GRACE_S, self._kill_if_alive)
        timer.daemon = True
        timer.start()

    def stop(self) -> None:
        """The agent is stopping: end the engine now."""
        self._closing.set()
        self._kill_if_alive()

    def run(self) -> None:
        """Claim, run the engine until it exits, report the end. Owns the engine process."""
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
        with self._lock:
            for item in claim.inputs:
                self._inputs.setdefault(int(item["seq"]), str(item["text"]))
        try:
            code = self._run_engine(session)
        except (OSError, WorkspaceError, ValueError) as exc:
            self._ended(None, f"engine did not start: {exc}")
            return
        finally:
            self._done.set()
        self._ended(code, None if code == 0 or self._closing.is_set() else f"engine exited with code {code}")

    def _run_engine(self, session: dict[str, Any]) -> int:
        engine = self.ctx.engine(session["engine"])
        cwd = self._workdir(session)
        env = {**self.ctx.config.env, "ITACHI_SESSION_ID": self.session_id,
               "ITACHI_PROJECT": session["project"], "ITACHI_CLIENT": engine.name}
        logs = self.ctx.config.home / "logs" / "sessions"
        logs.mkdir(parents=True, exist_ok=True)
        with open(logs / f"{self.session_id}.stderr", "w") as stderr:
            proc = process_tree.start(engine.session_argv(), cwd=cwd, env=env, stdin=subprocess.PIPE,
                                      stderr=stderr)
            self.ctx.registry.record(proc.pid, self.session_id)
            with self._lock:
                self._proc = proc
                self._write_next()
            lines: queue.Queue[str | None] = queue.Queue()
            threading.Thread(target=pump, args=(proc.stdout, lines), daemon=True).start()
            threading.Thread(target=self._tick, daemon=True).start()
            for line in read_lines(proc, lines):
                for event in engine.parse(line):
                    wire = to_wire(event)
                    if wire is not None:
                        self.batcher.add(wire)
                    if event.kind == EventKind.RESULT:
                        with self._lock:
                            self._busy = False
                            self._write_next()
            code = proc.wait()
            self.ctx.registry.forget(proc.pid)
        return code

    def _workdir(self, session: dict[str, Any]) -> Path:
        if session.get("repo") or session["project"] in self.ctx.config.repos:
            return self.ctx.worktrees.repo_root(session.get("repo"), session["project"])
        scratch = self.ctx.config.home / "sessions" / self.session_id
        scratch.mkdir(parents=True, exist_ok=True)
        return scratch

    def _write_next(self) -> None:
        """Write the next turn if the engine is idle (caller holds the lock)."""
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdin.closed or self._busy:
            return
        text = self._inputs.pop(self._next_seq, None)
        if text is None:
            if self._closing.is_set():
                self._close_stdin()
            return
        line = {"type": "user", "message": {"role": "user", "content": text}}
        try:
            proc.stdin.write(json.dumps(line) + "\n")
            proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            return
        self._next_seq += 1
        self._busy = True

    def _close_stdin(self) -> None:
        proc = self._proc
        if proc is not None and proc.stdin is not None and not proc.stdin.closed:
            with contextlib.suppress(OSError):
                proc.stdin.close()

    def _kill_if_alive(self) -> None:
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
