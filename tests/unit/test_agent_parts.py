"""Agent pieces without I/O: engine command lines, configuration, message parsing, batching."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.agent_config import AgentConfig, default_machine_id
from agent.engines.definitions import engine_for
from agent.tasks.event_batcher import EventBatcher, to_wire
from chalicelib.contracts.agent_api import ProgressEvent
from chalicelib.contracts.engine_events import EngineEvent, EventKind
from chalicelib.contracts.machine_messages import TASK, BadMessage, MachineMessage, parse_machine_message


def test_claude_runs_headless_with_stream_json_and_accept_edits() -> None:
    argv = engine_for("claude", {}).task_argv("fix it")
    assert argv == ["claude", "-p", "fix it", "--output-format", "stream-json", "--verbose",
                    "--permission-mode", "acceptEdits"]


def test_a_claude_session_reads_stream_json_turns_on_stdin() -> None:
    argv = engine_for("claude", {}).session_argv()
    assert argv[:4] == ["claude", "-p", "--input-format", "stream-json"]


def test_codex_and_gemini_have_their_own_headless_forms_and_no_sessions() -> None:
    assert engine_for("codex", {}).task_argv("x")[:3] == ["codex", "exec", "--json"]
    gemini = engine_for("gemini", {}).task_argv("x")
    assert gemini[:5] == ["gemini", "-p", "x", "--output-format", "stream-json"]
    with pytest.raises(ValueError):
        engine_for("codex", {}).session_argv()


def test_an_engine_command_override_replaces_the_program_and_keeps_the_flags() -> None:
    engine = engine_for("claude", {"ITACHI_ENGINE_CLAUDE_COMMAND": "/opt/py fake.py --as claude"})
    assert engine.task_argv("go")[:5] == ["/opt/py", "fake.py", "--as", "claude", "-p"]


def test_the_machine_id_defaults_to_the_hostname_made_queue_safe() -> None:
    assert default_machine_id("Dev Box.local") == "Dev-Box"
    assert default_machine_id("...") == "machine"
    assert default_machine_id("build-dlq.corp") == "build_dlq"  # never another machine's DLQ name


def test_agent_settings_come_from_the_environment(tmp_path: Path) -> None:
    config = AgentConfig.load(tmp_path, {"ITACHI_MACHINE_ID": "m9", "ITACHI_AGENT_MAX_CONCURRENT": "3",
                                         "ITACHI_ENGINE_PRIORITY": "codex,claude",
                                         "ITACHI_AGENT_REPOS": "app=/src/app, lib=/src/lib",
                                         "ITACHI_FALLBACK_ACTIVE": "1"})
    assert (config.machine_id, config.max_concurrent) == ("m9", 3)
    assert config.engine_priority == ("codex", "claude")
    assert dict(config.repos) == {"app": "/src/app", "lib": "/src/lib"}
    assert config.fallback_active is True
    with pytest.raises(ValueError):
        AgentConfig.load(tmp_path, {"ITACHI_WORKTREE_POLICY": "sometimes"})


def test_machine_messages_round_trip_and_junk_is_poison() -> None:
    body = MachineMessage(TASK, task_id="t1", dispatch_seq=3).to_body()
    assert parse_machine_message(json.dumps(body)) == MachineMessage(TASK, task_id="t1", dispatch_seq=3)
    for raw in ("not json", '{"kind": "nope"}', '{"kind": "task"}', '{"kind": "task", "task_id": 5}'):
        with pytest.raises(BadMessage):
            parse_machine_message(raw)


def test_events_are_posted_in_batches_and_streamed_text_chunks_are_joined() -> None:
    posted: list[list[ProgressEvent]] = []
    batcher = EventBatcher(posted.append, interval_s=3600, max_batch=3)
    for chunk in ("Hel", "lo"):
        batcher.add(ProgressEvent("text", chunk, {"delta": True}))
    batcher.add(ProgressEvent("tool_use", "Write a.py"))
    assert posted == []
    batcher.add(ProgressEvent("text", "done"))
    assert [[e.text for e in batch] for batch in posted] == [["Hello", "Write a.py", "done"]]


def test_events_that_could_not_be_posted_are_kept_for_the_next_flush() -> None:
    calls: list[int] = []

    def flaky(batch: list[ProgressEvent]) -> None:
        calls.append(len(batch))
        if len(calls) == 1:
            raise ConnectionError("api down")

    batcher = EventBatcher(flaky, interval_s=0)
    batcher.add(ProgressEvent("text", "a"))
    assert batcher.flush() is False
    assert batcher.flush() is True
    assert calls == [1, 1]


def test_a_batch_the_api_refuses_is_dropped_and_the_next_one_still_goes() -> None:
    from chalicelib.contracts.api_transport import ApiError

    posted: list[list[str]] = []

    def refuse_bad(batch: list[ProgressEvent]) -> None:
        if any(e.text == "bad" for e in batch):
            raise ApiError(400, "events.0.text: invalid")
        posted.append([e.text for e in batch])

    batcher = EventBatcher(refuse_bad, interval_s=3600, max_batch=1)
    for text in ("ok-1", "bad", "ok-2"):
        batcher.add(ProgressEvent("text", text))
    assert batcher.flush() is True
    assert posted == [["ok-1"], ["ok-2"]]
    assert batcher.dropped == 1


def test_successful_tool_results_are_not_worth_posting() -> None:
    assert to_wire(EngineEvent(EventKind.TOOL_RESULT, data={"is_error": False})) is None
    wire = to_wire(EngineEvent(EventKind.TOOL_USE, "Edit", {"tool": "Edit", "file_path": "a.py"}))
    assert wire == ProgressEvent("tool_use", "Edit a.py", {"tool": "Edit", "file_path": "a.py"})
