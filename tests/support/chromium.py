"""Debian's Chromium driven by Playwright (from PyPI) for the console's browser tests.

`ensure_chromium()` finds /usr/bin/chromium, which `make test` installs beforehand (Debian's
`chromium`, `make system-packages`); without it, or without Playwright, the browser tests fail
with the command to run. `browser_page()` opens a fresh profile (its own --user-data-dir) with
the flags that keep Chromium off the network: this machine has no internet, and Chromium's
background connections would otherwise be refused and slow every start.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
INSTALL_HINT = "run `make system-packages` (apt-get install chromium chromium-driver, as root)"
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


def ensure_chromium(binary: str = CHROMIUM) -> str:
    """The Chromium binary; fails the calling test with the command that installs what is missing."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.fail("playwright is not installed: run `make` (requirements-dev.txt pins it)", pytrace=False)
    if not os.access(binary, os.X_OK):
        pytest.fail(f"{binary} is not installed: {INSTALL_HINT}", pytrace=False)
    return binary


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
