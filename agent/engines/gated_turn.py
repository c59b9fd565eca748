"""One turn of Codex or Gemini with its tool calls gated by a person in Telegram.

Instead of `codex exec --full-auto` / `gemini --approval-mode auto_edit`, the engine runs in its
JSON-RPC mode (`codex app-server`, `gemini --experimental-acp`) where it asks its client before
a command or an edit; the agent answers through the approval relay. A turn is one process, as
in headless mode: the first starts a thread (Codex) or session (Gemini), later turns resume it
by the id the first turn reported in its init event.
"""

from __future__ import annotations

import contextlib
import queue
import subprocess
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from agent.engines import process_tree
from agent.engines.approval_relay import ApprovalRelay
from agent.engines.definitions import READ_ONLY_MODES, Engine
from agent.engines.engine_lines import pump, read_lines
from agent.engines.jsonrpc_peer import JsonRpcPeer, RpcError
from agent.engines.protocol_events import (
    CODEX_APPROVALS,
    acp_answer,
    acp_ask,
    acp_event,
    codex_answer,
    codex_ask,
    codex_event,
    failure,
)
from agent.version import VERSION
from chalicelib.contracts.engine_events import EngineEvent, EventKind

Forward = Callable[[EngineEvent], None]
GATED = frozenset({"codex", "gemini"})
CLOSE_GRACE_S = 5.0


def run_gated_turn(engine: Engine, prompt: str, resume: str | None, *, cwd: Path, env: Mapping[str, str],
                   stderr: Any, relay: ApprovalRelay, forward: Forward,
                   attach: Callable[[subprocess.Popen[str] | None], None],
                   options: Mapping[str, Any] | None = None) -> int | None:
    """Run one turn; every event goes to `forward`. The engine's exit code, None if it did not start."""
    try:
        proc = process_tree.start(engine.gated_argv(options), cwd=cwd, env=env, stdin=subprocess.PIPE,
                                  stderr=stderr)
    except OSError as exc:
        forward(EngineEvent(EventKind.ERROR, f"cannot start {engine.name}: {exc}"))
        return None
    attach(proc)
    try:
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=pump, args=(proc.stdout, lines), daemon=True).start()
        talk = _CodexTalk if engine.name == "codex" else _AcpTalk
        session = talk(proc, read_lines(proc, lines), relay, forward)
        try:
            session.turn(prompt, resume, cwd, options or {})
        except RpcError as exc:
            for event in failure(str(exc)):
                forward(event)
        if proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
        try:
            return proc.wait(timeout=CLOSE_GRACE_S)
        except subprocess.TimeoutExpired:
            process_tree.kill_tree(proc, grace_s=0.5)
            return proc.wait()
    finally:
        if process_tree.group_alive(proc.pid):
            process_tree.kill_tree(proc, grace_s=0.5)
        attach(None)


class _CodexTalk:
    """`codex app-server`: initialize, thread/start or thread/resume, turn/start, until turn/completed."""

    def __init__(self, proc: subprocess.Popen[str], lines: Any, relay: ApprovalRelay,
                 forward: Forward) -> None:
        self._relay, self._forward = relay, forward
        self._items: dict[str, Mapping[str, Any]] = {}
        self._peer = JsonRpcPeer(proc, lines, header=False, on_request=self._ask, on_notification=self._heard)

    def turn(self, prompt: str, resume: str | None, cwd: Path, options: Mapping[str, Any]) -> None:
        self._peer.request("initialize", {"clientInfo": {"name": "itachi", "title": "Itachi agent",
                                                         "version": VERSION}})
        self._peer.notify("initialized", {})
        if resume:
            started = self._peer.request("thread/resume", {"threadId": resume})
        else:
            read_only = options.get("permission_mode") in READ_ONLY_MODES
            params: dict[str, Any] = {"cwd": str(cwd), "approvalPolicy": "untrusted",
                                      "sandbox": "read-only" if read_only else "workspace-write"}
            if options.get("model"):
                params["model"] = str(options["model"])
            started = self._peer.request("thread/start", params)
        thread = str(((started or {}).get("thread") or {}).get("id") or resume or "")
        self._forward(EngineEvent(EventKind.INIT, data={"session_id": thread}))
        self._peer.request("turn/start", {"threadId": thread, "input": [{"type": "text", "text": prompt}]})
        done = self._peer.pump(lambda m: m.get("method") == "turn/completed")
        if done is None:
            raise RpcError("codex ended before the turn completed")
        self._heard("turn/completed", done.get("params") or {})

    def _heard(self, method: str, params: Mapping[str, Any]) -> None:
        item = params.get("item") or {}
        if method == "item/started" and item.get("id"):
            self._items[str(item["id"])] = item
        for event in codex_event(method, params):
            self._forward(event)

    def _ask(self, method: str, params: Mapping[str, Any]) -> dict[str, str]:
        if method not in CODEX_APPROVALS:
            raise LookupError(method)
        ask = codex_ask(method, params, self._items.get(str(params.get("itemId") or "")))
        return codex_answer(method, self._relay.ask(ask.tool, ask.summary))


class _AcpTalk:
    """Gemini's ACP mode: initialize, session/new or session/load, session/prompt until it answers."""

    def __init__(self, proc: subprocess.Popen[str], lines: Any, relay: ApprovalRelay,
                 forward: Forward) -> None:
        self._relay, self._forward = relay, forward
        self._replaying = False
        self._peer = JsonRpcPeer(proc, lines, header=True, on_request=self._ask, on_notification=self._heard)

    def turn(self, prompt: str, resume: str | None, cwd: Path, options: Mapping[str, Any]) -> None:
        self._peer.request("initialize", {"protocolVersion": 1, "clientCapabilities": {
            "fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}})
        if resume:
            self._replaying = True  # loading a session replays its history as updates
            self._peer.request("session/load", {"sessionId": resume, "cwd": str(cwd), "mcpServers": []})
            self._replaying, session = False, resume
        else:
            session = str((self._peer.request("session/new", {"cwd": str(cwd), "mcpServers": []})
                           or {}).get("sessionId") or "")
        self._forward(EngineEvent(EventKind.INIT, data={"session_id": session}))
        answer = self._peer.request("session/prompt", {"sessionId": session,
                                                       "prompt": [{"type": "text", "text": prompt}]}) or {}
        stop = str(answer.get("stopReason") or "end_turn")
        ok = stop in ("end_turn", "max_turn_requests")
        self._forward(EngineEvent(EventKind.RESULT, "" if ok else stop, {"is_error": not ok}))

    def _heard(self, method: str, params: Mapping[str, Any]) -> None:
        if method == "session/update" and not self._replaying:
            for event in acp_event(params):
                self._forward(event)

    def _ask(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        if method != "session/request_permission":
            raise LookupError(method)
        ask = acp_ask(params)
        return acp_answer(params.get("options") or [], self._relay.ask(ask.tool, ask.summary))
