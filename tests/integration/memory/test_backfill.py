"""`itachi backfill`: past transcripts and memory files through the server's own extraction and
rule import, keyed so that a second run adds nothing. Real Postgres, the API over HTTP, the CLI
as a user runs it, the Claude Code transcript sample and a generated 1,000-session corpus."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from agent.transcripts import claude_transcripts, codex_transcripts
from agent.transcripts.backfill import Backfill
from bench.backfill import write_corpus
from chalicelib.contracts.api_transport import ApiClient
from chalicelib.contracts.local_home import ClientConfig
from chalicelib.contracts.project_identity import project_for
from tests.conftest import RunningApi

REPO_ROOT = Path(__file__).resolve().parents[3]
SAMPLE = (REPO_ROOT / ".." / "shared" / "claude-code" / "samples" / "transcript.jsonl").resolve()
SAMPLE_CWD = "/home/dev/myproject"
SESSIONS = 200


def itachi(api: RunningApi, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ITACHI_API_URL": api.url, "ITACHI_API_KEY": api.key, "PYTHONPATH": str(REPO_ROOT),
           "ITACHI_HOME": str(home / "itachi"), "CLAUDE_CONFIG_DIR": str(home / "claude"),
           "HOME": str(home)}
    env.pop("ITACHI_PROJECT", None)
    return subprocess.run([sys.executable, "-m", "agent.cli", *args], cwd=home, env=env,
                          capture_output=True, text=True, timeout=600)


def sample_home(tmp_path: Path) -> tuple[Path, Path, str]:
    """A home whose Claude Code folder holds the sample transcript, run in `repo` (with a
    CLAUDE.md) and with an auto-memory MEMORY.md holding a note and Itachi's own section."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "CLAUDE.md").write_text("# Conventions\n\n- Always run make test before pushing.\n")
    folder = tmp_path / "claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(repo))
    folder.mkdir(parents=True)
    text = SAMPLE.read_text(encoding="utf-8").replace(SAMPLE_CWD, str(repo))
    session_id = json.loads(text.splitlines()[0])["sessionId"]
    (folder / f"{session_id}.jsonl").write_text(text, encoding="utf-8")
    (folder / "memory").mkdir()
    (folder / "memory" / "MEMORY.md").write_text(
        "## Itachi Session Context\n<!-- auto-updated by itachi session-start hook -->\n"
        "- written by Itachi\n\n"
        "# Notes\n- The staging database is refreshed every Monday night.\n")
    return repo, folder, session_id


def total(api: RunningApi, project: str) -> int:
    return api.container.memory.stats(project).total


def test_backfill_of_the_transcript_sample_twice_adds_nothing_the_second_time(
        api: RunningApi, tmp_path: Path) -> None:
    api.container.warm_up()
    repo, _, session_id = sample_home(tmp_path)
    project = project_for(repo)

    first = itachi(api, tmp_path, "backfill", "--from", "claude")
    assert first.returncode == 0, first.stderr
    assert "sessions read: 1 (claude 1)" in first.stdout
    assert "1/1 sessions" in first.stderr  # the progress bar
    assert api.container.insight_extraction.stored(session_id) is not None
    stored = api.container.memory.recent(project, limit=50)
    contents = {m.content for m in stored}
    assert "The staging database is refreshed every Monday night." in contents
    assert not any("written by Itachi" in c for c in contents)
    assert any("make test" in m.content and m.category == "project_rule" for m in stored)
    before = total(api, project)

    again = itachi(api, tmp_path, "backfill", "--from", "claude")
    assert again.returncode == 0, again.stderr
    assert "memories added: 0, rules added: 0" in again.stdout
    assert "already extracted 1" in again.stdout
    assert total(api, project) == before


def test_since_leaves_out_older_sessions(api: RunningApi, tmp_path: Path) -> None:
    sample_home(tmp_path)
    later = itachi(api, tmp_path, "backfill", "--from", "claude", "--since", "2030-01-01")
    assert later.returncode == 0, later.stderr
    assert "sessions read: 0" in later.stdout and "before --since 1" in later.stdout
    assert itachi(api, tmp_path, "backfill", "--since", "last week").returncode == 2


def test_a_generated_corpus_is_idempotent(api: RunningApi, tmp_path: Path) -> None:
    # The property at 200 sessions; bench/backfill.py runs 1,000 and more for the rate.
    api.container.warm_up()
    paths = write_corpus(tmp_path / "projects", SESSIONS)
    sessions = [claude_transcripts.read(p) for p in paths]
    assert len({s.session_id for s in sessions}) == SESSIONS
    client = ApiClient(ClientConfig(tmp_path, api.url, api.key), timeout_s=180)
    projects = {project_for(s.cwd or "") for s in sessions}

    first = Backfill(client.post, progress=io.StringIO()).run(sessions)
    assert not first.failures, first.failures[:3]
    assert sum(first.sessions.values()) == SESSIONS
    assert first.memories_added > SESSIONS and first.rules_added > 0
    counts = {p: total(api, p) for p in projects}

    again = Backfill(client.post, progress=io.StringIO()).run(sessions)
    assert (again.memories_added, again.rules_added, again.failures) == (0, 0, [])
    assert again.skipped["already extracted"] == SESSIONS
    assert {p: total(api, p) for p in projects} == counts


def test_a_codex_rollout_is_read_with_its_session_id_and_directory(tmp_path: Path) -> None:
    name = "rollout-2026-01-02T10-00-00-0199aaaa-bbbb-4ccc-8ddd-eeeeffff0000.jsonl"
    rollout = tmp_path / "2026" / "01" / "02" / name
    rollout.parent.mkdir(parents=True)
    rollout.write_text("\n".join(json.dumps(r) for r in (
        {"timestamp": "2026-01-02T10:00:00Z", "type": "session_meta",
         "payload": {"id": "0199aaaa-bbbb-4ccc-8ddd-eeeeffff0000", "cwd": "/src/shop",
                     "timestamp": "2026-01-02T10:00:00Z"}},
        {"timestamp": "2026-01-02T10:00:05Z", "type": "response_item",
         "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}},
    )) + "\n")
    [found] = codex_transcripts.find(tmp_path)
    session = codex_transcripts.read(found)
    assert (session.session_id, session.cwd, session.started_at and session.started_at.year) == (
        "0199aaaa-bbbb-4ccc-8ddd-eeeeffff0000", "/src/shop", 2026)
