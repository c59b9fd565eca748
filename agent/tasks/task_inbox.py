"""Messages to a running task and the engine turns they become.

Every task message arrives on the machine's queue (`task_input`, with the message's sequence
number and its mode, `steer` or `queue`). Claude Code runs each task reading stream-json user
turns on stdin: the prompt is the first turn, a `steer` message is written into the running
turn at once, and a `queue` message (or one arriving between turns) waits until the turn's
`result` and is written as the next turn. The engine's stdin closes when a turn ends with
nothing waiting, and the engine then finishes. Claude Code takes a message written mid-turn
into the turn's next model request (beside the running tool's result); one written while the
turn's last request is in flight becomes a turn of its own, which it still runs (and answers
with a `result` of its own) after stdin closes, so nothing written is lost. Codex and Gemini CLI
run one headless process per turn: a message waits for the process to end and becomes a turn
that resumes the engine's own session (`engine_process.run_engine`).

A message with files (a photo sent to the task's topic) is made ready first on the inbox's own
thread: its files fetched and saved in the worktree and named in its text (`TaskRunner.receive`).

Each message is acknowledged by a task event in the topic: `input_queued` when it waits, `input`
(carrying `message_seq`, which is how the server learns it was delivered) when the engine got it.
A message delivered twice by SQS is taken once (its sequence number).
"""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from agent.agent_context import log
from agent.engines.definitions import Engine
from agent.engines.engine_run import RunSummary
from agent.tasks.engine_output import take_line
from chalicelib.tasks.domain.steering import (
    INPUT_KIND,
    NEXT_TURN,
    QUEUED,
    QUEUED_KIND,
    STEERED,
    acknowledgement,
    delivery,
)

if TYPE_CHECKING:
    from agent.engines.plan_gate import PlanGate
    from agent.tasks.task_runner import TaskRunner

Report = Callable[[str, str, dict[str, Any]], None]
Prepare = Callable[[str], str]  # a message's text -> the text the engine gets (its files saved, named)


class TaskInbox:
    """Messages for one task in sequence order; each is delivered once, steered or as a turn."""

    def __init__(self, report: Report) -> None:
        self._report = report
        # Keyed by (seq, mode): a subagent run's messages ("" mode) are numbered apart from the
        # task's own (its events' seq), and both may reach one task.
        self._pending: dict[tuple[int, str], str] = {}
        self._seen: set[tuple[int, str]] = set()
        self._lock = threading.Lock()
        self._live: subprocess.Popen[str] | None = None  # a stream-json engine whose turn runs
        self._preparing = 0  # messages on the preparing thread, not delivered yet
        self._preparations: queue.SimpleQueue[tuple[int, str, str, Prepare | None]] | None = None

    def add(self, seq: int, text: str, mode: str = "", prepare: Prepare | None = None) -> None:
        """Steer `text` into the running turn, or keep it for the next one (see the module doc).

        `prepare` makes a message with files ready (fetched and named in its text) on the inbox's
        own thread, so the queue's reader never waits for a download; a message that arrives while
        one is being prepared waits its turn there too, and the order holds."""
        with self._lock:
            if (seq, mode) in self._seen:
                return
            self._seen.add((seq, mode))
            later = prepare is not None or self._preparing > 0
            self._preparing += later
        if later:
            self._worker().put((seq, text, mode, prepare))
        else:
            self._deliver(seq, text, mode)

    def _worker(self) -> queue.SimpleQueue[tuple[int, str, str, Prepare | None]]:
        with self._lock:
            if self._preparations is None:
                self._preparations = queue.SimpleQueue()
                threading.Thread(target=self._prepare_each, args=(self._preparations,), daemon=True,
                                 name="task-inbox").start()
            return self._preparations

    def _prepare_each(self, waiting: queue.SimpleQueue[tuple[int, str, str, Prepare | None]]) -> None:
        while True:
            seq, text, mode, prepare = waiting.get()
            try:
                text = prepare(text) if prepare is not None else text
            except Exception:  # delivered without its files rather than lost
                log.exception("a task message's files could not be prepared")
            with self._lock:
                self._preparing -= 1
            self._deliver(seq, text, mode)

    def _deliver(self, seq: int, text: str, mode: str) -> None:
        with self._lock:
            live = self._live
            # Only a stream-json engine's running turn is ever live.
            how = delivery(mode, streams_input=live is not None, turn_running=live is not None)
            if how == STEERED and live is not None and write_turn(live, text):
                self._acknowledge(INPUT_KIND, STEERED, seq, text)
                return
            self._pending[(seq, mode)] = text
        self._acknowledge(QUEUED_KIND, QUEUED, seq, text)

    def take(self) -> tuple[int, str] | None:
        """The first waiting message, reported as delivered as the next turn."""
        with self._lock:
            if not self._pending:
                return None
            key = min(self._pending)
            text, seq = self._pending.pop(key), key[0]
        self._acknowledge(INPUT_KIND, NEXT_TURN, seq, text)
        return seq, text

    def _acknowledge(self, kind: str, how: str, seq: int, text: str) -> None:
        self._report(kind, acknowledgement(how, text), {"message_seq": seq, "delivery": how})

    def start_turn(self, proc: subprocess.Popen[str], text: str) -> bool:
        """Write a turn to a stream-json engine; steering goes to it until the turn ends."""
        with self._lock:
            if not write_turn(proc, text):
                self._live = None
                return False
            self._live = proc
            return True

    def end_turn(self, proc: subprocess.Popen[str], *, stopped: bool) -> None:
        """The turn's result is out: write the next waiting message as a turn, else close stdin."""
        with self._lock:
            self._live = None
            waiting = bool(self._pending) and not stopped
        message = self.take() if waiting else None
        if message is None or not self.start_turn(proc, message[1]):
            close_stdin(proc)

    def detach(self) -> None:
        with self._lock:
            self._live = None

    def undelivered(self) -> list[str]:
        """Forget the messages still waiting (the task has ended) and return them."""
        with self._lock:
            texts = [self._pending[key] for key in sorted(self._pending)]
            self._pending.clear()
            return texts


def write_turn(proc: subprocess.Popen[str], text: str) -> bool:
    return write_line(proc, json.dumps({"type": "user", "message": {"role": "user", "content": text}}))


def write_line(proc: subprocess.Popen[str], line: str) -> bool:
    if proc.stdin is None or proc.stdin.closed:
        return False
    try:
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
    except (BrokenPipeError, ValueError, OSError):
        return False
    return True


def close_stdin(proc: subprocess.Popen[str]) -> None:
    if proc.stdin is not None:
        with contextlib.suppress(OSError):
            proc.stdin.close()


def take_turns(runner: TaskRunner, engine: Engine, proc: subprocess.Popen[str], prompt: str,
               lines: Iterator[str], summary: RunSummary, gate: PlanGate | None = None) -> None:
    """Feed the prompt, then one waiting message per finished turn; close stdin when none waits.
    With a `gate`, Claude's permission questions (its plan) are answered on its stdin."""
    if not runner.inbox.start_turn(proc, prompt):
        return
    try:
        for line in lines:
            if gate is not None and gate.see(line, lambda answer: write_line(proc, answer)):
                continue
            events = take_line(runner, engine, line, summary)  # over the cost budget: stopped, no more turns
            if any(e.kind == "result" for e in events) and proc.stdin is not None and not proc.stdin.closed:
                runner.inbox.end_turn(proc, stopped=runner.stopped)
    finally:
        runner.inbox.detach()
        close_stdin(proc)
