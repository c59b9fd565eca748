"""The real Claude Code CLI with Itachi's hooks, against a real Itachi API and a scripted model.

The hooks are installed by the real `itachi install-hooks --scope project` into a temporary
git repository (with an `origin` remote, so the project is `github.com/itachi-e2e/notes-service`).
Each `claude -p` run talks to a fresh `FakeAnthropic`; the hooks talk to the `api` fixture (the
app on a real HTTP server over its own Postgres database). What the model was sent is read back
from the fake, what the hooks stored is read back from the API and the session repository.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from hooks.memory_md import memory_md_path
from tests.conftest import REPO_ROOT, RunningApi
from tests.fakes.fake_anthropic import FakeAnthropic, Reply
from tests.support.claude_cli import ClaudeRun, claude_env, ensure_claude_cli, run_print

pytestmark = pytest.mark.e2e

PROJECT = "github.com/itachi-e2e/notes-service"
REMOTE = "https://github.com/itachi-e2e/notes-service.git"
DECISION = ("We decided to use pgvector HNSW indexes for all similarity search in this project, "
            "not IVFFlat.")
ACCEPT_EDITS = ("--permission-mode", "acceptEdits")
EXTRACTION_DEADLINE_S = 90  # the detached worker runs while the shared box is busy
T = TypeVar("T")


def stored_session(api: RunningApi, session_id: str) -> dict[str, Any] | None:
    with api.container.session_units() as uow:
        return uow.sessions.get(session_id)


@pytest.fixture(scope="session")
def claude() -> Path:
    return ensure_claude_cli()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with an origin remote and Itachi's hooks installed at project scope."""
    path = tmp_path / "notes-service"
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True, timeout=30)
    subprocess.run(["git", "-C", str(path), "remote", "add", "origin", REMOTE], check=True, timeout=30)
    itachi = Path(sys.executable).parent / "itachi"
    # Hooks only: the MCP server it would also register has its own test (test_claude_code_mcp.py).
    installed = subprocess.run([str(itachi), "install-hooks", "--scope", "project", "--no-mcp"], cwd=path,
                               capture_output=True, text=True, timeout=60)
    assert installed.returncode == 0, installed.stderr
    assert "warning" not in installed.stdout + installed.stderr
    return path


@pytest.fixture
def warm_api(api: RunningApi) -> RunningApi:
    """The API with its embedding model loaded, as `itachi up` has it before it reports ready."""
    api.container.warm_up()
    return api


@pytest.fixture
def itachi_home(tmp_path: Path) -> Path:
    path = tmp_path / "itachi-home"
    path.mkdir()
    return path


def hook_env(fake: FakeAnthropic, config_dir: Path, home: Path, api_url: str, api_key: str) -> dict[str, str]:
    """What the hooks need: claude_env passes nothing else through from this process."""
    return claude_env(fake.base_url, config_dir, {
        "ITACHI_HOME": str(home),
        "ITACHI_API_URL": api_url,
        "ITACHI_API_KEY": api_key,
        "PYTHONPATH": str(REPO_ROOT),
    })


