"""`itachi mcp` over raw stdio lines: a request the SDK cannot read still gets a JSON-RPC answer."""

from __future__ import annotations

import json
import selectors
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from tests.conftest import RunningApi
from tests.integration.mcp.mcp_clients import TIMEOUT_S, stdio_env

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}


def _answer(stdout: IO[bytes], timeout_s: float) -> dict[str, Any]:
    with selectors.DefaultSelector() as selector:
        selector.register(stdout, selectors.EVENT_READ)
        assert selector.select(timeout_s), f"no answer within {timeout_s} s"
    answer: dict[str, Any] = json.loads(stdout.readline())
    return answer


def test_a_tool_call_holding_a_lone_surrogate_gets_a_json_rpc_error_and_the_next_call_its_result(
        api: RunningApi, tmp_path: Path) -> None:
    server = subprocess.Popen([sys.executable, "-m", "agent.cli", "mcp"], cwd=tmp_path, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, env=stdio_env(api, tmp_path / ".itachi-home",
                                                                    ITACHI_PROJECT="mcp-framing"))
    assert server.stdin is not None and server.stdout is not None
    try:
        def send(line: str) -> None:
            server.stdin.write(line.encode() + b"\n")  # type: ignore[union-attr]
            server.stdin.flush()  # type: ignore[union-attr]

        send(json.dumps(INITIALIZE))
        assert _answer(server.stdout, TIMEOUT_S)["id"] == 1
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        # json.dumps writes the lone surrogate as the escape `\ud800`: valid JSON, not valid Unicode
        send(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                         "params": {"name": "memory_search", "arguments": {"query": "\ud800"}}}))
        refused = _answer(server.stdout, 30)
        assert refused["id"] == 2 and refused["error"]["code"] == -32602
        assert "surrogate" in refused["error"]["message"]
        send(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                         "params": {"name": "memory_search", "arguments": {"query": "anything"}}}))
        answered = _answer(server.stdout, TIMEOUT_S)
        assert answered["id"] == 3 and answered["result"]["isError"] is False
    finally:
        server.stdin.close()
        server.wait(30)


