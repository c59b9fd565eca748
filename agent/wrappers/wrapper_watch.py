"""Watch one wrapper run of an engine and tell whether it ended on a rate limit.

A headless run (`-p`, codex `exec`) has its stdout and stderr copied through to the user line
by line, unchanged, while each stdout line goes through the agent's engine parser
(`chalicelib/contracts/engine_events.py`): the same recognition of a rate limit as a task's
(stream-json error fields, error events, failed results), and for plain-text output a failed
exit whose last words (or stderr) name a rate limit.

An interactive run keeps the terminal; once it has exited, a Claude run's transcript (the
newest of this directory, written during the run) is read the same way: the session ended on
a rate limit when its last assistant entry is an API error naming one.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from agent.engines.engine_run import RunSummary
from chalicelib.contracts.engine_events import EventKind, looks_rate_limited, parse_line
from hooks.memory_md import claude_config_dir, encode_cwd

TRANSCRIPT_TAIL = 200  # lines of the transcript read back


@dataclass
class WatchedRun:
    engine: str
    exit_code: int
    summary: RunSummary
    stderr_tail: list[str] = field(default_factory=list)
    last_output: str = ""

    @property
    def rate_limited(self) -> bool:
        if self.summary.rate_limited:
            return True
        if self.exit_code == 0:
            return False
        return any(looks_rate_limited(line) for line in [*self.stderr_tail[-5:], self.last_output])

    @property
    def reason(self) -> str:
        words = self.summary.rate_limit_message or next(
            (line for line in reversed(self.stderr_tail) if looks_rate_limited(line)), self.last_output)
        return " ".join(words.split())[:300] or "rate limited"


def _copy(stream: IO[str], sink: IO[str], each: Callable[[str], None]) -> None:
    for line in stream:
        sink.write(line)
        sink.flush()
        each(line)


def _forwarding_signals(proc: subprocess.Popen[Any]) -> Callable[[], None]:
    """Ctrl-C reaches the engine from the terminal itself; SIGTERM / SIGHUP are passed on."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous: dict[int, Any] = {signal.SIGINT: signal.signal(signal.SIGINT, signal.SIG_IGN)}
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None:
            previous[sig] = signal.signal(sig, lambda number, _frame: proc.send_signal(number))

    def restore() -> None:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return restore


def run_headless(engine: str, command: list[str], env: Mapping[str, str]) -> WatchedRun:
    summary = RunSummary(engine)
    run = WatchedRun(engine, 0, summary)

    def on_stdout(line: str) -> None:
        events = parse_line(engine, line)
        for event in events:
            summary.add(event)
        if line.strip() and all(e.kind == EventKind.OUTPUT for e in events):
            run.last_output = line.strip()

    def on_stderr(line: str) -> None:
        run.stderr_tail = [*run.stderr_tail[-19:], line.rstrip("\n")]

    proc = subprocess.Popen(command, env=dict(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, encoding="utf-8", errors="replace", bufsize=1)
    restore = _forwarding_signals(proc)
    try:
        assert proc.stdout is not None and proc.stderr is not None
        err = threading.Thread(target=_copy, args=(proc.stderr, sys.stderr, on_stderr), daemon=True)
        err.start()
        _copy(proc.stdout, sys.stdout, on_stdout)
        run.exit_code = proc.wait()
        err.join(timeout=5)
    finally:
        restore()
    return run


def run_interactive(engine: str, command: list[str], env: Mapping[str, str], cwd: Path) -> WatchedRun:
    started = time.time()
    proc = subprocess.Popen(command, env=dict(env))
    restore = _forwarding_signals(proc)
    try:
        code = proc.wait()
    finally:
        restore()
    summary = RunSummary(engine)
    if engine == "claude":
        for line in _transcript_tail(cwd, claude_config_dir(env), started):
            _read_transcript_line(summary, line)
    return WatchedRun(engine, code, summary)


def _transcript_tail(cwd: Path, config_dir: Path, since: float) -> list[str]:
    folder = config_dir / "projects" / encode_cwd(str(cwd))
    try:
        fresh = [p for p in folder.glob("*.jsonl") if p.stat().st_mtime >= since - 1]
        newest = max(fresh, key=lambda p: p.stat().st_mtime, default=None)
        return newest.read_text(encoding="utf-8", errors="replace").splitlines()[-TRANSCRIPT_TAIL:] \
            if newest else []
    except OSError:
        return []


def _read_transcript_line(summary: RunSummary, line: str) -> None:
    """Fold one transcript entry in; only the last assistant entry decides the rate limit."""
    try:
        entry = json.loads(line)
    except ValueError:
        return
    if not isinstance(entry, dict) or entry.get("type") != "assistant":
        return
    events = parse_line("claude", line)
    text = " ".join(e.text for e in events if e.kind in (EventKind.TEXT, EventKind.RATE_LIMIT))
    limited = any(e.kind == EventKind.RATE_LIMIT for e in events) or (
        bool(entry.get("isApiErrorMessage")) and looks_rate_limited(text))
    summary.rate_limited, summary.rate_limit_message = limited, text if limited else ""
    for event in events:
        if event.kind != EventKind.RATE_LIMIT:
            summary.add(event)
