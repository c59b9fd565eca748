"""The fake engine's JSON-RPC modes: `codex app-server` and `gemini --experimental-acp`.

`fake_engine.py` hands over here when its argv names either mode. One process serves the
turns it is sent (the agent sends one). The prompt's directives say what the turn does:

  [fake:run=CMD]      ask to run the shell command CMD; run it in the working directory if allowed
  [fake:write=PATH]   ask to write PATH; write it if allowed
  [fake:rate_limit=E] fail the turn with a rate limit when running as engine E

Every approval asked and the answer received goes to ITACHI_FAKE_ENGINE_LOG as an `asked` line
(with the tool, the answer and the engine), as do `start` lines (the prompt, the thread or
session resumed) as the headless fake writes them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

Log = Callable[..., None]
DIRECTIVE_ACTIONS = ("run", "write")


class Wire:
    """Newline-delimited JSON-RPC on stdin/stdout; ACP carries the `jsonrpc` member, Codex does not."""

    def __init__(self, header: bool) -> None:
        self._header, self._next = header, 1000
        self.backlog: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message} if self._header else message) + "\n")
        sys.stdout.flush()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send({"method": method, "params": params})

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Ask the client and wait for its answer (requests arriving meanwhile wait in the backlog)."""
        self._next += 1
        self.send({"id": self._next, "method": method, "params": params})
        for line in sys.stdin:
            message = json.loads(line)
            if message.get("id") == self._next and "method" not in message:
                return dict(message.get("result") or {})
            self.backlog.append(message)
        return {}

    def messages(self) -> Any:
        while self.backlog:
            yield self.backlog.pop(0)
        for line in sys.stdin:
            if line.strip():
                yield json.loads(line)
            while self.backlog:
                yield self.backlog.pop(0)


def actions(directives: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(name, value) for name, value in directives if name in DIRECTIVE_ACTIONS]


def perform(kind: str, value: str) -> str:
    if kind == "run":
        subprocess.run(value, shell=True, check=False, timeout=30)
        return f"ran: {value}"
    Path(value).parent.mkdir(parents=True, exist_ok=True)
    Path(value).write_text("written by the fake engine\n")
    return f"wrote: {value}"


def serve_codex(directives_of: Callable[[str], list[tuple[str, str]]], log: Log) -> int:
    wire, thread, resumed = Wire(header=False), "fake-thread", None
    for message in wire.messages():
        method, params, ident = message.get("method"), message.get("params") or {}, message.get("id")
        if method == "initialize":
            wire.send({"id": ident, "result": {"userAgent": "fake-codex"}})
        elif method == "thread/start":
            wire.send({"id": ident, "result": {"thread": {"id": thread}}})
            wire.notify("thread/started", {"thread": {"id": thread}})
        elif method == "thread/resume":
            thread = resumed = str(params.get("threadId"))
            wire.send({"id": ident, "result": {"thread": {"id": thread}}})
        elif method == "turn/start":
            prompt = " ".join(str(i.get("text", "")) for i in params.get("input") or [])
            log("start", engine="codex", prompt=prompt, resume=resumed, cwd=str(Path.cwd()),
                argv=sys.argv[1:], mode="app-server")
            wire.send({"id": ident, "result": {"turn": {"id": "turn-1", "status": "inProgress"}}})
            _codex_turn(wire, thread, prompt, resumed, directives_of(prompt), log)
        elif ident is not None:
            wire.send({"id": ident, "result": {}})
    return 0


def _codex_turn(wire: Wire, thread: str, prompt: str, resumed: str | None, directives: list[tuple[str, str]],
                log: Log) -> None:
    ids = {"threadId": thread, "turnId": "turn-1"}
    wire.notify("turn/started", {**ids, "turn": {"id": "turn-1"}})

    def say(text: str, n: int) -> None:
        message = {"id": f"msg-{n}", "type": "agentMessage", "text": text}
        wire.notify("item/completed", {**ids, "item": message})

    if resumed:
        say(f"Resumed {resumed}", 0)
    say(f"Working on: {prompt.splitlines()[0][:80] if prompt else ''}", 1)
    if "codex" in dict(directives).get("rate_limit", "").split(","):
        wire.notify("turn/completed", {**ids, "turn": {"id": "turn-1", "status": "failed",
                                                       "error": {"message": "429 Too Many Requests"}}})
        return
    for n, (kind, value) in enumerate(actions(directives)):
        item = ({"id": f"item-{n}", "type": "commandExecution", "command": value, "status": "inProgress"}
                if kind == "run" else
                {"id": f"item-{n}", "type": "fileChange", "status": "inProgress",
                 "changes": [{"path": value, "kind": {"type": "add"}, "diff": ""}]})
        wire.notify("item/started", {**ids, "item": item})
        method = ("item/commandExecution/requestApproval" if kind == "run"
                  else "item/fileChange/requestApproval")
        params = {**ids, "itemId": item["id"], **({"command": value, "cwd": str(Path.cwd())} if kind == "run"
                                                   else {"reason": "the agent wants to write a file"})}
        decision = str(wire.call(method, params).get("decision"))
        log("asked", engine="codex", tool=kind, value=value, answer=decision)
        allowed = decision in ("accept", "acceptForSession")
        outcome = perform(kind, value) if allowed else f"declined: {value}"
        status = "completed" if allowed else "declined"
        wire.notify("item/completed", {**ids, "item": {**item, "status": status}})
        say(outcome, 10 + n)
    wire.notify("turn/completed", {**ids, "turn": {"id": "turn-1", "status": "completed"}})


