"""The agent's own settings: which machine it is, what it runs, where its worktrees go.

Read from the environment (and `$ITACHI_HOME/agent.json` for the repo map), never from the
server's Settings: the agent runs on a user's machine with only the API URL and key.
"""

from __future__ import annotations

import json
import os
import re
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chalicelib.contracts.engine_switch import FALLBACK_ENV, KNOWN_ENGINES

WORKTREE_POLICIES = ("keep", "remove", "remove-on-success")


def default_machine_id(hostname: str | None = None) -> str:
    """The hostname, reduced to what a queue name allows (letters, digits, '-', '_'; 40 chars)."""
    name = (hostname or socket.gethostname()).split(".")[0]
    name = (re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-") or "machine")[:40]
    # A machine id never ends in "-dlq": its queue would be another machine's dead-letter queue.
    return name[:-4] + "_dlq" if name.lower().endswith("-dlq") else name


def _repo_map(raw: str) -> dict[str, str]:
    pairs = (item.split("=", 1) for item in raw.split(",") if "=" in item)
    return {project.strip(): str(Path(path.strip()).expanduser()) for project, path in pairs}


@dataclass(frozen=True)
class AgentConfig:
    home: Path
    machine_id: str
    max_concurrent: int = 2
    engine_priority: tuple[str, ...] = KNOWN_ENGINES
    repos: Mapping[str, str] = field(default_factory=dict)  # project -> local repo path
    folder_roots: tuple[str, ...] = ()  # what the session picker may walk, besides the repos
    worktree_policy: str = "keep"
    commit_changes: bool = True
    poll_wait_s: int = 20
    heartbeat_s: float | None = None  # None: what the server says
    visibility_s: int = 60  # a message received by an agent that died reappears after this
    fallback_active: bool = False
    env: Mapping[str, str] = field(default_factory=dict, repr=False)

    @property
    def worktree_root(self) -> Path:
        return self.home / "worktrees"

    @property
    def run_dir(self) -> Path:
        return self.home / "run"

    @classmethod
    def load(cls, home: Path, env: Mapping[str, str] | None = None,
             machine_id: str | None = None) -> AgentConfig:
        env = dict(os.environ if env is None else env)
        file: dict[str, Any] = {}
        try:
            file = json.loads((home / "agent.json").read_text())
        except (OSError, ValueError):
            file = {}
        repos = {str(k): str(Path(str(v)).expanduser()) for k, v in dict(file.get("repos") or {}).items()}
        repos.update(_repo_map(env.get("ITACHI_AGENT_REPOS", "")))
        priority = tuple(p.strip() for p in env.get("ITACHI_ENGINE_PRIORITY", "").split(",") if p.strip())
        policy = env.get("ITACHI_WORKTREE_POLICY", "keep")
        if policy not in WORKTREE_POLICIES:
            raise ValueError(f"ITACHI_WORKTREE_POLICY must be one of {', '.join(WORKTREE_POLICIES)}")
        heartbeat = env.get("ITACHI_AGENT_HEARTBEAT_S")
        return cls(
            home=home,
            machine_id=machine_id or env.get("ITACHI_MACHINE_ID") or str(file.get("machine_id") or "")
            or default_machine_id(),
            max_concurrent=int(env.get("ITACHI_AGENT_MAX_CONCURRENT") or file.get("max_concurrent") or 2),
            engine_priority=priority or tuple(file.get("engine_priority") or KNOWN_ENGINES),
            repos=repos,
            folder_roots=tuple(p for p in env.get("ITACHI_AGENT_ROOTS", "").split(",") if p.strip())
            or tuple(str(p) for p in file.get("roots") or ()),
            worktree_policy=policy,
            commit_changes=env.get("ITACHI_AGENT_COMMIT", "1") not in {"0", "false", "no"},
            poll_wait_s=int(env.get("ITACHI_AGENT_POLL_S") or 20),
            heartbeat_s=float(heartbeat) if heartbeat else None,
            visibility_s=int(env.get("ITACHI_AGENT_VISIBILITY_S") or 60),
            fallback_active=env.get(FALLBACK_ENV) == "1",
            env=env,
        )
