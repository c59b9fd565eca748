"""JSON-RPC 2.0 over an engine's stdin/stdout, one message per line (Codex app-server, Gemini ACP).

The agent is the client: it sends requests and waits for their answers, and meanwhile answers
the engine's own requests (approvals) and hears its notifications, all on the calling thread.
Codex omits the `"jsonrpc": "2.0"` member on the wire; ACP requires it (`header`).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator, Mapping
from typing import Any

Handler = Callable[[str, Mapping[str, Any]], Any]
METHOD_NOT_FOUND = -32601


class RpcError(Exception):
    """The engine answered a request with an error, or went away before answering."""


class JsonRpcPeer:
    def __init__(self, proc: subprocess.Popen[str], lines: Iterator[str], *, header: bool,
                 on_request: Handler, on_notification: Handler) -> None:
        self._proc, self._lines, self._header = proc, lines, header
        self._on_request, self._on_notification = on_request, on_notification
        self._next_id = 0

    def notify(self, method: str, params: Mapping[str, Any]) -> None:
        self._send({"method": method, "params": dict(params)})

    def request(self, method: str, params: Mapping[str, Any]) -> Any:
        """Send a request and handle what the engine says until its answer arrives."""
        self._next_id += 1
        ident = self._next_id
        self._send({"id": ident, "method": method, "params": dict(params)})
        answer = self.pump(lambda message: message.get("id") == ident and "method" not in message)
        if answer is None:
            raise RpcError(f"the engine ended before answering {method}")
        if "error" in answer:
            error = answer["error"]
            raise RpcError(str(error.get("message") or error) if isinstance(error, dict) else str(error))
        return answer.get("result")

    def pump(self, until: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
        """Handle incoming messages until one satisfies `until` (returned), or None at EOF."""
        for line in self._lines:
            try:
                message = json.loads(line)
            except ValueError:
                continue  # log chatter on stdout
            if not isinstance(message, dict):
                continue
            if until(message):
                return message
            if "method" in message and "id" in message:
                self._answer(message)
            elif "method" in message:
                self._on_notification(str(message["method"]), message.get("params") or {})
        return None

    def _answer(self, message: Mapping[str, Any]) -> None:
        try:
            result = self._on_request(str(message["method"]), message.get("params") or {})
        except LookupError:
            self._send({"id": message["id"], "error": {"code": METHOD_NOT_FOUND,
                                                       "message": f"{message['method']} is not supported"}})
            return
        self._send({"id": message["id"], "result": result})

    def _send(self, message: dict[str, Any]) -> None:
        if self._header:
            message = {"jsonrpc": "2.0", **message}
        stdin = self._proc.stdin
        if stdin is None or stdin.closed:
            raise RpcError("the engine's input is closed")
        try:
            stdin.write(json.dumps(message) + "\n")
            stdin.flush()
        except (BrokenPipeError, ValueError, OSError) as exc:
            raise RpcError(f"the engine's input is closed: {exc}") from exc
