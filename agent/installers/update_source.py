"""Where `/update` takes the agent's new code from: never a package index by name.

In order: `ITACHI_UPDATE_COMMAND` (the operator's own command), `git pull --ff-only` when the
agent runs from a git checkout, else the artifact the deployment publishes
(`ITACHI_UPDATE_URL`, a wheel or sdist over http(s)) installed only once its SHA-256 matches
`ITACHI_UPDATE_SHA256`. With none of them the update is refused, saying how to configure one.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
import shlex
import sys
import urllib.parse
import urllib.request
from collections.abc import Mapping
from pathlib import Path

CODE_ROOT = Path(__file__).resolve().parents[2]  # the checkout: agent/installers/ is two below it
MAX_ARTIFACT_BYTES = 500 * 1024 * 1024
DOWNLOAD_TIMEOUT_S = 120
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_ARTIFACT_SUFFIXES = (".whl", ".tar.gz", ".zip")
NOT_CONFIGURED = ("not updated: this agent is not a git checkout and has no update source. Set "
                  "ITACHI_UPDATE_URL (the artifact your deployment publishes) with ITACHI_UPDATE_SHA256 "
                  "(its sha256), or ITACHI_UPDATE_COMMAND; it never installs a package by name")


class UpdateRefused(Exception):
    """No trustworthy source for the update (the message says why and what to set)."""


def update_command(env: Mapping[str, str], workdir: Path, code_root: Path = CODE_ROOT) -> list[str]:
    """The command that installs the update, an artifact first downloaded into workdir and checked."""
    configured = env.get("ITACHI_UPDATE_COMMAND", "").strip()
    if configured:
        return shlex.split(configured)
    if (code_root / ".git").exists():
        return ["git", "-C", str(code_root), "pull", "--ff-only"]
    url = env.get("ITACHI_UPDATE_URL", "").strip()
    if not url:
        raise UpdateRefused(NOT_CONFIGURED)
    artifact = fetch_artifact(url, env.get("ITACHI_UPDATE_SHA256", "").strip().lower(), workdir)
    return [sys.executable, "-m", "pip", "install", "--upgrade", str(artifact)]


def fetch_artifact(url: str, sha256: str, workdir: Path) -> Path:
    """Download url into workdir and return its path, or refuse it unless its SHA-256 is `sha256`."""
    if not _SHA256.match(sha256):
        raise UpdateRefused("not updated: ITACHI_UPDATE_SHA256 must be the artifact's sha256 (64 hex digits)")
    parts = urllib.parse.urlsplit(url)
    name = posixpath.basename(parts.path)
    if parts.scheme not in ("https", "http") or not parts.netloc:
        raise UpdateRefused("not updated: ITACHI_UPDATE_URL must be an https:// (or http://) URL")
    if not name.endswith(_ARTIFACT_SUFFIXES) or name.startswith((".", "-")):
        raise UpdateRefused("not updated: ITACHI_UPDATE_URL must name a wheel or sdist (.whl, .tar.gz, .zip)")
    target, digest, size = workdir / name, hashlib.sha256(), 0
    try:
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as answer, target.open("wb") as out:  # noqa: S310 (scheme checked)
            while chunk := answer.read(1 << 20):
                size += len(chunk)
                if size > MAX_ARTIFACT_BYTES:
                    raise UpdateRefused(f"not updated: the artifact is over {MAX_ARTIFACT_BYTES} bytes")
                digest.update(chunk)
                out.write(chunk)
    except OSError as exc:
        why = type(exc).__name__
        raise UpdateRefused(f"not updated: cannot download ITACHI_UPDATE_URL ({why})") from None
    if digest.hexdigest() != sha256:
        target.unlink(missing_ok=True)
        raise UpdateRefused("not updated: the artifact's sha256 is not ITACHI_UPDATE_SHA256 "
                            "(published a new one? set its sha256)")
    return target
