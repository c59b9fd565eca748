"""The sync passphrase file: `~/.itachi-key` (or $ITACHI_SYNC_KEY_FILE), mode 0600, one line.

`itachi sync init` creates it with a random passphrase (or one the user gives); the same file
must be copied to every machine that syncs. It is read on the machine only, never sent.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from chalicelib.contracts.sync_paths import key_path

__all__ = ["KeyFileError", "create_key_file", "key_path", "read_passphrase"]

MIN_PASSPHRASE_CHARS = 12


class KeyFileError(Exception):
    """The passphrase file is missing, unreadable, too open or empty (the message says what to do)."""


def create_key_file(path: Path, passphrase: str | None = None) -> str:
    """Write a new passphrase file (mode 0600, never overwriting); return 'generated' or 'given'."""
    text = (passphrase or "").strip()
    if passphrase is not None and len(text) < MIN_PASSPHRASE_CHARS:
        raise KeyFileError(f"the passphrase needs at least {MIN_PASSPHRASE_CHARS} characters")
    origin = "given" if text else "generated"
    text = text or secrets.token_urlsafe(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise KeyFileError(f"{path} exists already; remove it first to change the passphrase") from None
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text + "\n")
    os.chmod(path, 0o600)  # whatever the umask said
    return origin


def read_passphrase(path: Path) -> bytes:
    """The passphrase, refusing a file that other users could read."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise KeyFileError(f"no sync key at {path}: run `itachi sync init` (and copy the file to "
                           "your other machines)") from None
    if os.name == "posix" and info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise KeyFileError(f"{path} is readable by other users (mode {stat.S_IMODE(info.st_mode):o}): "
                           f"run `chmod 600 {path}`")
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise KeyFileError(f"cannot read {path}: {exc}") from None
    if not text:
        raise KeyFileError(f"{path} is empty: remove it and run `itachi sync init`")
    return text.encode("utf-8")
