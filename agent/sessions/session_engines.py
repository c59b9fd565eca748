"""The engine behind an interactive session, for one stint (until it closes or is rate limited).

Claude Code is one long-lived process reading a stream-json user turn per line on stdin.
Codex (`codex exec --json`) and Gemini CLI (`gemini -p ... --output-format stream-json`) have
no such input: each turn is one headless process, and every turn after the first resumes the
engine's own session (`codex exec resume <thread>`, `gemini --resume <session>`) whose id came
in the first turn's init line. Either way turns are taken strictly in sequence order and only
once the previous turn's `result` came back, and every parsed event goes to the session's events.

A turn that hits a rate limit asks the host whether to switch engines; if it may, the stint
ends there and the runner starts the next engine with a handoff.
"""

from __future__ import annotations

import contextlib
import queue
import subprocess
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from agent.engines import process_tree
from agent.engines.approval_relay import ApprovalRelay
from agent.engines.definitions import Engine
from agent.engines.engine_lines import pump, read_lines
from agent.engines.engine_run import RunSummary
from agent.engines.gated_turn import GATED, run_gated_turn
from agent.engines.plan_gate import PlanGate, gates_plan
from agent.tasks.task_inbox import write_line, write_turn
from chalicelib.contracts.engine_events import EngineEvent, EventKind


class TurnQueue:
    """User turns in sequence order, whatever order they arrived in.

    `prepare(seq, text)` makes a taken turn ready (its files fetched) outside the queue's lock.
    """

    def __init__(self, prepare: Callable[[int, str], str] | None = None) -> None:
        self._prepare = prepare
        self._inputs: dict[int, str] = {}
        self._next = 1
        self._cond = threading.Condition()
        self.closing = False

    def add(self, seq: int, text: str) -> None:
        with self._cond:
            if seq >= self._next:
                self._inputs.setdefault(seq, text)
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self.closing = True
            self._cond.notify_all()

    def next_turn(self, alive: Callable[[], bool]) -> str | None:
        """Wait for the next turn; None once the session is closing or the engine is gone."""
        with self._cond:
            while True:
                if self.closing or not alive():
                    return None
                if self._next in self._inputs:
                    seq, self._next = self._next, self._next + 1
                    text = self._inputs.pop(seq)
                    break
                self._cond.wait(0.25)
        return self._prepare(seq, text) if self._prepare is not None else text


class SessionHost(Protocol):
    """What a stint needs from its session runner."""

    turns: TurnQueue

    def forward(self, event: EngineEvent) -> None: ...

    def attach(self, proc: subprocess.Popen[str] | None) -> None: ...

    def may_switch(self, engine: str, reason: str) -> bool: ...


@dataclass
class Stint:
    """What one engine did in a session: its events folded, its exit, the turn it was limited on."""

    engine: str
    summary: RunSummary = field(init=False)
    exit_code: int | None = None
    limited_turn: str | None = None

    def __post_init__(self) -> None:
        self.summary = RunSummary(self.engine)


def run_stint(host: SessionHost, engine: Engine, first: str | None, *, cwd: Path,
              env: Mapping[str, str], stderr_path: Path, relay: ApprovalRelay | None = None,
              resume: str | None = None, options: Mapping[str, Any] | None = None) -> Stint:
    """Run `engine` for the session, starting with `first` (a handoff) or the next user turn;
    with a `relay`, Codex and Gemini ask it before their tool calls, and Claude in plan mode
    (`options`) asks it to approve its plan (`plan_gate`). With `resume` the stint continues that
    session of the engine's own (a terminal session picked up)."""
    stint = Stint(engine.name)
    with open(stderr_path, "a") as stderr:
        if engine.streams_input:
            gate = PlanGate(relay) if relay is not None and gates_plan(engine.name, options, relay) else None
            _stream(host, engine, first, stint, cwd, env, stderr, resume, options, gate)
        else:
            stint.summary.session_id = stint.summary.session_id or resume  # each turn resumes it
            _turns(host, engine, first, stint, cwd, env, stderr, relay if engine.name in GATED else None)
    return stint


