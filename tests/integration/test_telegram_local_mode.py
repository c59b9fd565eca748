"""Local mode: `itachi up` with a bot token and no webhook serves the bot by long polling."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from infra.local.stack import LocalStack, StackOptions
from tests.fakes.fake_telegram import FakeTelegram, load_update_fixture
from tests.support.orchestration import wait_for
from tests.support.telegram_bot import ALICE, GROUP


@contextmanager
def local_stack(home: Path, database_url: str, fake: FakeTelegram, said: list[str]) -> Iterator[LocalStack]:
    env = {"TELEGRAM_BOT_TOKEN": fake.token, "TELEGRAM_API_URL": fake.base_url,
           "TELEGRAM_ALLOWED_USERS": str(ALICE), "TELEGRAM_CHAT_ID": str(GROUP), "ITACHI_HOME": str(home)}
    stack = LocalStack(StackOptions(home=home, port=0, database_url=database_url, with_agent=False, env=env),
                       say=said.append)
    stack.start()
    try:
        yield stack
    finally:
        stack.stop()


def test_up_polls_telegram_and_answers_with_the_same_handlers(tmp_path: Path, database_url: str) -> None:
    said: list[str] = []
    with FakeTelegram(forums=(GROUP,)) as fake, local_stack(tmp_path / "home", database_url, fake, said):
        assert "Telegram: polling for updates (local mode)." in said
        assert [c["command"] for c in fake.commands][:3] == ["task", "session", "close"]

        fake.push_update(load_update_fixture("private_help_command"))

        reply = wait_for(lambda: fake.sent_texts(chat_id=ALICE), what="the /help reply")
        assert "/task [--plan] <project> <description>" in reply[0]


def test_up_does_not_poll_when_a_webhook_is_set(tmp_path: Path, database_url: str) -> None:
    said: list[str] = []
    with FakeTelegram(forums=(GROUP,)) as fake:
        fake.webhook_url = "https://itachi.example.com/telegram/webhook"
        with local_stack(tmp_path / "home", database_url, fake, said):
            assert any("a webhook is set for this bot" in line for line in said)
            assert fake.calls_to("getUpdates") == []