PERMISSION_OPTIONS = [{"optionId": "proceed_always", "name": "Always Allow", "kind": "allow_always"},
                      {"optionId": "proceed_once", "name": "Allow", "kind": "allow_once"},
                      {"optionId": "cancel", "name": "Reject", "kind": "reject_once"}]


def serve_acp(directives_of: Callable[[str], list[tuple[str, str]]], log: Log) -> int:
    wire, session, resumed = Wire(header=True), "fake-session", None
    for message in wire.messages():
        method, params, ident = message.get("method"), message.get("params") or {}, message.get("id")
        if method == "initialize":
            capabilities = {"loadSession": True}
            wire.send({"id": ident, "result": {"protocolVersion": 1, "agentCapabilities": capabilities}})
        elif method == "session/new":
            wire.send({"id": ident, "result": {"sessionId": session}})
        elif method == "session/load":
            session = resumed = str(params.get("sessionId"))
            _chunk(wire, session, "(history replayed on load)")
            wire.send({"id": ident, "result": None})
        elif method == "session/prompt":
            prompt = " ".join(str(b.get("text", "")) for b in params.get("prompt") or [])
            log("start", engine="gemini", prompt=prompt, resume=resumed, cwd=str(Path.cwd()),
                argv=sys.argv[1:], mode="acp")
            stop = _acp_turn(wire, session, prompt, resumed, directives_of(prompt), log)
            if stop is None:
                error = {"code": 429, "message": "RESOURCE_EXHAUSTED: quota exceeded"}
                wire.send({"id": ident, "error": error})
            else:
                wire.send({"id": ident, "result": {"stopReason": stop}})
        elif ident is not None:
            wire.send({"id": ident, "error": {"code": -32601, "message": f"{method} not found"}})
    return 0


def _chunk(wire: Wire, session: str, text: str) -> None:
    wire.notify("session/update", {"sessionId": session, "update": {
        "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}})


def _acp_turn(wire: Wire, session: str, prompt: str, resumed: str | None, directives: list[tuple[str, str]],
              log: Log) -> str | None:
    if resumed:
        _chunk(wire, session, f"Resumed {resumed}\n")
    _chunk(wire, session, f"Working on: {prompt.splitlines()[0][:80] if prompt else ''}\n")
    if "gemini" in dict(directives).get("rate_limit", "").split(","):
        return None
    for n, (kind, value) in enumerate(actions(directives)):
        title = f"Shell {value}" if kind == "run" else f"WriteFile {value}"
        call = {"toolCallId": f"call-{n}", "title": title,
                "kind": "execute" if kind == "run" else "edit", "status": "pending",
                "rawInput": {"command": value} if kind == "run" else {"file_path": value}}
        update = {"sessionUpdate": "tool_call", **call}
        wire.notify("session/update", {"sessionId": session, "update": update})
        answer = wire.call("session/request_permission", {"sessionId": session, "toolCall": call,
                                                          "options": PERMISSION_OPTIONS})
        outcome = answer.get("outcome") or {}
        chosen = outcome.get("optionId") if outcome.get("outcome") == "selected" else "cancelled"
        log("asked", engine="gemini", tool=kind, value=value, answer=chosen)
        allowed = chosen in ("proceed_once", "proceed_always")
        text = perform(kind, value) if allowed else f"declined: {value}"
        wire.notify("session/update", {"sessionId": session, "update": {
            "sessionUpdate": "tool_call_update", "toolCallId": call["toolCallId"],
            "status": "completed" if allowed else "failed"}})
        _chunk(wire, session, text + "\n")
    return "end_turn"
