"""Which files sync, and how synced paths are written."""

from __future__ import annotations

import pytest

from chalicelib.contracts.sync_config import load_project_sync
from chalicelib.contracts.sync_paths import BadSyncPath, is_synced, matches, normalise


@pytest.mark.parametrize("path", [".env", ".env.local", "api/.env", "CLAUDE.md", ".claude/settings.json",
                                  ".claude/settings.local.json", ".claude/skills/review/SKILL.md",
                                  "notes/2026/plan.md", "NOTES.md"])
def test_the_default_allow_list_syncs_env_files_claude_settings_skills_and_notes(path: str) -> None:
    assert is_synced(path)


@pytest.mark.parametrize("path", ["src/app.py", ".claude/projects/x.jsonl", "README.md", ".git/config",
                                  "sub/.git/HEAD", ".envrc", "../.env", "/home/u/.env"])
def test_other_files_and_anything_in_git_never_sync(path: str) -> None:
    assert not is_synced(path)


def test_double_star_spans_any_number_of_segments_and_star_only_one() -> None:
    assert matches("a/b/c.md", "a/**") and matches("a/c.md", "a/**/c.md") and matches("c.md", "**/c.md")
    assert not matches("a/b/c.md", "a/*.md") and matches("a/c.md", "a/*.md")


@pytest.mark.parametrize("raw,clean", [("./notes//a.md", "notes/a.md"), ("notes\\a.md", "notes/a.md")])
def test_paths_are_normalised_to_slashes(raw: str, clean: str) -> None:
    assert normalise(raw) == clean


@pytest.mark.parametrize("raw", ["", "C:\\x\\.env", "a/../../b", ".git/config", "a/.git/x"])
def test_paths_that_escape_or_enter_git_are_refused(raw: str) -> None:
    with pytest.raises(BadSyncPath):
        normalise(raw)


def test_a_project_config_adds_includes_and_excludes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "sync").mkdir()
    (tmp_path / "sync" / "config.json").write_text(
        '{"machine_keys": ["HOST_*"],'
        ' "projects": {"p": {"include": ["docs/*.md"], "exclude": ["notes/tmp/**"]}}}')
    config = load_project_sync(tmp_path, "p", env={"ITACHI_SYNC_MACHINE_KEYS": "GPU_ID"})
    assert config.syncs("docs/a.md") and not config.syncs("notes/tmp/x.md") and config.syncs("notes/x.md")
    assert config.machine_keys == ("HOST_*", "GPU_ID")
    assert not load_project_sync(tmp_path, "p", env={"ITACHI_SYNC": "0"}).syncs(".env")
