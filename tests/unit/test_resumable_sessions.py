"""Each engine's own session store read for /continue: the sessions of a folder, newest first."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agent.transcripts.resumable import recent_sessions
from tests.support.session_stores import claude_session, codex_session, gemini_session


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "work" / "my.project"
    folder.mkdir(parents=True)
    return folder.resolve()


def test_a_claude_code_session_of_the_folder_is_found_with_its_first_and_last_prompt(
        home: Path, project: Path) -> None:
    claude_session(home, project, "5b1e0a3c-0000-4000-8000-000000000001",
                   ["fix the login bug", "now add a test"])

    (found,) = recent_sessions([project])

    assert (found.engine, found.session_id, found.cwd) == ("claude", "5b1e0a3c-0000-4000-8000-000000000001",
                                                           str(project))
    assert (found.first_message, found.last_message) == ("fix the login bug", "now add a test")


def test_a_codex_rollout_is_found_by_the_working_directory_its_session_meta_names(
        home: Path, project: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    codex_session(home, project, "0199a1b2-0000-7000-8000-00000000c0de", ["refactor the parser"])
    codex_session(home, other.resolve(), "0199a1b2-0000-7000-8000-00000000beef", ["not this one"])

    (found,) = recent_sessions([project])

    assert (found.engine, found.session_id, found.first_message) == (
        "codex", "0199a1b2-0000-7000-8000-00000000c0de", "refactor the parser")


def test_a_gemini_chat_is_found_under_the_hash_of_the_folder_or_its_registered_id(
        home: Path, project: Path, tmp_path: Path) -> None:
    second = (tmp_path / "work" / "second")
    second.mkdir()
    gemini_session(home, project, "9f8e7d6c-0000-4000-8000-000000000001", ["explain the build"])
    gemini_session(home, second.resolve(), "9f8e7d6c-0000-4000-8000-000000000002", ["write docs"],
                   registry_id="second")

    found = recent_sessions([project, second.resolve()])

    assert sorted((s.engine, s.session_id, s.first_message) for s in found) == [
        ("gemini", "9f8e7d6c-0000-4000-8000-000000000001", "explain the build"),
        ("gemini", "9f8e7d6c-0000-4000-8000-000000000002", "write docs")]


def test_sessions_of_every_engine_come_newest_first_and_below_the_folder_counts(
        home: Path, project: Path) -> None:
    below = project / "api"
    below.mkdir()
    now = time.time()
    claude_session(home, project, "c1", ["oldest"], mtime=now - 300)
    codex_session(home, below, "0199a1b2-0000-7000-8000-000000000001", ["newest"], mtime=now - 10)
    gemini_session(home, project, "g1", ["middle"], mtime=now - 100)

    found = recent_sessions([project])

    assert [(s.engine, s.first_message, s.cwd) for s in found] == [
        ("codex", "newest", str(below)), ("gemini", "middle", str(project)),
        ("claude", "oldest", str(project))]


def test_missing_stores_give_no_sessions_and_a_limit_keeps_the_newest(home: Path, project: Path) -> None:
    assert recent_sessions([project]) == []
    now = time.time()
    for number in range(5):
        claude_session(home, project, f"s{number}", [f"prompt {number}"], mtime=now - 100 + number)

    assert [s.session_id for s in recent_sessions([project], limit=2)] == ["s4", "s3"]


def test_a_long_prompt_is_shortened_to_one_line(home: Path, project: Path) -> None:
    claude_session(home, project, "long", ["line one\nline two " + "x" * 400])

    (found,) = recent_sessions([project])

    assert found.first_message.startswith("line one line two x")
    assert len(found.first_message) == 160 and found.first_message.endswith("…")
