"""Messages to a running task (a subagent run's inbox) and the engine that takes them as turns.

A task whose engine options say `interactive` runs Claude Code reading stream-json user turns
on stdin, as an interactive session does: the prompt is the first turn, and each message the
server relays (`task_input` on the machine's queue) is written as the next turn once the
current turn's `result` is out. The engine's stdin closes when a turn ends with nothing waiting,
and the engine then finishes; a message arriving after that is not lost: the server keeps it
pending and turns it into a follow-up run. Each delivered message is reported as an `input`
event carrying its sequence number, which is how the server learns it was delivered.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from agent.engines import Engine
from agent.event_batcher import to_wire
from chalicelib.tasks.domain.engine_run import RunSummary

if TYPE_CHECKING:
    from agent.task_runner import TaskRunner


class TaskInbox:
    """Messages for one task in sequence order; each is handed out once."""

    def __init__(self) -> None:
        self._pending: dict[int, str] = {}
        self._seen: set[int] = set()
        self._lock = threading.Lock()

    def add(self, seq: int, text: str) -> None:
        with self._lock:
            if seq not in self._seen:
                self._seen.add(seq)
                self._pending[seq] = text

    def take(self) -> tuple[int, str] | None:
        with self._lock:
            if not self._pending:
                return None
            seq = min(self._pending)
            return seq, self._pending.pop(seq)


def write_turn(proc: subprocess.Popen[str], text: str) -> bool:
    if proc.stdin is None or proc.stdin.closed:
        return False
    line = {"type": "user", "message": {"role": "user", "content": text}}
    try:
        proc.stdin.write(json.dumps(line) + "\n")
        proc.stdin.flush()
    except (BrokenPipeError, ValueError, OSError):
        return False
    return True


def close_stdin(proc: subprocess.Popen[str]) -> None:
    if proc.stdin is not None:
        with contextlib.suppress(OSError):
            proc.stdin.close()


def take_turns(runner: TaskRunner, engine: Engine, proc: subprocess.Popen[str], prompt: str,
               lines: Iterator[str], summary: RunSummary) -> None:
    """Feed the prompt, then one waiting message per finished turn; close stdin when none waits."""
    if not write_turn(proc, prompt):
        return
    for line in lines:
        events = engine.parse(line)
        for event in events:
            summary.add(event)
            wire = to_wire(event)
            if wire is not None:
                runner.batcher.add(wire)
        runner.cost_guard.see(line, events)  # over the cost budget: stopped, no further turn
        for event in events:
            if event.kind != "result" or proc.stdin is None or proc.stdin.closed:
                continue
            message = runner.inbox.take()
            if message is None or runner.stopped or not write_turn(proc, message[1]):
                close_stdin(proc)
                continue
            runner.event("input", message[1][:2000], {"message_seq": message[0]})
    close_stdin(proc)
