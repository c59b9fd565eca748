"""What syncs for a project on this machine: `$ITACHI_HOME/sync/config.json` over the defaults.

Stdlib only: the CLI, the sync worker and the hooks (which decide whether an edit syncs) read it.

    {"machine_keys": ["ITACHI_SSH_*"],
     "projects": {"github.com/me/app": {"include": ["docs/private/*.md"], "exclude": ["notes/tmp/**"],
                                        "enabled": true}}}

A project's `include` patterns add to the default allow-list (`.env*`, `CLAUDE.md`, `.claude/`
settings and skills, notes); `exclude` removes; `.git` never syncs. `ITACHI_SYNC_MACHINE_KEYS`
(comma-separated) adds machine-specific `.env` keys; `ITACHI_SYNC=0` turns sync off.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chalicelib.contracts.sync_envelope import ITERATIONS, MIN_ITERATIONS
from chalicelib.contracts.sync_paths import DEFAULT_INCLUDE, is_synced


@dataclass(frozen=True)
class ProjectSync:
    project: str
    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = ()
    machine_keys: tuple[str, ...] = ()
    enabled: bool = True
    iterations: int = ITERATIONS

    def syncs(self, path: str) -> bool:
        return self.enabled and is_synced(path, self.include, self.exclude)


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def load_project_sync(home: Path, project: str, env: Mapping[str, str] | None = None) -> ProjectSync:
    env = os.environ if env is None else env
    data: dict[str, Any] = {}
    try:
        loaded = json.loads((home / "sync" / "config.json").read_text(encoding="utf-8"))
        data = loaded if isinstance(loaded, dict) else {}
    except (OSError, ValueError):
        data = {}
    projects = data.get("projects")
    projects = projects if isinstance(projects, dict) else {}
    own = projects.get(project)
    own = own if isinstance(own, dict) else {}
    keys = _strings(data.get("machine_keys")) + tuple(
        k.strip() for k in env.get("ITACHI_SYNC_MACHINE_KEYS", "").split(",") if k.strip())
    iterations = int(env.get("ITACHI_SYNC_KDF_ITERATIONS") or data.get("kdf_iterations") or ITERATIONS)
    return ProjectSync(
        project=project,
        include=DEFAULT_INCLUDE + _strings(own.get("include")),
        exclude=_strings(own.get("exclude")),
        machine_keys=keys,
        enabled=env.get("ITACHI_SYNC", "1") != "0" and own.get("enabled", True) is not False,
        iterations=max(MIN_ITERATIONS, iterations),
    )


def add_exclusion(home: Path, project: str, path: str) -> None:
    """Stop syncing `path` in `project` on this machine (`itachi sync forget`)."""
    config_path = home / "sync" / "config.json"
    try:
        data = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    own = data.setdefault("projects", {}).setdefault(project, {})
    excluded = list(own.get("exclude") or [])
    if path not in excluded:
        excluded.append(path)
    own["exclude"] = excluded
    config_path.parent.mkdir(parents=True, exist_ok=True)
    temp = config_path.with_suffix(".tmp")
    temp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(temp, config_path)
