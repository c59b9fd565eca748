"""`itachi up`'s stack with its real agent (fake engines) and the fake Bot API, for end-to-end tests.

Updates are posted to the stack's webhook exactly as Telegram posts them.
"""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chalicelib.bootstrap import Container
from infra.local.stack import LocalStack, StackOptions
from tests.fakes.fake_telegram import FakeTelegram
from tests.support.agent_harness import fake_engine_env
from tests.support.orchestration import wait_for
from tests.support.telegram_bot import ALICE, GROUP, SECRET, callback_update


def post_update(api_url: str, update: dict[str, object]) -> int:
    request = urllib.request.Request(f"{api_url}/telegram/webhook", data=json.dumps(update).encode(),
                                     method="POST", headers={"Content-Type": "application/json",
                                                             "X-Telegram-Bot-Api-Secret-Token": SECRET})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status


@dataclass
class TelegramStack:
    api_url: str
    container: Container
    fake: FakeTelegram

    def post(self, update: dict[str, object]) -> None:
        assert post_update(self.api_url, update) == 200

    def press(self, label: str) -> None:
        """Press the button `label` of the last keyboard the bot sent to the group."""
        picker = wait_for(lambda: [m for m in self.fake.sent_messages(GROUP) if m.get("reply_markup")],
                          what="a keyboard")[-1]
        markup: Any = picker["reply_markup"]
        rows = (json.loads(markup) if isinstance(markup, str) else markup)["inline_keyboard"]
        (data,) = [b["callback_data"] for row in rows for b in row if b["text"] == label]
        self.post(callback_update(data, picker))

    def press_on(self, marker: str, label: str, *, timeout_s: float = 60) -> None:
        """Press the button `label` of the message whose text names `marker` and that has that button."""
        def buttons() -> list[tuple[str, dict[str, Any]]]:
            return [(b["callback_data"], m) for m in self.fake.sent_messages(GROUP)
                    if marker in str(m.get("text")) and m.get("reply_markup")
                    for row in _keyboard(m) for b in row if b["text"] == label]

        ((data, message),) = wait_for(buttons, timeout_s=timeout_s, every_s=0.05,
                                      what=f"{label} for {marker}")
        self.post(callback_update(data, message))

    def topic(self) -> int:
        (thread,) = wait_for(lambda: [t for (c, t) in self.fake.topics if c == GROUP], what="the topic")
        return thread


def _keyboard(message: dict[str, Any]) -> list[list[dict[str, Any]]]:
    markup: Any = message["reply_markup"]
    return list((json.loads(markup) if isinstance(markup, str) else markup)["inline_keyboard"])


@contextmanager
def telegram_stack(tmp_path: Path, database_url: str, **env: str) -> Iterator[TelegramStack]:
    """The stack, its agent "laptop" online, and the fake Bot API; `env` adds or replaces variables."""
    home = tmp_path / "home"
    (home / "logs").mkdir(parents=True)  # as `itachi up` does before starting the stack
    with FakeTelegram(forums=(GROUP,)) as fake:
        full = {**os.environ, **fake_engine_env(tmp_path / "engine.log"), "ITACHI_HOME": str(home),
                "TELEGRAM_BOT_TOKEN": fake.token, "TELEGRAM_API_URL": fake.base_url,
                "TELEGRAM_ALLOWED_USERS": str(ALICE), "TELEGRAM_CHAT_ID": str(GROUP),
                "TELEGRAM_WEBHOOK_SECRET": SECRET, "ITACHI_MACHINE_ID": "laptop",
                "ITACHI_ENGINE_PRIORITY": "claude", "ITACHI_AGENT_POLL_S": "1",
                "ITACHI_AGENT_HEARTBEAT_S": "1", **env}
        options = StackOptions(home=home, port=0, database_url=database_url, with_agent=True, env=full)
        stack = LocalStack(options, say=lambda line: None)
        api_url = stack.start()
        try:
            container = stack.container
            assert container is not None
            wait_for(lambda: any(m["id"] == "laptop" and m["status"] == "online"
                                 for m in container.machine_registry.list_machines()),
                     timeout_s=60, what="the local agent online")
            yield TelegramStack(api_url, container, fake)
        finally:
            stack.stop()
