"""The bot under test: real Postgres, moto's SQS and python-telegram-bot against FakeTelegram.

Updates are built from the fixtures in tests/fixtures/telegram (real Telegram shapes) with a
fresh update_id and message_id each, so one fixture can drive many commands. Time runs
TIME_SCALE times as fast for the streams' pace and Telegram's flood limits alike: production
pacing against production limits, a hundred times faster.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from chalicelib.bootstrap import Container, set_container
from chalicelib.telegram.services.topic_streams import FLUSH_INTERVAL_S, StreamPacing
from tests.fakes.fake_telegram import FakeTelegram, load_update_fixture
from tests.fakes.telegram_limits import TelegramLimits
from tests.support.local_stack import make_container, settings_for_test

GROUP = -1001234567890
ALICE = 111111111
MALLORY = 999999999
SECRET = "test-webhook-secret"
TIME_SCALE = 0.01
_ids = itertools.count(200_000_000)


def message_update(text: str, *, chat_id: int = GROUP, thread_id: int | None = None,
                   user_id: int = ALICE) -> dict[str, Any]:
    """A `message` update as Telegram sends it, in the group (or a private chat for a positive id)."""
    base = load_update_fixture("topic_text_message" if thread_id else "group_task_command")
    update = json.loads(json.dumps(base))
    message = update["message"]
    update["update_id"] = next(_ids)
    message["message_id"] = next(_ids) % 1_000_000
    message["text"] = text
    message.pop("entities", None)
    if text.startswith("/"):
        message["entities"] = [{"offset": 0, "length": len(text.split()[0]), "type": "bot_command"}]
    if thread_id:
        message["message_thread_id"] = thread_id
        message["reply_to_message"]["message_thread_id"] = thread_id
        message["reply_to_message"]["message_id"] = thread_id
    if user_id != ALICE:
        message["from"] = load_update_fixture("stranger_message")["message"]["from"]
    if chat_id > 0:
        message["chat"] = {"id": chat_id, "first_name": "Alice", "type": "private"}
        message.pop("message_thread_id", None)
        message.pop("is_topic_message", None)
        message.pop("reply_to_message", None)
    return update


def callback_update(data: str, message: dict[str, Any]) -> dict[str, Any]:
    """Alice pressing a button whose callback data is `data` on a message the bot sent."""
    update = json.loads(json.dumps(load_update_fixture("callback_query")))
    update["update_id"] = next(_ids)
    update["callback_query"]["id"] = str(next(_ids))
    update["callback_query"]["data"] = data
    update["callback_query"]["message"] = {**message, "date": message.get("date", 1732240025)}
    return update


@dataclasses.dataclass
class BotHarness:
    fake: FakeTelegram
    container: Container
    sleeps: list[float]

    def send(self, update: dict[str, Any]) -> bool:
        """Run one update through the consumer's runner (as the telegram-updates consumer does)."""
        return self.container.telegram_updates.run(update)

    def flush(self, rounds: int = 200) -> int:
        """Pump every stream with pending output until none is left; return messages sent."""
        sent = 0
        for _ in range(rounds):
            streams = self.container.topic_streams
            pending = streams.pending_streams()
            if not pending:
                break
            for stream in pending:
                sent += streams.pump(stream)
        return sent

    def texts(self, chat_id: int | None = None, thread_id: int | None = None) -> list[str]:
        return self.fake.sent_texts(chat_id, thread_id)

    def last_text(self, chat_id: int | None = None, thread_id: int | None = None) -> str:
        texts = self.texts(chat_id, thread_id)
        assert texts, "the bot sent nothing there"
        return texts[-1]


def telegram_settings(home: Path, database_url: str, moto_endpoint: str, fake: FakeTelegram,
                      **overrides: Any) -> Any:
    base = settings_for_test(home, database_url, moto_endpoint)
    fields: dict[str, Any] = {
        "telegram_bot_token": fake.token, "telegram_api_url": fake.base_url,
        "telegram_allowed_users": (ALICE,), "telegram_chat_id": GROUP, "telegram_webhook_secret": SECRET,
    }
    return base.replace(**{**fields, **overrides})


@contextmanager
def bot_harness(home: Path, database_url: str, moto_endpoint: str, **overrides: Any) -> Iterator[BotHarness]:
    with FakeTelegram(forums=(GROUP,), limits=TelegramLimits().scaled(TIME_SCALE)) as fake:
        container = make_container(telegram_settings(home, database_url, moto_endpoint, fake, **overrides))
        sleeps: list[float] = []

        def sleep(seconds: float) -> None:
            sleeps.append(seconds)
            time.sleep(seconds)

        container.stream_pacing = StreamPacing(flush_interval_s=FLUSH_INTERVAL_S * TIME_SCALE, sleep=sleep)
        set_container(container)
        try:
            yield BotHarness(fake, container, sleeps)
        finally:
            set_container(None)
            container.close()
