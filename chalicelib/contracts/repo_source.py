"""Which repositories a task or session may name: the one rule of the server and the agent.

A remote the agent may clone is `https://`, `ssh://` or scp-style `user@host:path` (ssh); never
`file://`, `http://`, `git://`, a `transport::address` or anything that starts like an option.
`@<target>:<path>` names one of the machine's SSH targets. Anything else must be an absolute
local path, and the agent takes it only under its configured roots (agent/tasks/worktrees.py). Stdlib
only: the agent and the server both import it.
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass
from typing import Literal

RepoKind = Literal["remote", "ssh_target", "local"]
REMOTE_SCHEMES = ("https", "ssh")
ALLOWED = "an https://, ssh:// or git@host:path remote, or an absolute path on the machine"
SSH_TARGET = re.compile(r"^@(?P<target>[A-Za-z0-9][A-Za-z0-9_.-]{0,39}):(?P<path>.+)$")
_SCHEME = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://")
_TRANSPORT = re.compile(r"^[A-Za-z0-9+.-]+::")  # git's `<transport>::<address>` (ext::, fd::)
_HOST = re.compile(r"^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])$")
_SCP = re.compile(r"^(?P<user>[A-Za-z0-9][A-Za-z0-9._-]*)@(?P<host>[^:/\s]+):(?P<path>[^\s]+)$")
_WINDOWS_ABSOLUTE = re.compile(r"^[A-Za-z]:[\\/]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class RepoRefused(ValueError):
    """The repository is not one a task may name (the message says why and what is allowed)."""


@dataclass(frozen=True)
class RepoSource:
    kind: RepoKind
    spec: str


def looks_remote(spec: str) -> bool:
    """Whether spec is written as a remote or an SSH target rather than a path (allowed or not)."""
    return bool(_SCHEME.match(spec) or _TRANSPORT.match(spec) or _SCP.match(spec) or SSH_TARGET.match(spec))


def repo_source(spec: str) -> RepoSource:
    """Classify spec, or raise RepoRefused."""
    if not spec or _CONTROL.search(spec):
        raise RepoRefused(f"repo must be {ALLOWED}")
    if spec.startswith("-"):
        raise RepoRefused("repo cannot start with '-'")
    if SSH_TARGET.match(spec):
        return RepoSource("ssh_target", spec)
    scheme = _SCHEME.match(spec)
    if scheme:
        return RepoSource("remote", _checked_url(spec, scheme.group("scheme").lower()))
    if _TRANSPORT.match(spec):
        transport = spec.split("::", 1)[0]
        raise RepoRefused(f"repo {transport}:: transports are not cloned; repo must be {ALLOWED}")
    scp = _SCP.match(spec)
    if scp:
        if not _HOST.match(scp.group("host")) or scp.group("path").startswith("-"):
            raise RepoRefused(f"repo {spec!r} is not a valid git@host:path remote")
        return RepoSource("remote", spec)
    if spec.startswith(("/", "~")) or _WINDOWS_ABSOLUTE.match(spec):
        return RepoSource("local", spec)
    raise RepoRefused(f"repo {spec!r} is neither a remote nor an absolute path; repo must be {ALLOWED}")


def _checked_url(url: str, scheme: str) -> str:
    if scheme not in REMOTE_SCHEMES:
        raise RepoRefused(f"repo {scheme}:// URLs are not cloned; repo must be {ALLOWED}")
    if any(c.isspace() for c in url):
        raise RepoRefused("repo URL cannot contain spaces")
    parts = urllib.parse.urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    host = host if host.startswith("[") else host.split(":", 1)[0]
    if host.startswith("[") and "]" in host:
        host = host[:host.index("]") + 1]
    if not _HOST.match(host) or parts.path.strip("/") == "":
        raise RepoRefused(f"repo URL {parts.scheme}://{host or '?'}/... needs a host and a repository path")
    return url
