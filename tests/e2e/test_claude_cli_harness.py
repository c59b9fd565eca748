"""The real Claude Code CLI runs offline against FakeAnthropic, in a temporary git repo."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.fakes.fake_anthropic import FakeAnthropic, Reply
from tests.support.claude_cli import (
    CLAUDE_CODE_VERSION,
    StreamJsonSession,
    claude_env,
    ensure_claude_cli,
    run_print,
)

pytestmark = pytest.mark.e2e

ACCEPT_EDITS = ("--permission-mode", "acceptEdits")


@pytest.fixture(scope="session")
def claude() -> Path:
    return ensure_claude_cli()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True, timeout=30)
    return path


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    path = tmp_path / "claude-config"
    path.mkdir()
    return path


def test_the_pinned_cli_is_installed_once_and_found_afterwards_without_installing_again(claude: Path) -> None:
    marker = claude.parents[2] / ".itachi-installed"
    installed = (marker.stat().st_mtime_ns, claude.resolve().stat().st_mtime_ns)

    again = ensure_claude_cli()

    version = subprocess.run([str(again), "--version"], capture_output=True, text=True, timeout=30)
    assert again == claude
    assert (marker.stat().st_mtime_ns, claude.resolve().stat().st_mtime_ns) == installed
    assert version.stdout.startswith(CLAUDE_CODE_VERSION)


def test_a_scripted_write_tool_call_creates_the_file_and_the_run_ends_with_a_result(
    claude: Path, repo: Path, config_dir: Path
) -> None:
    notes = repo / "notes.md"
    script = [
        Reply.tool_use("Write", {"file_path": str(notes), "content": "use sqlite\n"}, text="Writing."),
        Reply.text("Wrote notes.md."),
    ]
    with FakeAnthropic(script) as fake:
        env = claude_env(fake.base_url, config_dir)
        run = run_print(claude, "write the notes", cwd=repo, env=env, args=ACCEPT_EDITS)

    assert run.returncode == 0, run.stderr
    assert notes.read_text() == "use sqlite\n"
    assert run.events[-1]["type"] == "result"
    assert run.events[-1]["is_error"] is False
    assert run.events[-1]["result"] == "Wrote notes.md."
    assert fake.remaining == 0
    assert "File created successfully" in fake.all_request_text()
    assert [r.query for r in fake.conversation_requests()] == ["beta=true", "beta=true"]


def test_a_project_user_prompt_submit_hook_runs_without_approval_and_reaches_the_model(
    claude: Path, repo: Path, config_dir: Path, tmp_path: Path
) -> None:
    hook = tmp_path / "remember_hook.py"
    output = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "MARKER-123"}}
    hook.write_text(f"import sys\nsys.stdin.read()\nprint({json.dumps(json.dumps(output))})\n")
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(hook))}"
    _write_project_hook(repo, "UserPromptSubmit", command)

    with FakeAnthropic([Reply.text("Noted.")]) as fake:
        env = claude_env(fake.base_url, config_dir)
        run = run_print(claude, "what did we decide?", cwd=repo, env=env, args=ACCEPT_EDITS)

    assert run.returncode == 0, run.stderr
    assert run.results[-1]["result"] == "Noted."
    assert "MARKER-123" in fake.all_request_text()


def test_two_stream_json_turns_are_answered_with_two_results(
    claude: Path, repo: Path, config_dir: Path
) -> None:
    with FakeAnthropic([Reply.text("first answer"), Reply.text("second answer")]) as fake:
        env = claude_env(fake.base_url, config_dir)
        with StreamJsonSession(claude, cwd=repo, env=env, args=ACCEPT_EDITS) as session:
            first = session.send("hello one")
            second = session.send("hello two")
            returncode = session.close()

    assert [first[-1]["result"], second[-1]["result"]] == ["first answer", "second answer"]
    assert returncode == 0
    later_request = fake.conversation_requests()[-1].body
    assert "first answer" in json.dumps(later_request["messages"])


def test_compaction_is_answered_aside_without_consuming_the_script(
    claude: Path, repo: Path, config_dir: Path
) -> None:
    with FakeAnthropic([Reply.text("before"), Reply.text("after")]) as fake:
        env = claude_env(fake.base_url, config_dir)
        with StreamJsonSession(claude, cwd=repo, env=env, args=ACCEPT_EDITS) as session:
            session.send("hello")
            session.send("/compact")
            last = session.send("go on")

    assert last[-1]["result"] == "after"
    assert [r.kind for r in fake.requests] == ["conversation", "compact", "conversation"]


def test_a_rate_limit_reply_ends_the_run_with_an_api_error_result(
    claude: Path, repo: Path, config_dir: Path
) -> None:
    with FakeAnthropic([Reply.error(429, "Rate limited by the fake.")]) as fake:
        env = claude_env(fake.base_url, config_dir)
        run = run_print(claude, "do the task", cwd=repo, env=env, args=ACCEPT_EDITS)

    result = run.results[-1]
    assert run.returncode == 1
    assert result["is_error"] is True
    assert result["api_error_status"] == 429
    assert result["result"] == "API Error: Request rejected (429) · Rate limited by the fake."
    assert len(fake.requests) == 1


def test_a_run_that_outlives_its_timeout_is_killed_with_its_hooks(
    claude: Path, repo: Path, config_dir: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "hook.pid"
    hook = tmp_path / "slow_hook.py"
    hook.write_text(
        f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(600)\n"
    )
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(hook))}"
    _write_project_hook(repo, "UserPromptSubmit", command)

    # The run outlives its time once the hook runs (the hook alone would run 10 minutes); the
    # timeout is only the deadline for the CLI to start it on a busy box.
    def hook_runs() -> bool:
        return pid_file.exists() and pid_file.read_text().strip() != ""

    with FakeAnthropic() as fake, pytest.raises(subprocess.TimeoutExpired):
        run_print(claude, "hi", cwd=repo, env=claude_env(fake.base_url, config_dir), timeout=120,
                  give_up_when=hook_runs)

    assert pid_file.exists(), "the CLI started the hook"
    assert not _is_running(int(pid_file.read_text()))


def test_the_fake_answers_a_non_streaming_request_with_one_json_message() -> None:
    body = {"model": "m", "max_tokens": 10, "tools": [{"name": "Write"}], "stream": False}
    with FakeAnthropic([Reply.tool_use("Write", {"file_path": "/x", "content": "y"})]) as fake:
        request = urllib.request.Request(
            f"{fake.base_url}/v1/messages?beta=true",
            data=json.dumps({**body, "messages": [{"role": "user", "content": "hi"}]}).encode(),
            headers={"Content-Type": "application/json", "x-api-key": "dummy",
                     "anthropic-version": "2023-06-01"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            message = json.load(response)

    assert message["stop_reason"] == "tool_use"
    assert message["content"][0]["input"] == {"file_path": "/x", "content": "y"}
    assert fake.all_request_text() == "hi"


def _write_project_hook(repo: Path, event: str, command: str) -> None:
    settings = {"hooks": {event: [{"hooks": [{"type": "command", "command": command}]}]}}
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps(settings))


def _is_running(pid: int) -> bool:
    """Tell whether `pid` lives; a zombie nobody reaped yet counts as dead."""
    status = Path(f"/proc/{pid}/status")
    try:
        return "\tZ" not in status.read_text().split("State:")[1].splitlines()[0]
    except FileNotFoundError:
        return False
