"""Name the project a working directory belongs to, the same way on every machine.

Stdlib only: hooks, the CLI, the agent and the MCP tools all import it. Git metadata is
read straight from the repository's files (no ``git`` process), which keeps a hook's cost
to a few file reads.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_SCP_LIKE = re.compile(r"^(?:[^@/]+@)?(?P<host>[^:/]{2,}):(?P<path>(?!//).+)$")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
_REMOTE_SECTION = re.compile(r'^\s*\[\s*remote\s+"(?P<name>[^"]+)"\s*\]')
_ANY_SECTION = re.compile(r"^\s*\[")
_URL_KEY = re.compile(r"^\s*url\s*=\s*(?P<value>.*?)\s*$", re.IGNORECASE)


def project_for(cwd: str | os.PathLike[str]) -> str:
    """Return the project id of cwd: $ITACHI_PROJECT, the origin remote, repo root or dir name."""
    explicit = os.environ.get("ITACHI_PROJECT", "").strip()
    if explicit:
        return explicit
    start = Path(cwd).expanduser().absolute()
    common_dir = git_common_dir(start)
    if common_dir is not None:
        remote = origin_url(common_dir)
        if remote:
            normalised = normalise_remote_url(remote)
            if normalised:
                return normalised
        return _repo_root_name(common_dir)
    return start.name or str(start)


def normalise_remote_url(url: str) -> str:
    """Return host/path of a git remote, lowercased, without credentials, port or ``.git``."""
    url = url.strip()
    if not url:
        return ""
    host, path = "", url
    if _SCHEME.match(url):
        rest = url.split("://", 1)[1]
        authority, _, path = rest.partition("/")
        host = authority.rpartition("@")[2]
        host = host.split("]", 1)[0] + "]" if host.startswith("[") else host.split(":", 1)[0]
    else:
        scp = _SCP_LIKE.match(url)
        if scp and not re.match(r"^[a-zA-Z]:[\\/]", url):
            host, path = scp.group("host"), scp.group("path")
    path = path.replace("\\", "/").strip("/")
    if path.lower().endswith(".git"):
        path = path[:-4].rstrip("/")
    joined = f"{host}/{path}" if host else path
    return joined.strip("/").lower()


def git_common_dir(start: Path) -> Path | None:
    """Return the git directory shared by every worktree of the repo holding start, if any."""
    for directory in (start, *start.parents):
        dot_git = directory / ".git"
        if dot_git.is_dir():
            return _common_of(dot_git)
        if dot_git.is_file():
            git_dir = _read_gitdir_file(dot_git)
            return _common_of(git_dir) if git_dir else None
        if (directory / "HEAD").is_file() and (directory / "objects").is_dir():
            return directory  # a bare repository
    return None


def origin_url(common_dir: Path) -> str:
    """Return the url of remote "origin" from the repo's config file ('' if none)."""
    try:
        text = (common_dir / "config").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    in_origin = False
    for line in text.splitlines():
        section = _REMOTE_SECTION.match(line)
        if section:
            in_origin = section.group("name") == "origin"
            continue
        if _ANY_SECTION.match(line):
            in_origin = False
            continue
        key = _URL_KEY.match(line) if in_origin else None
        if key:
            return key.group("value").strip('"')
    return ""


def _read_gitdir_file(dot_git: Path) -> Path | None:
    try:
        first = dot_git.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return None
    if not first.startswith("gitdir:"):
        return None
    target = Path(first[len("gitdir:") :].strip())
    return target if target.is_absolute() else (dot_git.parent / target).resolve()


def _common_of(git_dir: Path) -> Path:
    try:
        pointer = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return git_dir
    common = Path(pointer)
    return common if common.is_absolute() else (git_dir / common).resolve()


def _repo_root_name(common_dir: Path) -> str:
    if common_dir.name == ".git":
        return common_dir.parent.name
    name = common_dir.name
    return name[:-4] if name.endswith(".git") else name
