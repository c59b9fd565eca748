"""The synced files of one working tree: finding them, reading them as synced, writing pulls.

A file is read "as synced": `.env` files without their machine-specific keys. Writes are
atomic (temp file + rename), keep an existing file's mode, create `.env` files 0600, never
follow a symlink and never land outside the root, whatever path a pull names.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from agent.sync.env_merge import merge_machine_keys, strip_machine_keys
from chalicelib.contracts.sync_config import ProjectSync
from chalicelib.contracts.sync_envelope import MAX_PLAINTEXT_BYTES
from chalicelib.contracts.sync_paths import BadSyncPath, is_env_file, normalise

# Directories no allow-list pattern is meant to reach into; pruned to keep a scan fast.
SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache",
                       ".ruff_cache", ".pytest_cache", ".tox", ".itachi"})


class UnsafePath(Exception):
    """A path that would escape the working tree or go through a symlink."""


@dataclass(frozen=True)
class Checkout:
    home: Path
    root: Path
    config: ProjectSync

    @property
    def project(self) -> str:
        return self.config.project

    def scan(self) -> list[str]:
        """Every allow-listed regular file in the tree (symlinks and oversized files left out)."""
        found = []
        for directory, dirs, files in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS
                             and not os.path.islink(os.path.join(directory, d)))
            rel_dir = os.path.relpath(directory, self.root)
            for name in sorted(files):
                rel = name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/")
                if self.config.syncs(rel) and self.read_synced(rel) is not None:
                    found.append(rel)
        return found

    def target(self, path: str) -> Path:
        """The file a synced path names, checked to stay inside the root without symlinks."""
        try:
            clean = normalise(path)
        except BadSyncPath as exc:
            raise UnsafePath(str(exc)) from None
        current = self.root
        for part in clean.split("/"):
            current = current / part
            if current.is_symlink():
                raise UnsafePath(f"{clean} goes through a symlink")
        return current

    def read_raw(self, path: str) -> bytes | None:
        """The file's bytes, or None when it is missing, not a regular file or too large."""
        try:
            target = self.target(path)
            if not target.is_file() or target.stat().st_size > MAX_PLAINTEXT_BYTES:
                return None
            return target.read_bytes()
        except (OSError, UnsafePath):
            return None

    def read_synced(self, path: str) -> bytes | None:
        """The file as it syncs: `.env` files without this machine's own keys."""
        raw = self.read_raw(path)
        if raw is None or not is_env_file(path):
            return raw
        return self.as_synced(path, raw)

    def as_synced(self, path: str, data: bytes) -> bytes:
        if not is_env_file(path):
            return data
        text = data.decode("utf-8", errors="surrogateescape")
        return strip_machine_keys(text, self.config.machine_keys).encode("utf-8", errors="surrogateescape")

    def write_pulled(self, path: str, plaintext: bytes) -> None:
        """Write a pulled file, keeping this machine's own `.env` keys."""
        target = self.target(path)
        data = plaintext
        if is_env_file(path):
            local = self.read_raw(path) or b""
            merged = merge_machine_keys(plaintext.decode("utf-8", errors="surrogateescape"),
                                        local.decode("utf-8", errors="surrogateescape"),
                                        self.config.machine_keys)
            data = merged.encode("utf-8", errors="surrogateescape")
        target.parent.mkdir(parents=True, exist_ok=True)
        mode = 0o600 if is_env_file(path) else 0o644
        with contextlib.suppress(OSError):
            mode = target.stat().st_mode & 0o777
        temp = target.with_name(f".{target.name}.itachi-{os.getpid()}.tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.chmod(temp, mode)
            os.replace(temp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                temp.unlink()
            raise
