"""SSH targets and one-off command runs, as the server knows them.

A target belongs to the machine that registered it: that machine holds the private key and
the pinned host key, and runs the target's commands (the server never connects anywhere). A
target may name the registered machine it reaches, which is what `/exec @machine` uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from chalicelib.kernel.errors import InvalidInput

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
MACHINE_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
FINGERPRINT = re.compile(r"^SHA256:[A-Za-z0-9+/]{43}$")
HOST = re.compile(r"^[A-Za-z0-9_.:%\[\]-]{1,253}$")
USER = re.compile(r"^[A-Za-z0-9_.@\\-]{1,64}$")
PLATFORMS = ("posix", "windows")
MAX_ALLOWED_COMMANDS = 50
DEFAULT_TIMEOUT_S = 120
MAX_TIMEOUT_S = 3600


@dataclass(frozen=True)
class SshTarget:
    name: str
    machine_id: str  # the machine that holds the key and runs the commands
    host: str
    port: int = 22
    user: str = ""
    key_path: str | None = None
    fingerprint: str | None = None  # pinned host key; None: every run is refused until it is pinned
    platform: str = "posix"
    reaches_machine: str | None = None
    allowed_commands: tuple[str, ...] = ()
    updated_at: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "machine_id": self.machine_id, "host": self.host, "port": self.port,
                "user": self.user, "key_path": self.key_path, "fingerprint": self.fingerprint,
                "platform": self.platform, "reaches_machine": self.reaches_machine,
                "allowed_commands": list(self.allowed_commands),
                "updated_at": self.updated_at.isoformat() if self.updated_at else None}


def _need(ok: bool, field: str, message: str) -> None:
    if not ok:
        raise InvalidInput(f"{field}: {message}", field=field)


def check_target(t: SshTarget) -> SshTarget:
    """The target if every field is well-formed; InvalidInput naming the first that is not."""
    _need(bool(NAME.match(t.name)), "name", "1-40 letters, digits, '.', '-' or '_'")
    _need(bool(MACHINE_ID.match(t.machine_id)), "machine_id", "1-40 letters, digits, '-' or '_'")
    _need(bool(HOST.match(t.host)), "host", "a host name or address")
    _need(1 <= t.port <= 65535, "port", "1-65535")
    _need(bool(USER.match(t.user)), "user", "1-64 characters of a user name")
    _need(t.fingerprint is None or bool(FINGERPRINT.match(t.fingerprint)), "fingerprint",
          "SHA256:<43 base64 characters>, as `ssh-keygen -lf` prints it")
    _need(t.platform in PLATFORMS, "platform", " or ".join(PLATFORMS))
    _need(t.reaches_machine is None or bool(MACHINE_ID.match(t.reaches_machine)), "reaches_machine",
          "a machine id")
    _need(len(t.allowed_commands) <= MAX_ALLOWED_COMMANDS
          and all(0 < len(c.strip()) <= 200 for c in t.allowed_commands),
          "allowed_commands", f"at most {MAX_ALLOWED_COMMANDS} commands of 1-200 characters")
    _need(t.key_path is None or 0 < len(t.key_path) <= 500, "key_path", "1-500 characters")
    return t


@dataclass(frozen=True)
class SshRun:
    id: str
    target: str
    machine_id: str
    command: str
    status: str
    timeout_s: int = DEFAULT_TIMEOUT_S
    platform: str = "posix"
    exit_code: int | None = None
    error: str | None = None
    chat_id: int | None = None
    topic_id: int = 0
    requested_by: int | None = None
    output_seq: int = 0
    created_at: datetime | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None

    @property
    def stream(self) -> str:
        """The key of the chat stream its output goes to."""
        return f"ssh:{self.id}"

    def to_json(self) -> dict[str, Any]:
        """What the API shows of a run: never its output (only the requesting chat sees that)."""
        return {"id": self.id, "target": self.target, "machine_id": self.machine_id, "command": self.command,
                "status": self.status, "timeout_s": self.timeout_s, "exit_code": self.exit_code,
                "error": self.error,
                **{k: getattr(self, k).isoformat() if getattr(self, k) else None
                   for k in ("created_at", "started_at", "finished_at")}}
