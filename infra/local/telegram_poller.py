"""Local mode: with a bot token and no webhook, `itachi up` long-polls Telegram (getUpdates).

Each update goes through the same intake as the webhook (recorded once, queued) and the same
consumer and handlers, so a user can try the bot without a public URL. If Telegram reports a
webhook for this bot, polling would conflict with it: the poller says so and stays off.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from chalicelib.kernel.logging import get_logger
from chalicelib.telegram.adapters.telegram_gateway import TelegramGateway
from chalicelib.telegram.domain.bot_commands import command_menu

ALLOWED_UPDATES = ["message", "edited_message", "callback_query"]
RETRY_PAUSE_S = 3.0


async def register_commands(bot: Any) -> None:
    """Show the command list in Telegram's menu (`itachi telegram set-webhook`, with its own Bot)."""
    from telegram import BotCommand

    await bot.set_my_commands([BotCommand(name, summary) for name, summary in command_menu()])


class TelegramPoller:
    def __init__(self, gateway: TelegramGateway, accept: Callable[[Mapping[str, Any]], bool], *,
                 poll_timeout_s: int = 10, say: Callable[[str], None] = print) -> None:
        self._gateway = gateway
        self._accept = accept
        self._timeout = poll_timeout_s
        self._say = say
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="telegram-poller", daemon=True)
        self.handled = 0

    def start(self) -> bool:
        """Start polling unless a webhook is set; return whether polling started."""
        url = self._gateway.webhook_url()
        if url:
            self._say(f"Telegram: a webhook is set for this bot ({url}); not polling. "
                      "Run `itachi telegram delete-webhook` to poll locally instead.")
            return False
        self._gateway.set_commands(command_menu())
        self._thread.start()
        self._say("Telegram: polling for updates (local mode).")
        return True

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=self._timeout + 5)

    def _loop(self) -> None:
        offset: int | None = None
        while not self._stop.is_set():
            try:
                updates = self._gateway.updates(offset, timeout_s=self._timeout, allowed=ALLOWED_UPDATES)
                for update in updates:
                    self._accept(update)
                    offset = int(update["update_id"]) + 1  # confirmed only once it is safely queued
                    self.handled += 1
            except Exception:  # a network error or a stopped runtime: pause, then try again
                if self._stop.is_set():
                    return
                get_logger().exception("telegram polling failed")
                self._stop.wait(RETRY_PAUSE_S)


def start_polling(gateway: TelegramGateway, accept: Callable[[Mapping[str, Any]], bool],
                  say: Callable[[str], None] = print) -> TelegramPoller | None:
    """Poll in a thread; None (and a line saying why) when polling cannot or must not run."""
    poller = TelegramPoller(gateway, accept, say=say)
    try:
        return poller if poller.start() else None
    except Exception as error:  # a bad token or no network must not keep the rest from running
        get_logger().exception("telegram polling not started")
        say(f"Telegram: polling not started ({type(error).__name__}); check TELEGRAM_BOT_TOKEN.")
        return None
