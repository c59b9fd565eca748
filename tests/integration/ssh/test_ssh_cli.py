"""`itachi ssh` against a real sshd: pinning, verification on every connection, exit codes, timeouts."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.fakes.fake_itachi_api import unreachable_url
from tests.support.agent_harness import pid_alive
from tests.support.orchestration import wait_for
from tests.support.sshd import Sshd


def itachi(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ITACHI_")}
    env.update(ITACHI_HOME=str(home), ITACHI_API_URL=unreachable_url(), ITACHI_API_KEY="k",
               ITACHI_MACHINE_ID="m1")
    return subprocess.run([sys.executable, "-m", "agent.cli", "ssh", *args], env=env, capture_output=True,
                          text=True, timeout=120)


def add(home: Path, sshd: Sshd, *pin: str) -> subprocess.CompletedProcess[str]:
    return itachi(home, "add", "box", "--host", "127.0.0.1", "--port", str(sshd.port), "--user", sshd.user,
                  "--key", str(sshd.client_key), *pin)


def test_an_unknown_host_is_refused_unless_trusted_explicitly(tmp_path: Path, sshd: Sshd) -> None:
    refused = add(tmp_path, sshd)
    assert refused.returncode == 1
    assert f"unknown host 127.0.0.1:{sshd.port}: it presents {sshd.host_fingerprint}" in refused.stderr
    assert "--trust" in refused.stderr and not (tmp_path / "ssh" / "targets.json").exists()

    trusted = add(tmp_path, sshd, "--trust")
    assert trusted.returncode == 0, trusted.stderr
    assert f"Trusting on first use: pinned {sshd.host_fingerprint}" in trusted.stdout
    assert sshd.host_fingerprint in itachi(tmp_path, "list").stdout


def test_a_fingerprint_that_does_not_match_pins_nothing(tmp_path: Path, sshd: Sshd) -> None:
    wrong = "SHA256:" + "Q" * 43
    refused = add(tmp_path, sshd, "--fingerprint", wrong)
    assert refused.returncode == 1 and f"presents {sshd.host_fingerprint}, not the {wrong}" in refused.stderr
    assert add(tmp_path, sshd, "--fingerprint", sshd.host_fingerprint).returncode == 0


def test_exec_streams_output_and_returns_the_remote_exit_code(tmp_path: Path, sshd: Sshd) -> None:
    assert add(tmp_path, sshd, "--fingerprint", sshd.host_fingerprint).returncode == 0
    done = itachi(tmp_path, "exec", "box", "--", "echo out; echo err >&2; exit 7")
    # the remote login shell's own rc files may write to stderr first; the command's line ends it
    assert (done.returncode, done.stdout) == (7, "out\n") and done.stderr.endswith("err\n")
    assert itachi(tmp_path, "test", "box").stdout == "itachi-ssh-ok\n"


def test_a_changed_host_key_is_refused_naming_both_fingerprints(tmp_path: Path, sshd: Sshd) -> None:
    assert add(tmp_path, sshd, "--trust").returncode == 0
    pinned = sshd.host_fingerprint
    sshd.rotate_host_key()

    refused = itachi(tmp_path, "exec", "box", "--", "echo should-not-run")

    assert refused.returncode == 255 and refused.stdout == ""
    assert f"pinned {pinned}, presented {sshd.host_fingerprint}" in refused.stderr
    again = add(tmp_path, sshd, "--trust")
    assert again.returncode == 1 and "--trust does not replace a pin" in again.stderr
    assert add(tmp_path, sshd, "--fingerprint", sshd.host_fingerprint).returncode == 0
    assert itachi(tmp_path, "exec", "box", "--", "echo fine").stdout == "fine\n"


def test_a_timeout_kills_the_remote_process(tmp_path: Path, sshd: Sshd) -> None:
    assert add(tmp_path, sshd, "--trust").returncode == 0
    pid_file = tmp_path / "remote.pid"

    started = time.monotonic()
    timed_out = itachi(tmp_path, "exec", "box", "--timeout", "2", "--",
                       f"sleep 300 & echo $! > {pid_file}; wait")

    assert timed_out.returncode == 124 and "timed out after 2s" in timed_out.stderr
    assert time.monotonic() - started < 60
    pid = int(pid_file.read_text())
    wait_for(lambda: not pid_alive(pid), what="the remote sleep to be killed", timeout_s=30)
