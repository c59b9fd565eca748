"""Talk to the Itachi API from a hook: parallel calls under one deadline, spool what fails.

Every POST carries an ``Idempotency-Key`` header that survives spooling, so a request that
reached the server just before the deadline and is replayed later is recognisable.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from urllib.parse import urlencode

from chalicelib.contracts.api_transport import ApiError, request_json
from hooks.outbox import Outbox

TYPE_CHECKING = False  # typing itself is not imported at run time (hooks.launch)
if TYPE_CHECKING:
    from typing import Any

    from hooks.runtime import HookContext

PERMANENT_STATUSES = frozenset({400, 413, 422})  # the body itself is wrong: retrying won't help
REPLAY_MIN_REMAINING_S = 0.1


class Call:
    """One HTTP request and, once sent, how it went."""

    def __init__(
        self, method: str, path: str, body: dict[str, Any] | None = None, key: str = ""
    ) -> None:
        self.method = method
        self.path = path
        self.body = body
        self.key = key
        self.result: dict[str, Any] | None = None
        self.outcome = "timeout"  # ok | retry | reject | timeout


class ApiClient:
    """A deadline-bound client; failed POSTs land in the outbox instead of being lost."""

    def __init__(self, ctx: HookContext, outbox: Outbox | None = None) -> None:
        self.config = ctx.config
        self.deadline = ctx.deadline
        self.notes = ctx.notes  # spooled and replayed calls are noted in the hook's log line
        self.hook = ctx.name
        self.outbox = outbox or Outbox(ctx.config.home / "outbox")
        self.reachable = False
        # A subagent run's hooks name their run: the server narrows memory reads to its scope.
        self.run_id = os.environ.get("ITACHI_AGENT_RUN_ID", "").strip()

    def exchange(
        self, gets: list[tuple[str, dict[str, Any]]], posts: list[tuple[str, dict[str, Any]]]
    ) -> tuple[list[dict[str, Any] | None], list[dict[str, Any] | None]]:
        """Send all GETs and POSTs in parallel; None marks each one that failed or ran late.

        POSTs that were not delivered are spooled to the outbox.
        """
        get_calls = [Call("GET", f"{path}?{urlencode(q)}") for path, q in gets]
        post_calls = [Call("POST", path, body, os.urandom(16).hex()) for path, body in posts]
        self.run(get_calls + post_calls)
        for call in post_calls:
            if call.outcome in ("retry", "timeout"):
                self.spool(call)
            elif call.outcome == "reject":
                self.notes.append(f"rejected={call.path}")
        return [c.result for c in get_calls], [c.result for c in post_calls]

    def get_many(self, requests: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any] | None]:
        return self.exchange(requests, [])[0]

    def post_many(self, requests: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any] | None]:
        return self.exchange([], requests)[1]

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
        return self.post_many([(path, body)])[0]

    def spool(self, call: Call) -> Path:
        entry = {"method": call.method, "path": call.path, "body": call.body, "key": call.key}
        self.notes.append(f"spooled={call.path}:{call.outcome}")
        return self.outbox.put(entry, self.hook)

    def run(self, calls: list[Call]) -> None:
        """Send calls on daemon threads and wait for them no longer than the deadline."""
        threads = [threading.Thread(target=self._send, args=(c,), daemon=True) for c in calls]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(self.deadline.remaining())

    def deliver(self, claimed: Path) -> str:
        """Send one claimed outbox entry and settle it: delivered, rejected or put back."""
        entry = self.outbox.load(claimed)
        if entry is None:
            return "reject"
        call = Call(entry["method"], entry["path"], entry.get("body"), entry.get("key", ""))
        self.run([call])
        if call.outcome == "ok":
            self.outbox.done(claimed)
        elif call.outcome == "reject":
            self.outbox.reject(claimed)
        else:
            self.outbox.release(claimed)
        return call.outcome

    def replay(self, limit: int) -> int:
        """Deliver up to limit spooled POSTs, oldest first, while the deadline allows."""
        delivered = 0
        for path in self.outbox.pending(limit):
            if self.deadline.remaining() < REPLAY_MIN_REMAINING_S:
                break
            claimed = self.outbox.claim(path)
            if claimed is None:
                continue
            outcome = self.deliver(claimed)
            if outcome in ("retry", "timeout"):
                break
            delivered += outcome == "ok"
        if delivered:
            self.notes.append(f"replayed={delivered}")
        return delivered

    def _send(self, call: Call) -> None:
        timeout = self.deadline.remaining()
        if timeout <= 0:
            return
        headers = {"Idempotency-Key": call.key} if call.key else {}
        if self.run_id:
            headers["X-Itachi-Agent-Run"] = self.run_id
        try:
            parsed = request_json(
                self.config.api_url, self.config.api_key, call.method, call.path, call.body,
                timeout_s=timeout, user_agent=f"itachi-hooks/{self.config.client}",
                headers=headers or None)
        except ApiError as exc:
            if exc.status in PERMANENT_STATUSES:
                call.outcome = "reject"
            elif self.deadline.remaining() <= 0:  # the socket gave up at the hook's deadline
                call.outcome = "timeout"
            else:
                call.outcome = "retry"
            return
        self.reachable = True
        call.result = parsed if isinstance(parsed, dict) else {} if parsed is None else {"data": parsed}
        call.outcome = "ok"
