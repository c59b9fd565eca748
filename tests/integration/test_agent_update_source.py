"""`/update` on a machine that is not a git checkout: only the deployment's artifact, checked by its
sha256, or the operator's own command; never a package named on an index."""

from __future__ import annotations

import functools
import hashlib
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agent.installers.self_update import run_update
from agent.installers.update_source import NOT_CONFIGURED, UpdateRefused, update_command

WHEEL = "itachi-0.1.1-py3-none-any.whl"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""


@pytest.fixture
def published(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A deployment's artifact over HTTP: its URL and its sha256."""
    site = tmp_path / "site"
    site.mkdir()
    (site / WHEEL).write_bytes(b"the deployment's wheel\n" * 100)
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        yield (f"http://127.0.0.1:{server.server_address[1]}/{WHEEL}",
               hashlib.sha256((site / WHEEL).read_bytes()).hexdigest())
    finally:
        server.shutdown()
        server.server_close()


class RecordingRunner:
    """Stands in for subprocess.run: records each command and the artifact it was given, if any."""

    def __init__(self) -> None:
        self.commands: list[list[str]] = []
        self.artifacts: list[bytes] = []

    def __call__(self, command: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        self.commands.append(command)
        if Path(command[-1]).is_file():
            self.artifacts.append(Path(command[-1]).read_bytes())
        return subprocess.CompletedProcess(command, 0, "", "")


@pytest.fixture
def not_a_checkout(tmp_path: Path) -> Path:
    root = tmp_path / "installed"
    (root / "agent").mkdir(parents=True)
    return root


def test_an_unconfigured_agent_outside_a_checkout_refuses_to_update_and_runs_no_pip(
        not_a_checkout: Path, caplog: pytest.LogCaptureFixture) -> None:
    runner = RecordingRunner()

    updated = run_update({}, runner, code_root=not_a_checkout)

    assert updated is False
    assert runner.commands == []
    assert NOT_CONFIGURED in caplog.text
    assert "ITACHI_UPDATE_URL" in NOT_CONFIGURED and "ITACHI_UPDATE_SHA256" in NOT_CONFIGURED


def test_an_artifact_whose_sha256_is_not_the_configured_one_is_refused(
        not_a_checkout: Path, published: tuple[str, str], caplog: pytest.LogCaptureFixture) -> None:
    url, _ = published
    runner = RecordingRunner()
    env = {"ITACHI_UPDATE_URL": url, "ITACHI_UPDATE_SHA256": "0" * 64}

    updated = run_update(env, runner, code_root=not_a_checkout)

    assert updated is False
    assert runner.commands == []
    assert "sha256 is not ITACHI_UPDATE_SHA256" in caplog.text


def test_an_artifact_with_its_configured_sha256_is_installed_from_the_downloaded_file(
        not_a_checkout: Path, published: tuple[str, str]) -> None:
    url, sha256 = published
    runner = RecordingRunner()

    updated = run_update({"ITACHI_UPDATE_URL": url, "ITACHI_UPDATE_SHA256": sha256.upper()}, runner,
                         code_root=not_a_checkout)

    assert updated is True
    [command] = runner.commands
    assert command[:5] == [sys.executable, "-m", "pip", "install", "--upgrade"]
    assert Path(command[5]).name == WHEEL
    assert [hashlib.sha256(a).hexdigest() for a in runner.artifacts] == [sha256]


@pytest.mark.parametrize(("env", "why"), [
    ({"ITACHI_UPDATE_URL": "https://example.invalid/itachi.whl"}, "64 hex digits"),
    ({"ITACHI_UPDATE_URL": "file:///tmp/itachi.whl", "ITACHI_UPDATE_SHA256": "a" * 64}, "https://"),
    ({"ITACHI_UPDATE_URL": "https://example.invalid/itachi", "ITACHI_UPDATE_SHA256": "a" * 64},
     "wheel or sdist"),
])
def test_an_update_url_without_a_sha256_or_of_another_kind_is_refused_before_any_download(
        not_a_checkout: Path, tmp_path: Path, env: dict[str, str], why: str) -> None:
    with pytest.raises(UpdateRefused, match=why):
        update_command(env, tmp_path, not_a_checkout)


def test_a_git_checkout_pulls_and_a_configured_command_wins(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()

    assert update_command({}, tmp_path, tmp_path) == ["git", "-C", str(tmp_path), "pull", "--ff-only"]
    assert update_command({"ITACHI_UPDATE_COMMAND": "make upgrade  AGENT=1"}, tmp_path, tmp_path) == [
        "make", "upgrade", "AGENT=1"]
