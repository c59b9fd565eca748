"""This machine's SSH targets: `$ITACHI_HOME/ssh/targets.json` (mode 0600) and the environment.

`itachi ssh add` writes the file, pinning the host key's fingerprint. Targets can also come
from the environment, as in the seed: `ITACHI_SSH_<NAME>_HOST`, `_USER`, `_KEY`, `_PORT`, plus
`_FINGERPRINT`, `_PLATFORM` (posix|windows) and `_MACHINE` (the registered machine it
reaches). A target without a fingerprint is known but never connected to.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

_ENV = re.compile(r"^ITACHI_SSH_(?P<name>[A-Z0-9_]+)_HOST$")


@dataclass(frozen=True)
class LocalTarget:
    name: str
    host: str
    port: int = 22
    user: str = ""
    key_path: str | None = None
    fingerprint: str | None = None
    platform: str = "posix"
    machine: str | None = None  # the registered machine this target reaches
    allowed_commands: tuple[str, ...] = field(default_factory=tuple)
    remote_root: str | None = None  # where remote task worktrees go (default ~/.itachi/worktrees)

    def wire(self, machine_id: str) -> dict[str, Any]:
        """The target as this machine registers it with the server (no key material)."""
        return {"name": self.name, "machine_id": machine_id, "host": self.host, "port": self.port,
                "user": self.user, "key_path": self.key_path, "fingerprint": self.fingerprint,
                "platform": self.platform, "reaches_machine": self.machine,
                "allowed_commands": list(self.allowed_commands)}


def store_path(home: Path) -> Path:
    return home / "ssh" / "targets.json"


def _from_json(name: str, data: dict[str, Any]) -> LocalTarget:
    return LocalTarget(name=name, host=str(data["host"]), port=int(data.get("port") or 22),
                       user=str(data.get("user") or ""), key_path=data.get("key_path"),
                       fingerprint=data.get("fingerprint"), platform=str(data.get("platform") or "posix"),
                       machine=data.get("machine"),
                       allowed_commands=tuple(data.get("allowed_commands") or ()),
                       remote_root=data.get("remote_root"))


def from_env(env: Mapping[str, str]) -> dict[str, LocalTarget]:
    out = {}
    for key, host in env.items():
        match = _ENV.match(key)
        if not match or not host.strip():
            continue
        raw = match.group("name")
        prefix = f"ITACHI_SSH_{raw}_"
        name = raw.lower().replace("_", "-")
        out[name] = LocalTarget(name=name, host=host.strip(), port=int(env.get(prefix + "PORT") or 22),
                                user=env.get(prefix + "USER") or "", key_path=env.get(prefix + "KEY") or None,
                                fingerprint=env.get(prefix + "FINGERPRINT") or None,
                                platform=env.get(prefix + "PLATFORM") or "posix",
                                machine=env.get(prefix + "MACHINE") or None)
    return out


def load_targets(home: Path, env: Mapping[str, str] | None = None) -> dict[str, LocalTarget]:
    """Every target of this machine: the environment's, then the file's (the file wins)."""
    targets = from_env(os.environ if env is None else env)
    try:
        data = json.loads(store_path(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    for name, entry in dict(data.get("targets") or {}).items():
        targets[name] = _from_json(name, entry)
    return targets


def save_target(home: Path, target: LocalTarget) -> None:
    path = store_path(home)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    entries = dict(data.get("targets") or {})
    entry = {k: v for k, v in asdict(target).items() if k != "name"}
    entry["allowed_commands"] = list(target.allowed_commands)
    entries[target.name] = entry
    _write(path, {"targets": entries})


def remove_target(home: Path, name: str) -> bool:
    path = store_path(home)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    entries = dict(data.get("targets") or {})
    found = entries.pop(name, None) is not None
    _write(path, {"targets": entries})
    return found


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2)
    os.replace(temp, path)
