"""Tests never install system packages: a missing sshd or Chromium fails the test with the command."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.chromium import ensure_chromium
from tests.support.sshd import ensure_sshd


def test_a_missing_sshd_fails_the_test_with_the_command_that_installs_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no sshd, and no apt-get either

    with pytest.raises(pytest.fail.Exception) as failed:
        ensure_sshd(candidates=(str(tmp_path / "sshd"),))

    assert "make system-packages" in str(failed.value)
    assert "apt-get install openssh-server" in str(failed.value)


def test_a_missing_chromium_fails_the_test_with_the_command_that_installs_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))

    with pytest.raises(pytest.fail.Exception) as failed:
        ensure_chromium(str(tmp_path / "chromium"))

    assert "make system-packages" in str(failed.value)
    assert "apt-get install chromium chromium-driver" in str(failed.value)
