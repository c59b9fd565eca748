"""`itachi telegram set-webhook` / `delete-webhook` against the fake Bot API."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.fake_telegram import FakeTelegram


@pytest.fixture
def fake() -> Iterator[FakeTelegram]:
    with FakeTelegram() as fake:
        yield fake


def itachi(home: Path, fake: FakeTelegram, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("TELEGRAM_")}
    env = {**base, "ITACHI_HOME": str(home), "TELEGRAM_BOT_TOKEN": fake.token,
           "TELEGRAM_API_URL": fake.base_url, **env}
    return subprocess.run([sys.executable, "-m", "agent.cli", "telegram", *args], capture_output=True,
                          text=True, timeout=60, env=env)


def test_set_webhook_generates_and_stores_a_secret_and_says_what_to_configure(
    tmp_path: Path, fake: FakeTelegram,
) -> None:
    done = itachi(tmp_path, fake, "set-webhook", "https://itachi.example.com/api/")

    assert done.returncode == 0, done.stderr
    assert fake.webhook_url == "https://itachi.example.com/api/telegram/webhook"
    stored = json.loads((tmp_path / "telegram.json").read_text())
    (call,) = fake.calls_to("setWebhook")
    assert call["secret_token"] == stored["webhook_secret"] and len(stored["webhook_secret"]) >= 32
    assert call["allowed_updates"] == ["message", "edited_message", "callback_query"]
    assert f"TELEGRAM_WEBHOOK_SECRET={stored['webhook_secret']}" in done.stdout
    assert stat.S_IMODE((tmp_path / "telegram.json").stat().st_mode) == 0o600
    assert [c["command"] for c in fake.commands][-1] == "help"


def test_set_webhook_uses_the_deployed_secret_when_given(tmp_path: Path, fake: FakeTelegram) -> None:
    done = itachi(tmp_path, fake, "set-webhook", "https://itachi.example.com/telegram/webhook",
                  TELEGRAM_WEBHOOK_SECRET="deployed-secret")

    assert done.returncode == 0, done.stderr
    assert fake.calls_to("setWebhook")[0]["secret_token"] == "deployed-secret"
    assert not (tmp_path / "telegram.json").exists()


def test_set_webhook_refuses_plain_http_and_a_missing_token(tmp_path: Path, fake: FakeTelegram) -> None:
    assert itachi(tmp_path, fake, "set-webhook", "http://itachi.example.com").returncode == 2
    assert itachi(tmp_path, fake, "set-webhook", "https://x.example", TELEGRAM_BOT_TOKEN="").returncode == 2
    assert fake.calls_to("setWebhook") == []


def test_delete_webhook_lets_itachi_up_poll_again(tmp_path: Path, fake: FakeTelegram) -> None:
    fake.webhook_url = "https://itachi.example.com/telegram/webhook"

    assert itachi(tmp_path, fake, "delete-webhook").returncode == 0

    assert fake.webhook_url == ""
