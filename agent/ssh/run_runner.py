"""Run one `/ssh` or `/exec` command for the server: claim, connect, stream, report the ending.

The target comes from this machine's own configuration (its pinned host key included), never
from the server's answer, so a server cannot point a run at another host. Output is posted in
batches of at most one request a second, each numbered so a retried post is not shown twice;
after `MAX_OUTPUT_CHARS` the rest is dropped with a note.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from agent.agent_context import AgentContext, call_with_retry, log
from agent.ssh.connection import HostKeyRefused, SshConnectError, connect
from agent.ssh.remote_exec import run_remote
from agent.ssh.targets import load_targets
from agent.tasks.event_batcher import EventBatcher
from chalicelib.contracts.agent_api import ProgressEvent
from chalicelib.contracts.api_transport import ApiError

MAX_OUTPUT_CHARS = 1_000_000


class SshRunRunner:
    def __init__(self, ctx: AgentContext, run_id: str) -> None:
        self.ctx = ctx
        self.run_id = run_id
        self.stop_event = threading.Event()
        self._done = threading.Event()
        self._sent = 0  # output batches the server has
        self._chars = 0
        self.batcher = EventBatcher(self._post_output, interval_s=1.0)

    def stop(self) -> None:
        self.stop_event.set()

    def run(self) -> None:
        try:
            claim = self._api("claim", {})
        except ApiError as exc:  # stale, duplicate or not ours: nothing to run
            log.info("ssh run %s not claimed: %s", self.run_id, exc.message)
            return
        run = claim["run"]
        started = time.monotonic()
        status, code, error = self._execute(run)
        self._done.set()
        self.batcher.flush()
        body = {"status": status, "exit_code": code, "error": error,
                "duration_s": round(time.monotonic() - started, 3)}
        try:
            call_with_retry(lambda: self._api("result", body))
        except ApiError as exc:
            log.warning("ssh run %s result not accepted: %s", self.run_id, exc)

    def _execute(self, run: dict[str, Any]) -> tuple[str, int | None, str | None]:
        target = load_targets(self.ctx.config.home, self.ctx.config.env).get(run["target"])
        if target is None:
            return "failed", None, f"target {run['target']} is not configured on {self.ctx.machine_id}"
        try:
            transport = connect(target)
        except HostKeyRefused as exc:
            return "refused", None, str(exc)
        except SshConnectError as exc:
            return "failed", None, str(exc)
        threading.Thread(target=self._tick, name=f"ssh-{self.run_id[:8]}", daemon=True).start()
        try:
            result = run_remote(transport, run["command"], target.platform, timeout_s=float(run["timeout_s"]),
                                on_output=self._output, stop=self.stop_event)
        except Exception as exc:  # the connection dropped mid-run
            return "failed", None, f"connection to {target.name} lost: {exc}"
        finally:
            transport.close()
        if result.timed_out or result.stopped:
            return "timed_out", None, None if result.timed_out else "the agent stopped"
        return ("succeeded" if result.exit_code == 0 else "failed"), result.exit_code, None

    def _output(self, stream: str, text: str) -> None:
        if self._chars >= MAX_OUTPUT_CHARS:
            return
        self._chars += len(text)
        if self._chars >= MAX_OUTPUT_CHARS:
            text += f"\n(output beyond {MAX_OUTPUT_CHARS} characters is not shown)\n"
        kind = "text" if stream == "stdout" else "stderr"
        self.batcher.add(ProgressEvent(kind, text, {"delta": True}))

    def _tick(self) -> None:
        while not self._done.wait(0.25):
            self.batcher.flush_if_due()

    def _post_output(self, batch: list[ProgressEvent]) -> None:
        events = [{"stream": "stdout" if e.kind == "text" else "stderr", "text": e.text} for e in batch]
        self._api("output", {"seq": self._sent + 1, "events": events})
        self._sent += 1

    def _api(self, action: str, body: dict[str, Any]) -> Any:
        return self.ctx.api.post(f"/api/ssh/runs/{self.run_id}/{action}",
                                 {"machine_id": self.ctx.machine_id, **body})
