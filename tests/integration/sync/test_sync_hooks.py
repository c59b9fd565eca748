"""The hooks sync files: SessionStart pulls, PostToolUse pushes, offline pushes wait in a spool."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.fake_itachi_api import FakeItachiApi, unreachable_url
from tests.support.orchestration import wait_for
from tests.support.sync_machines import Machine, make_machine

MARKER = "HOOK-SYNC-MARKER-51d2"
START = {"hook_event_name": "SessionStart", "source": "startup"}


def write_payload(machine: Machine, path: str, content: str) -> dict[str, object]:
    return {"hook_event_name": "PostToolUse", "tool_name": "Write",
            "tool_input": {"file_path": str(machine.repo / path), "content": content},
            "tool_response": {"filePath": str(machine.repo / path), "success": True}}


def hook_log(machine: Machine) -> str:
    log = machine.itachi_home / "logs" / "hooks.log"
    return log.read_text() if log.exists() else ""


def test_session_start_pulls_what_another_machine_pushed(machines: tuple[Machine, Machine]) -> None:
    a, b = machines
    a.write(".env", f"TOKEN={MARKER}\n")
    a.write("CLAUDE.md", "Use yarn.\n")
    assert a.itachi("sync", "push").returncode == 0

    started = b.hook("session_start", START)

    assert started.returncode == 0
    wait_for(lambda: (b.repo / "CLAUDE.md").exists() and (b.repo / ".env").exists(),
             what="the pulled files", timeout_s=60)
    assert b.read(".env") == a.read(".env") and b.read("CLAUDE.md") == b"Use yarn.\n"
    wait_for(lambda: "sync_worker pull ok written=2" in hook_log(b), what="the worker's log line")
    (start_line,) = [line for line in hook_log(b).splitlines() if " session_start " in line]
    assert "session_start ok" in start_line
    assert "sync=pulled" in start_line or "sync=background" in start_line


def test_session_start_with_nothing_new_starts_no_worker(machines: tuple[Machine, Machine]) -> None:
    _, b = machines
    assert b.hook("session_start", START).returncode == 0
    assert b.hook("session_start", START).returncode == 0
    assert "sync" not in hook_log(b)


def test_an_edit_of_a_synced_file_is_pushed_by_post_tool_use(machines: tuple[Machine, Machine]) -> None:
    a, b = machines
    a.write(".env", f"TOKEN={MARKER}\n")

    assert a.hook("post_tool_use", write_payload(a, ".env", f"TOKEN={MARKER}\n")).returncode == 0

    wait_for(lambda: ".env  v1" in a.itachi("sync", "files").stdout, what="the pushed file", timeout_s=60)
    assert b.itachi("sync", "pull").returncode == 0 and b.read(".env") == f"TOKEN={MARKER}\n".encode()


def test_an_offline_push_waits_in_the_spool_and_the_next_session_start_sends_it(
        machines: tuple[Machine, Machine]) -> None:
    a, _ = machines
    a.write("notes/todo.md", "ship it\n")
    offline = unreachable_url()

    assert a.hook("post_tool_use", write_payload(a, "notes/todo.md", "ship it\n"),
                  ITACHI_API_URL=offline).returncode == 0
    spool = a.itachi_home / "sync" / "pending"
    wait_for(lambda: "sync_worker push offline" in hook_log(a), what="the offline worker", timeout_s=60)
    (spooled,) = spool.glob("*.json")
    assert json.loads(spooled.read_text())["paths"] == ["notes/todo.md"]

    assert a.hook("session_start", START).returncode == 0

    wait_for(lambda: not list(spool.glob("*.json")), what="the spool to drain", timeout_s=60)
    assert "notes/todo.md  v1" in a.itachi("sync", "files").stdout


def test_post_tool_use_never_sends_the_contents_of_a_synced_file(tmp_path: Path) -> None:
    with FakeItachiApi() as fake:
        a = make_machine(tmp_path, "laptop", fake.url, fake.api_key)
        assert a.itachi("sync", "init").returncode == 0
        a.write(".env", f"TOKEN={MARKER}\n")

        assert a.hook("post_tool_use", write_payload(a, ".env", f"TOKEN={MARKER}\n")).returncode == 0

        (change,) = fake.posted("/api/memory/code-change")
        assert change["file"] == ".env" and change["diff"] == ""
        wait_for(lambda: fake.received("/api/sync/push"), what="the worker's push", timeout_s=60)
        assert MARKER not in json.dumps([r.body for r in fake.requests])