def get(api: RunningApi, path: str, **query: Any) -> Any:
    url = f"{api.url}{path}?{urllib.parse.urlencode(query)}"
    request = urllib.request.Request(url, headers=api.headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def eventually(probe: Callable[[], T | None], deadline_s: float, what: str) -> T:
    """Poll probe until it returns something truthy; fail naming what never appeared."""
    end = time.monotonic() + deadline_s
    while True:
        try:
            found = probe()
        except urllib.error.HTTPError:
            found = None
        if found:
            return found
        if time.monotonic() > end:
            raise AssertionError(f"{what} did not appear within {deadline_s} s")
        time.sleep(0.5)


def session_id_of(run: ClaudeRun) -> str:
    return str(next(e["session_id"] for e in run.events if e.get("session_id")))


def code_changes(api: RunningApi, file: str) -> list[dict[str, Any]]:
    answer = get(api, "/api/memory/recent", project=PROJECT, category="code_change", limit=20)
    return [m for m in answer["results"] if file in json.dumps(m)]


def decisions(api: RunningApi) -> list[dict[str, Any]]:
    answer = get(api, "/api/memory/recent", project=PROJECT, category="decision", limit=20)
    return [m for m in answer["results"] if "HNSW" in m["content"]]


def outbox_entries(home: Path) -> list[Path]:
    """Spooled requests, claimed or not (rejected ones live in a subfolder of their own)."""
    root = home / "outbox"
    return sorted(p for p in root.iterdir() if p.is_file() and not p.name.startswith(".")) \
        if root.exists() else []


def settled_outbox(home: Path) -> list[Path] | None:
    """The spooled entries once none is claimed by a sender, else None."""
    entries = outbox_entries(home)
    return None if any(p.name.endswith(".claimed") for p in entries) else entries


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def hook_log(home: Path) -> list[str]:
    path = home / "logs" / "hooks.log"
    return path.read_text().splitlines() if path.exists() else []


def test_a_decision_stated_in_one_session_is_remembered_and_shown_to_the_model_in_the_next(
    claude: Path, repo: Path, itachi_home: Path, tmp_path: Path, warm_api: RunningApi
) -> None:
    api = warm_api
    config_dir = tmp_path / "claude-config"
    notes = repo / "docs" / "decisions.md"
    first_script = [
        Reply.tool_use("Write", {"file_path": str(notes),
                                 "content": "# Decisions\n\n- Similarity search: pgvector HNSW indexes.\n"}),
        Reply.text("Recorded the index decision in docs/decisions.md."),
    ]
    with FakeAnthropic(first_script) as fake:
        env = hook_env(fake, config_dir, itachi_home, api.url, api.key)
        first = run_print(claude, f"{DECISION} Please write it down in docs/decisions.md.",
                          cwd=repo, env=env, args=ACCEPT_EDITS)
    assert first.returncode == 0, first.stderr
    assert first.results[-1]["result"] == "Recorded the index decision in docs/decisions.md."
    assert notes.exists()
    session_id = session_id_of(first)

    changes = eventually(lambda: code_changes(api, "docs/decisions.md"), 15, "the code_change memory")
    assert len(changes) == 1
    change = changes[0]
    assert change["project"] == PROJECT
    assert "decisions.md" in change["content"]
    stored = eventually(lambda: (s := stored_session(api, session_id)) and s["ended_at"] and s, 15,
                        "the completed session")
    assert stored["project"] == PROJECT
    assert stored["tool_successes"] == 1
    assert any(DECISION in turn["text"] for turn in stored["transcript"] if turn["role"] == "user")
    assert any("Recorded the index decision" in turn["text"] for turn in stored["transcript"])
    decision = eventually(lambda: decisions(api), EXTRACTION_DEADLINE_S,
                          "the decision extracted by the background worker")[0]
    assert decision["content"].startswith("We decided to use pgvector HNSW indexes")
    eventually(lambda: not outbox_entries(itachi_home), 30, "an empty outbox")

    question = "Which index type should I use for similarity search on the embeddings table?"
    with FakeAnthropic([Reply.text("HNSW, as the project decided.")]) as fake:
        env = hook_env(fake, config_dir, itachi_home, api.url, api.key)
        second = run_print(claude, question, cwd=repo, env=env)
        sent = fake.all_request_text()
    assert second.returncode == 0, second.stderr
    assert second.results[-1]["result"] == "HNSW, as the project decided."
    injected = [chunk[:6000] for chunk in sent.split("hook additional context: ")[1:]]
    assert any(decision["content"] in chunk for chunk in injected), injected
    memory_md = memory_md_path(str(repo), config_dir).read_text()
    assert decision["content"] in memory_md


def test_with_the_api_down_the_session_runs_normally_and_the_outbox_replays_once_it_is_back(
    claude: Path, repo: Path, itachi_home: Path, tmp_path: Path, warm_api: RunningApi
) -> None:
    api = warm_api
    config_dir = tmp_path / "claude-config"
    down_url = f"http://127.0.0.1:{closed_port()}"
    target = repo / "offline.md"
    script = [
        Reply.tool_use("Write", {"file_path": str(target), "content": "written while the API was down\n"}),
        Reply.text("Wrote offline.md."),
    ]
    with FakeAnthropic(script) as fake:
        env = hook_env(fake, config_dir, itachi_home, down_url, api.key)
        offline = run_print(claude, "Please create offline.md with a one-line note for the team.",
                            cwd=repo, env=env, args=ACCEPT_EDITS)
    assert offline.returncode == 0, offline.stderr
    assert offline.results[-1]["result"] == "Wrote offline.md."
    assert offline.results[-1]["is_error"] is False
    assert target.read_text() == "written while the API was down\n"
    log = hook_log(itachi_home)
    assert log and all(" ok " in line + " " for line in log), log
    assert not any(" deadline " in line for line in log)

    # The detached extraction worker may still be trying; wait until nothing is claimed.
    spooled = eventually(lambda: settled_outbox(itachi_home), 30, "a settled outbox")
    paths = sorted({json.loads(p.read_text())["path"] for p in spooled})
    assert paths == ["/api/memory/code-change", "/api/session/complete", "/api/session/edit",
                     "/api/session/event", "/api/session/extract-insights"]
    offline_id = session_id_of(offline)
    assert stored_session(api, offline_id) is None
    assert code_changes(api, "offline.md") == []

    with FakeAnthropic([Reply.text("Back online.")]) as fake:
        env = hook_env(fake, config_dir, itachi_home, api.url, api.key)
        later = run_print(claude, "hi", cwd=repo, env=env)
    assert later.returncode == 0, later.stderr

    eventually(lambda: not outbox_entries(itachi_home), 60, "an empty outbox after the replay")
    assert not (itachi_home / "outbox" / "rejected").exists() or \
        not any((itachi_home / "outbox" / "rejected").iterdir())
    change = code_changes(api, "offline.md")
    assert len(change) == 1 and change[0]["project"] == PROJECT
    replayed = stored_session(api, offline_id)
    assert replayed is not None and replayed["ended_at"] is not None
    assert replayed["tool_successes"] == 1
    assert any("offline.md" in turn["text"] for turn in replayed["transcript"])
    assert any(" replayed=" in line for line in hook_log(itachi_home))
