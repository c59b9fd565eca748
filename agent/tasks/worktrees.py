"""One git worktree and branch per task (`itachi/task-<short id>`), outside the user's checkout.

Worktrees live under `$ITACHI_HOME/worktrees/<repo>/task-<short id>`; a retry starts again
from the base commit. At the end the changes are committed on the task's branch (unless
disabled), so the branch keeps the work even when the worktree is removed by policy.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from agent.folders import configured_roots, within
from chalicelib.contracts.project_identity import normalise_remote_url
from chalicelib.contracts.repo_source import RepoRefused, repo_source

GIT_TIMEOUT_S = 120
_IDENTITY = ("-c", "user.name=Itachi", "-c", "user.email=itachi@localhost")


class WorkspaceError(Exception):
    """The task's repository cannot be prepared on this machine (the message says why)."""


@dataclass(frozen=True)
class Workspace:
    repo_root: Path
    path: Path
    branch: str
    base: str
    host: str | None = None  # the SSH target it lives on (agent/ssh/remote_task.py); None: here

    @property
    def location(self) -> str:
        """Where the worktree is, as reported: its path, or `@<target>:<path>` on an SSH target."""
        return f"@{self.host}:{self.path}" if self.host else str(self.path)


def git(cwd: Path, *args: str, check: bool = True) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=GIT_TIMEOUT_S)
    if check and done.returncode != 0:
        raise WorkspaceError(f"git {' '.join(args[:3])} failed: {done.stderr.strip()[-500:]}")
    return done.stdout.strip()


class WorktreeManager:
    def __init__(self, root: Path, clones: Path, repos: dict[str, str],
                 folder_roots: tuple[str, ...] = ()) -> None:
        self._root = root
        self._clones = clones
        self._repos = repos
        self._folder_roots = folder_roots
        self._locks: defaultdict[str, threading.Lock] = defaultdict(threading.Lock)

    def repo_root(self, repo: str | None, project: str) -> Path:
        """The local checkout for a task: a clone of its remote, its path under this machine's
        configured roots, or the project's repo; anything else is refused (contracts/repo_source.py)."""
        if repo:
            try:
                source = repo_source(repo)
            except RepoRefused as exc:
                raise WorkspaceError(str(exc)) from None
            if source.kind == "remote":
                return self._clone(repo)
            if source.kind == "ssh_target":
                raise WorkspaceError(f"repo {repo} is on an SSH target: only tasks run there")
            return self._checkout(self._under_roots(repo))
        candidate = self._repos.get(project)
        if not candidate:
            raise WorkspaceError(f"no repo given and project {project!r} has no repo on this machine "
                                 "(set ITACHI_AGENT_REPOS=project=/path)")
        return self._checkout(Path(candidate).expanduser())

    def _under_roots(self, repo: str) -> Path:
        path = Path(repo).expanduser().resolve()
        if within(path, configured_roots(",".join(self._folder_roots), self._repos.values())) is None:
            raise WorkspaceError(f"repo {repo} is outside this machine's configured folders: add it (or a "
                                 "folder above it) to ITACHI_AGENT_ROOTS or \"roots\" in agent.json, or name "
                                 "it in ITACHI_AGENT_REPOS")
        return path

    @staticmethod
    def _checkout(path: Path) -> Path:
        if not path.is_dir():
            raise WorkspaceError(f"repo {path} does not exist on this machine")
        return Path(git(path, "rev-parse", "--show-toplevel"))

    def _clone(self, url: str) -> Path:
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", normalise_remote_url(url) or url)[:100]
        target = self._clones / name
        with self._locks[str(target)]:
            if (target / ".git").exists():
                git(target, "fetch", "--quiet", "origin")
            else:
                self._clones.mkdir(parents=True, exist_ok=True)
                git(self._clones, "clone", "--quiet", "--", url, str(target))
        return target

    def create(self, repo_root: Path, task_id: str) -> Workspace:
        short = task_id.replace("-", "")[:8]
        base = git(repo_root, "rev-parse", "HEAD", check=False)
        if not re.fullmatch(r"[0-9a-f]{40,64}", base):
            raise WorkspaceError(f"{repo_root} has no commit to branch from")
        path = self._root / repo_root.name / f"task-{short}"
        branch = f"itachi/task-{short}"
        with self._locks[str(repo_root)]:
            if path.exists():  # a previous attempt: start again from the base
                git(repo_root, "worktree", "remove", "--force", str(path), check=False)
                shutil.rmtree(path, ignore_errors=True)
            git(repo_root, "worktree", "prune")
            path.parent.mkdir(parents=True, exist_ok=True)
            git(repo_root, "worktree", "add", "--quiet", "-B", branch, str(path), base)
        return Workspace(repo_root, path, branch, base)

    def changed_files(self, ws: Workspace) -> list[str]:
        """Files changed so far, committed or not, relative to the worktree."""
        status = git(ws.path, "status", "--porcelain", "--untracked-files=all")
        pending = [line[3:].split(" -> ")[-1] for line in status.splitlines() if line.strip()]
        committed = git(ws.path, "diff", "--name-only", ws.base, "HEAD").splitlines()
        return sorted(set(pending) | set(committed))

    def finish(self, ws: Workspace, *, commit: bool, message: str) -> list[str]:
        """Commit the task's changes on its branch (if asked); return the files changed vs the base."""
        if commit:
            git(ws.path, "add", "-A")
            if git(ws.path, "diff", "--cached", "--name-only"):
                git(ws.path, *_IDENTITY, "commit", "--quiet", "--no-verify", "-m", message)
        return self.changed_files(ws)

    def remove(self, ws: Workspace) -> None:
        with self._locks[str(ws.repo_root)]:
            git(ws.repo_root, "worktree", "remove", "--force", str(ws.path), check=False)
            shutil.rmtree(ws.path, ignore_errors=True)
