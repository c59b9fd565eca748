"""Steering a running task: the delivery rule, the service's sends, and the agent's inbox."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from typing import Any

import pytest

from agent.tasks.task_inbox import TaskInbox
from chalicelib.contracts.machine_messages import TASK_INPUT, parse_machine_message
from chalicelib.kernel.errors import Conflict, InvalidInput, NotFound
from chalicelib.tasks.domain.steering import (
    MAX_MESSAGE,
    QUEUE,
    QUEUED,
    STEER,
    STEERED,
    acknowledgement,
    check_message,
    delivery,
    parse_mode,
)
from tests.support.task_world import TaskWorld


@pytest.mark.parametrize(("mode", "streams_input", "turn_running", "expected"), [
    (STEER, True, True, STEERED),
    (STEER, False, True, QUEUED),  # Codex and Gemini take no input mid-turn
    (STEER, True, False, QUEUED),  # between turns: the next turn
    (QUEUE, True, True, QUEUED),
])
def test_only_steer_mode_into_a_running_stream_json_turn_steers(
        mode: str, streams_input: bool, turn_running: bool, expected: str) -> None:
    assert delivery(mode, streams_input=streams_input, turn_running=turn_running) == expected


def test_the_mode_and_the_message_are_checked() -> None:
    assert parse_mode(" Queue ") == QUEUE
    with pytest.raises(InvalidInput, match="steer or queue"):
        parse_mode("later")
    assert check_message("  run the linter \n") == "run the linter"
    for bad in ("  ", "x" * (MAX_MESSAGE + 1)):
        with pytest.raises(InvalidInput, match="1 to"):
            check_message(bad)


def test_an_acknowledgement_says_how_the_message_went_on_one_line() -> None:
    said = acknowledgement(STEERED, "also\nthe README")
    assert said == "📨 delivered into the running turn: also the README"
    assert acknowledgement(QUEUED, "y" * 500).endswith("y" * 199 + "…")


def test_a_message_to_a_running_task_goes_to_its_machine_once_per_key() -> None:
    world = TaskWorld()
    world.heartbeat("m1")
    task = world.running("m1")

    first = world.tasks.steer(task.id, " also update the README ", mode=STEER, key="telegram:7")
    again = world.tasks.steer(task.id, " also update the README ", mode=STEER, key="telegram:7")

    assert first is not None and again is None
    sent = [parse_machine_message(json.dumps(b)) for b in world.queues.sent_to("m1")
            if b["kind"] == TASK_INPUT]
    assert [(m.task_id, m.seq, m.text, m.mode) for m in sent] == [
        (task.id, first.seq, "also update the README", STEER)]
    assert [e.data["mode"] for e in world.events(task.id) if e.kind == "user_input"] == [STEER]


def test_a_message_to_a_task_that_is_not_running_is_refused() -> None:
    world = TaskWorld()
    task = world.create()

    with pytest.raises(InvalidInput, match="is queued, not running"):
        world.tasks.steer(task.id, "hurry", mode=STEER, key="telegram:8")
    assert world.queues.machine_messages == []


def test_a_message_with_a_file_needs_no_text_and_only_the_machine_running_the_task_may_fetch_it() -> None:
    world = TaskWorld()
    world.heartbeat("m1")
    task = world.running("m1")
    shot = {"name": "photo-abc.jpg", "size": 68, "file_id": "tg-file-1"}

    event = world.tasks.steer(task.id, "", mode=STEER, key="telegram:9", files=[shot])

    assert event is not None
    (sent,) = [parse_machine_message(json.dumps(b)) for b in world.queues.sent_to("m1")
               if b["kind"] == TASK_INPUT]
    assert (sent.seq, sent.text, sent.files) == (event.seq, "", ("photo-abc.jpg",))
    assert world.runs.attachment(task.id, "m1", event.seq, 0) == shot
    with pytest.raises(Conflict, match="runs on m1, not m2"):
        world.runs.attachment(task.id, "m2", event.seq, 0)
    with pytest.raises(NotFound, match="has no file 1"):
        world.runs.attachment(task.id, "m1", event.seq, 1)
    with pytest.raises(InvalidInput, match="1 to"):
        world.tasks.steer(task.id, " ", mode=STEER, key="telegram:10")


def engine() -> subprocess.Popen[str]:
    """A process that reads its stdin to the end, standing in for a stream-json engine."""
    return subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE,
                            text=True)


def test_the_inbox_steers_a_running_turn_and_queues_between_turns_each_message_once() -> None:
    reports: list[tuple[str, str, dict[str, Any]]] = []
    inbox = TaskInbox(lambda kind, text, data: reports.append((kind, text, data)))
    proc = engine()
    try:
        assert inbox.start_turn(proc, "the prompt")
        inbox.add(3, "steer me", STEER)
        inbox.add(3, "steer me", STEER)  # SQS delivered it twice
        inbox.add(4, "later", QUEUE)
        inbox.end_turn(proc, stopped=False)  # the turn's result: "later" becomes the next turn
        inbox.end_turn(proc, stopped=False)  # nothing waits: stdin closes
        inbox.add(5, "too late", STEER)
        assert proc.wait(timeout=10) == 0
    finally:
        proc.kill()

    assert [(kind, data["message_seq"], data["delivery"]) for kind, _, data in reports] == [
        ("input", 3, "steered"), ("input_queued", 4, "queued"), ("input", 4, "next_turn"),
        ("input_queued", 5, "queued")]
    assert inbox.undelivered() == ["too late"]


def test_a_message_sent_after_one_whose_files_are_being_fetched_reaches_the_engine_after_it() -> None:
    reports: list[tuple[str, str, dict[str, Any]]] = []
    inbox = TaskInbox(lambda kind, text, data: reports.append((kind, text, data)))
    fetched = threading.Event()

    def slow_files(text: str) -> str:
        fetched.wait(10)
        return f"Attached: itachi-attachments/logs\n\n{text}"

    proc = engine()
    try:
        assert inbox.start_turn(proc, "the prompt")
        inbox.add(3, "look at these logs", STEER, prepare=slow_files)
        inbox.add(4, "and fix it", STEER)
        assert reports == []  # the text waits behind the files
        fetched.set()
        deadline = time.monotonic() + 10
        while len(reports) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        inbox.end_turn(proc, stopped=False)
        assert proc.wait(timeout=10) == 0
    finally:
        proc.kill()

    assert [(data["message_seq"], text) for _, text, data in reports] == [
        (3, "📨 delivered into the running turn: Attached: itachi-attachments/logs look at these logs"),
        (4, "📨 delivered into the running turn: and fix it")]