def _consume(host: SessionHost, engine: Engine, stint: Stint, lines: Iterator[str],
             until_result: bool, answer: Callable[[str], bool] | None = None) -> bool:
    """Forward parsed lines (up to the turn's result line if asked), after `answer` took the engine's
    control requests; True if the turn was rate limited."""
    limited = False
    for line in lines:
        if answer is not None and answer(line):
            continue
        for event in engine.parse(line):
            stint.summary.add(event)
            host.forward(event)
            limited = limited or event.kind == EventKind.RATE_LIMIT
            if until_result and event.kind == EventKind.RESULT:
                return limited
    return limited


def _stream(host: SessionHost, engine: Engine, first: str | None, stint: Stint, cwd: Path,
            env: Mapping[str, str], stderr: object, resume: str | None, options: Mapping[str, Any] | None,
            gate: PlanGate | None) -> None:
    argv = engine.session_argv(options, resume=resume, prompt_tool=gate is not None)
    proc = process_tree.start(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stderr=stderr)  # type: ignore[arg-type]
    host.attach(proc)
    try:
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=pump, args=(proc.stdout, lines), daemon=True).start()
        reader = read_lines(proc, lines)
        answer = None if gate is None else (
            lambda line: gate.see(line, lambda reply: write_line(proc, reply)))
        turn = first if first is not None else host.turns.next_turn(lambda: proc.poll() is None)
        while turn is not None and write_turn(proc, turn):
            if _consume(host, engine, stint, reader, True, answer) and host.may_switch(
                    engine.name, stint.summary.rate_limit_message):
                stint.limited_turn = turn
                break
            turn = host.turns.next_turn(lambda: proc.poll() is None)
        if proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
        if stint.limited_turn is not None:
            process_tree.kill_tree(proc, grace_s=2.0)
        _consume(host, engine, stint, reader, False, answer)
        stint.exit_code = proc.wait()
    finally:
        host.attach(None)


def _turns(host: SessionHost, engine: Engine, first: str | None, stint: Stint, cwd: Path,
           env: Mapping[str, str], stderr: object, relay: ApprovalRelay | None) -> None:
    turn = first if first is not None else host.turns.next_turn(lambda: True)
    while turn is not None:
        if relay is not None:
            limited = _gated(host, engine, turn, stint, cwd, env, stderr, relay)
        else:
            limited = _headless(host, engine, turn, stint, cwd, env, stderr)
        if limited and host.may_switch(engine.name, stint.summary.rate_limit_message):
            stint.limited_turn = turn
            return
        if stint.exit_code != 0:
            host.forward(EngineEvent(EventKind.ERROR, f"{engine.name} exited with code {stint.exit_code}"))
        turn = host.turns.next_turn(lambda: True)


def _gated(host: SessionHost, engine: Engine, turn: str, stint: Stint, cwd: Path, env: Mapping[str, str],
           stderr: object, relay: ApprovalRelay) -> bool:
    limited = False

    def forward(event: EngineEvent) -> None:
        nonlocal limited
        stint.summary.add(event)
        host.forward(event)
        limited = limited or event.kind == EventKind.RATE_LIMIT

    stint.exit_code = run_gated_turn(engine, turn, stint.summary.session_id, cwd=cwd, env=env, stderr=stderr,
                                     relay=relay, forward=forward, attach=host.attach)
    return limited


def _headless(host: SessionHost, engine: Engine, turn: str, stint: Stint, cwd: Path, env: Mapping[str, str],
              stderr: object) -> bool:
    proc = process_tree.start(engine.turn_argv(turn, stint.summary.session_id), cwd=cwd, env=env,
                              stdin=subprocess.DEVNULL, stderr=stderr)  # type: ignore[arg-type]
    host.attach(proc)
    try:
        lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=pump, args=(proc.stdout, lines), daemon=True).start()
        limited = _consume(host, engine, stint, read_lines(proc, lines), until_result=False)
        stint.exit_code = proc.wait()
        if process_tree.group_alive(proc.pid):  # background children the turn left behind
            process_tree.kill_tree(proc, grace_s=0.5)
    finally:
        host.attach(None)
    return limited
