"""A real OpenSSH server for tests: its own host key, config and authorized key, on a free port.

`ensure_sshd()` finds `sshd`, which `make test` installs beforehand (Debian's openssh-server,
`make system-packages`); without it the SSH tests fail with the command to run. The server
listens on 127.0.0.1 only, accepts one client key, and runs commands as the user running the tests.
"""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.shells import NO_REHASH_WAIT

CANDIDATES = ("/usr/sbin/sshd", "/usr/local/sbin/sshd")
INSTALL_HINT = "run `make system-packages` (apt-get install openssh-server, as root)"


def _find(candidates: Sequence[str]) -> str | None:
    return shutil.which("sshd") or next((c for c in candidates if os.access(c, os.X_OK)), None)


def ensure_sshd(candidates: Sequence[str] = CANDIDATES) -> str:
    """The sshd binary; fails the calling test with the command that installs it when it is missing."""
    found = _find(candidates)
    if found is None:
        pytest.fail(f"sshd is not installed: {INSTALL_HINT}", pytrace=False)
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def keygen(path: Path, kind: str = "ed25519") -> Path:
    subprocess.run(["ssh-keygen", "-q", "-t", kind, "-N", "", "-C", "itachi-test", "-f", str(path)],
                   check=True, capture_output=True)
    return path


def fingerprint_of(public_key: Path) -> str:
    out = subprocess.run(["ssh-keygen", "-l", "-E", "sha256", "-f", str(public_key)], check=True,
                         capture_output=True, text=True).stdout
    return out.split()[1]


@dataclass
class Sshd:
    binary: str
    root: Path
    port: int = field(default_factory=free_port)
    user: str = field(default_factory=getpass.getuser)
    proc: subprocess.Popen[bytes] | None = None
    generation: int = 0

    @property
    def host_key(self) -> Path:
        return self.root / f"host_key_{self.generation}"

    @property
    def client_key(self) -> Path:
        return self.root / "client_key"

    @property
    def host_fingerprint(self) -> str:
        return fingerprint_of(self.host_key.with_suffix(".pub"))

    def start(self) -> Sshd:
        self.root.mkdir(parents=True, exist_ok=True)
        if not self.client_key.exists():
            keygen(self.client_key)
            shutil.copy(self.client_key.with_suffix(".pub"), self.root / "authorized_keys")
        if not self.host_key.exists():
            keygen(self.host_key)
        config = self.root / "sshd_config"
        config.write_text("\n".join([
            f"Port {self.port}", "ListenAddress 127.0.0.1", f"HostKey {self.host_key}",
            f"PidFile {self.root / 'sshd.pid'}", f"AuthorizedKeysFile {self.root / 'authorized_keys'}",
            "PasswordAuthentication no", "KbdInteractiveAuthentication no", "PubkeyAuthentication yes",
            "PermitRootLogin prohibit-password", "StrictModes no", "UsePAM no", "LogLevel ERROR",
            "Subsystem sftp internal-sftp",
            *(f"SetEnv {name}={value}" for name, value in NO_REHASH_WAIT.items()), ""]))
        if os.geteuid() == 0:
            Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # privilege separation directory
        log = open(self.root / "sshd.log", "ab")  # noqa: SIM115 (owned by the child)
        self.proc = subprocess.Popen([self.binary, "-D", "-e", "-f", str(config)], stdout=log,
                                     stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"sshd exited: {(self.root / 'sshd.log').read_text()[-500:]}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self
            time.sleep(0.05)
        raise RuntimeError("sshd did not listen within 20 s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc = None

    def rotate_host_key(self) -> None:
        """Restart on the same port with a new host key (what a reinstalled or spoofed host looks like)."""
        self.stop()
        self.generation += 1
        self.start()
