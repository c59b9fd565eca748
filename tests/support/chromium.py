"""Debian's Chromium driven by Playwright (from PyPI) for the console's browser tests.

`ensure_chromium()` finds /usr/bin/chromium, installing Debian's `chromium` package with apt-get
when it is missing (tests run as root in CI); without it, or without Playwright, the browser tests
are skipped with the reason. `browser_page()` opens a fresh profile (its own --user-data-dir) with
the flags that keep Chromium off the network: this machine has no internet, and Chromium's
background connections would otherwise be refused and slow every start.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "console"


def _apt_install() -> str | None:
    if not shutil.which("apt-get"):
        return "chromium is not installed and apt-get is unavailable: install Debian's chromium"
    if os.geteuid() != 0:
        return "chromium is not installed and installing it needs root: apt-get install chromium"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", "chromium"]
    done = None
    for attempt in (install, ["apt-get", "update", "-q"], install):
        done = subprocess.run(attempt, env=env, capture_output=True, text=True, timeout=1200)
        if done.returncode == 0 and attempt is install and os.access(CHROMIUM, os.X_OK):
            return None
    return f"apt-get could not install chromium: {done.stderr.strip()[-300:] if done else ''}"


def ensure_chromium() -> str:
    """The Chromium binary, installed on first use; skips the calling test when that is impossible."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("playwright is not installed (requirements-dev.txt pins it)")
    if not os.access(CHROMIUM, os.X_OK):
        reason = _apt_install()
        if not os.access(CHROMIUM, os.X_OK):
            pytest.skip(reason or "chromium not found after installing it")
    return CHROMIUM


@contextmanager
def browser_page(binary: str) -> Iterator[Any]:
    """A Playwright page in a fresh headless Chromium profile; dialogs (confirm) are accepted."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="itachi-chromium-") as profile, sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile,
            executable_path=binary,
            headless=True,
            args=FLAGS,
            viewport={"width": 1280, "height": 900},
        )
        try:
            page = context.pages[0] if context.pages else context.new_page()
            page.on("dialog", lambda dialog: dialog.accept())
            page.set_default_timeout(60_000)
            yield page
        finally:
            context.close()


def screenshot(page: Any, name: str) -> Path:
    """Save a full-page screenshot under test-artifacts/console/ (gitignored)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
