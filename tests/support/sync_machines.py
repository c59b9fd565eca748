"""Two (or more) machines for sync tests: each its own home, key file, state and checkout.

Each machine is a directory used as HOME, with `ITACHI_HOME` and `~/.itachi-key` inside it and
a git checkout of the same origin (so both name the same project). `itachi` and the hooks run
as real processes against the test API.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ORIGIN = "git@github.com:acme/webapp.git"
PROJECT = "github.com/acme/webapp"


@dataclass
class Machine:
    name: str
    home: Path
    api_url: str
    api_key: str

    @property
    def repo(self) -> Path:
        return self.home / "src" / "webapp"

    @property
    def itachi_home(self) -> Path:
        return self.home / ".local" / "share" / "itachi"

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ITACHI_", "CLAUDE_"))}
        return {**env, "HOME": str(self.home), "ITACHI_HOME": str(self.itachi_home),
                "ITACHI_API_URL": self.api_url, "ITACHI_API_KEY": self.api_key,
                "ITACHI_MACHINE_ID": self.name, "CLAUDE_CONFIG_DIR": str(self.home / ".claude"), **extra}

    def itachi(self, *args: str, stdin: str | None = None, cwd: Path | None = None,
               **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "agent.cli", *args], cwd=cwd or self.repo,
                              env=self.env(**env), input=stdin, capture_output=True, text=True, timeout=120)

    def hook(self, module: str, payload: dict[str, Any], **env: str) -> subprocess.CompletedProcess[str]:
        body = {"cwd": str(self.repo), "session_id": f"s-{self.name}", **payload}
        return subprocess.run([sys.executable, "-I", "-m", f"hooks.{module}"], input=json.dumps(body),
                              env=self.env(**env), capture_output=True, text=True, timeout=60)

    def write(self, path: str, data: str | bytes) -> None:
        target = self.repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode() if isinstance(data, str) else data)

    def read(self, path: str) -> bytes:
        return (self.repo / path).read_bytes()

    def state(self) -> dict[str, Any]:
        folder = self.itachi_home / "sync" / "state"
        (only,) = folder.glob("*.json")
        return json.loads(only.read_text())  # type: ignore[no-any-return]


def make_machine(root: Path, name: str, api_url: str, api_key: str) -> Machine:
    machine = Machine(name, root / name, api_url, api_key)
    machine.repo.mkdir(parents=True)
    for args in (["init", "-q", "-b", "main"], ["remote", "add", "origin", ORIGIN]):
        subprocess.run(["git", *args], cwd=machine.repo, check=True, capture_output=True)
    return machine


def share_key(source: Machine, *others: Machine) -> None:
    """`itachi sync init` on the first machine, the same passphrase given to the others."""
    made = source.itachi("sync", "init")
    assert made.returncode == 0, made.stderr
    passphrase = (source.home / ".itachi-key").read_text()
    for other in others:
        joined = other.itachi("sync", "init", "--stdin", stdin=passphrase)
        assert joined.returncode == 0, joined.stderr
