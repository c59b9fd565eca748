"""Run one command on a connected target: output streamed as it comes, exit code, timeout.

Output is decoded incrementally (a multi-byte character split across reads stays whole) and
handed to `on_output(stream, text)`. At the deadline, or when `stop` is set, the command's
process group is killed through a second channel and the run reports `timed_out`.
"""

from __future__ import annotations

import codecs
import select
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from agent.ssh.remote_shell import PID_MARKER, kill_command, wrap

if TYPE_CHECKING:
    import paramiko

OnOutput = Callable[[str, str], None]


class StopSignal(Protocol):
    def is_set(self) -> bool: ...


READ_BYTES = 32_768
KILL_TIMEOUT_S = 15.0


@dataclass(frozen=True)
class ExecResult:
    exit_code: int | None
    timed_out: bool = False
    stopped: bool = False
    remote_pid: int | None = None


class _PidFilter:
    """Strip the first stdout line (the remote pid) and remember it."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self._head = ""
        self.done = False

    def feed(self, text: str) -> str:
        if self.done:
            return text
        self._head += text
        if "\n" not in self._head:
            return ""
        line, rest = self._head.split("\n", 1)
        self.done = True
        marker = line.strip()
        if marker.startswith(PID_MARKER) and marker[len(PID_MARKER):].isdigit():
            self.pid = int(marker[len(PID_MARKER):])
            return rest
        return self._head  # not our marker (a shell printing first): pass everything through


def run_remote(transport: paramiko.Transport, command: str, platform: str, *, timeout_s: float,
               on_output: OnOutput, stop: StopSignal | None = None, env: dict[str, str] | None = None,
               cwd: str | None = None) -> ExecResult:
    channel = transport.open_session(timeout=KILL_TIMEOUT_S)
    channel.exec_command(wrap(command, platform, env=env, cwd=cwd))
    decoders = {name: codecs.getincrementaldecoder("utf-8")(errors="replace")
                for name in ("stdout", "stderr")}
    pid = _PidFilter()
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            got = _drain(channel, decoders, pid, on_output)
            if channel.exit_status_ready() and not channel.recv_ready() and not channel.recv_stderr_ready():
                break
            halted = stop is not None and stop.is_set()
            if halted or time.monotonic() >= deadline:
                _kill(transport, pid.pid, platform)
                return ExecResult(None, timed_out=not halted, stopped=halted, remote_pid=pid.pid)
            if not got:
                select.select([channel], [], [], 0.1)
        for name, decoder in decoders.items():
            tail = decoder.decode(b"", final=True)
            if tail:
                on_output(name, pid.feed(tail) if name == "stdout" else tail)
        return ExecResult(channel.recv_exit_status(), remote_pid=pid.pid)
    finally:
        channel.close()


def _drain(channel: paramiko.Channel, decoders: Mapping[str, codecs.IncrementalDecoder], pid: _PidFilter,
           on_output: OnOutput) -> bool:
    got = False
    while channel.recv_ready():
        got = True
        text = pid.feed(decoders["stdout"].decode(channel.recv(READ_BYTES)))
        if text:
            on_output("stdout", text)
    while channel.recv_stderr_ready():
        got = True
        text = decoders["stderr"].decode(channel.recv_stderr(READ_BYTES))
        if text:
            on_output("stderr", text)
    return got


def _kill(transport: paramiko.Transport, pid: int | None, platform: str) -> None:
    """Kill the remote command's process group (nothing to do if it never said its pid)."""
    if pid is None or not transport.is_active():
        return
    killer = transport.open_session(timeout=KILL_TIMEOUT_S)
    try:
        killer.exec_command(kill_command(pid, platform))
        killer.recv_exit_status()
    finally:
        killer.close()
