"""The agent takes a task's repository only from an allowed remote or its configured roots, with
real git: nothing else is cloned or worked in, and the task fails saying why."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from agent.tasks.worktrees import WorkspaceError, WorktreeManager
from tests.support.agent_harness import make_repo


@pytest.fixture
def machine(tmp_path: Path) -> Path:
    root = tmp_path / "machine"
    (root / "src").mkdir(parents=True)
    return root


def manager(machine: Path, repos: dict[str, str] | None = None) -> WorktreeManager:
    return WorktreeManager(machine / "worktrees", machine / "clones", repos or {}, (str(machine / "src"),))


@pytest.mark.parametrize("url", ["file://{outside}", "http://127.0.0.1:9/internal.git", "git://127.0.0.1/x.git",
                                 "ext::sh -c touch% {outside}/pwned", "--upload-pack=touch {outside}/pwned"])
def test_a_repo_url_of_another_transport_is_refused_and_nothing_is_cloned(
        machine: Path, tmp_path: Path, url: str) -> None:
    outside = make_repo(tmp_path / "outside")

    with pytest.raises(WorkspaceError, match=r"https://, ssh:// or git@host:path|cannot start with '-'"):
        manager(machine).repo_root(url.format(outside=outside), "proj")

    assert not (machine / "clones").exists()
    assert not (outside / "pwned").exists()


def test_a_local_repo_outside_the_configured_roots_is_refused(machine: Path, tmp_path: Path) -> None:
    outside = make_repo(tmp_path / "outside")

    with pytest.raises(WorkspaceError, match=r"configured folders.*ITACHI_AGENT_ROOTS"):
        manager(machine).repo_root(str(outside), "proj")
    with pytest.raises(WorkspaceError, match="outside this machine's configured folders"):
        manager(machine).repo_root(f"{machine / 'src'}/../../outside", "proj")


def test_a_symlink_under_a_root_to_a_repo_outside_it_is_refused(machine: Path, tmp_path: Path) -> None:
    outside = make_repo(tmp_path / "outside")
    (machine / "src" / "link").symlink_to(outside)

    with pytest.raises(WorkspaceError, match="outside this machine's configured folders"):
        manager(machine).repo_root(str(machine / "src" / "link"), "proj")


def test_a_repo_under_a_configured_root_or_a_project_repo_is_worked_in(machine: Path, tmp_path: Path) -> None:
    inside = make_repo(machine / "src" / "app")
    project = make_repo(tmp_path / "elsewhere" / "lib")
    worktrees = manager(machine, {"lib": str(project)})

    assert worktrees.repo_root(str(inside), "app") == inside.resolve()
    assert worktrees.repo_root(None, "lib") == project.resolve()
    assert worktrees.repo_root(str(project), "lib") == project.resolve()


def test_an_https_remote_is_cloned_with_its_url_after_a_double_dash(
        machine: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    remotes = tmp_path / "remotes"
    make_repo(remotes / "app")
    shim, calls = tmp_path / "bin", tmp_path / "git-calls"
    shim.mkdir()
    (shim / "git").write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> {calls}\nexec {shutil.which("git")} "$@"\n')
    (shim / "git").chmod(stat.S_IRWXU)
    monkeypatch.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
    # The remote is served from a local folder: git rewrites the https URL, the agent never sees it.
    for name, value in {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": f"url.{remotes}/.insteadOf",
                        "GIT_CONFIG_VALUE_0": "https://git.example.test/acme/"}.items():
        monkeypatch.setenv(name, value)

    root = manager(machine).repo_root("https://git.example.test/acme/app", "app")

    assert (root / "README.md").read_text() == "# test repo\n"
    assert root.parent == machine / "clones"
    clone = next(line for line in calls.read_text().splitlines() if " clone " in f" {line} ")
    assert clone.endswith(f"-- https://git.example.test/acme/app {root}")
