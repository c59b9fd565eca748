"""The local state directory: config.json (API URL and key, mode 0600), run state and the lock."""

from __future__ import annotations

import fcntl
import json
import os
import secrets
from pathlib import Path
from typing import IO, Any

from chalicelib.contracts.local_home import read_json


def ensure_config(home: Path, api_url: str) -> dict[str, str]:
    """Create or update config.json; generate the API key on first use. Returns the config."""
    home.mkdir(parents=True, exist_ok=True)
    path = home / "config.json"
    config = {str(k): str(v) for k, v in read_json(path).items()}
    config["api_url"] = api_url
    config.setdefault("api_key", "itk_" + secrets.token_urlsafe(32))
    write_private_json(path, config)
    return config


def write_private_json(path: Path, data: dict[str, Any]) -> None:
    """Write JSON readable by the owner only (0600), atomically."""
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh, indent=2)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


class AlreadyRunning(Exception):
    pass


class RunLock:
    """An exclusive lock on $ITACHI_HOME/run/up.lock: one `itachi up` per home."""

    def __init__(self, home: Path) -> None:
        self.path = home / "run" / "up.lock"
        self._fh: IO[str] | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+")  # noqa: SIM115 (held for the process lifetime)
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "?"
            fh.close()
            raise AlreadyRunning(holder) from None
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        self._fh = fh

    def release(self) -> None:
        if self._fh is not None:
            fcntl.flock(self._fh, fcntl.LOCK_UN)
            self._fh.close()
            self._fh = None
