"""MessageSender over python-telegram-bot: plain-text messages and forum topics.

Telegram's answers become the port's errors: 429 -> FloodControl(retry_after), and the
requests that can never succeed (topic closed or deleted, chat gone, bot removed, not a
forum) -> Undeliverable. Anything else (network errors, timeouts) propagates.
"""

from __future__ import annotations

import datetime as dtm
from collections.abc import Awaitable, Callable
from typing import TypeVar

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, Forbidden, RetryAfter

from chalicelib.telegram.bot.runtime import BotRuntime
from chalicelib.telegram.services.telegram_ports import FloodControl, Keyboard, Undeliverable

T = TypeVar("T")
_UNDELIVERABLE = ("topic_closed", "topic_deleted", "thread not found", "chat not found",
                  "not a forum", "topic_id_invalid", "message thread not found", "bot was kicked")


def retry_after_seconds(error: RetryAfter) -> float:
    value = error.retry_after
    return value.total_seconds() if isinstance(value, dtm.timedelta) else float(value)


def markup(keyboard: Keyboard | None) -> InlineKeyboardMarkup | None:
    if not keyboard:
        return None
    return InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=data) for label, data in row]
                                 for row in keyboard])


class TelegramGateway:
    def __init__(self, runtime: BotRuntime) -> None:
        self._runtime = runtime

    def _call(self, work: Callable[[Bot], Awaitable[T]]) -> T:
        try:
            return self._runtime.call(work)
        except RetryAfter as error:
            raise FloodControl(retry_after_seconds(error)) from error
        except Forbidden as error:
            raise Undeliverable(str(error)) from error
        except BadRequest as error:
            if any(marker in str(error).lower() for marker in _UNDELIVERABLE):
                raise Undeliverable(str(error)) from error
            raise

    def send(self, chat_id: int, text: str, *, topic_id: int = 0, keyboard: Keyboard | None = None) -> int:
        message = self._call(lambda bot: bot.send_message(
            chat_id, text, message_thread_id=topic_id or None, reply_markup=markup(keyboard)))
        return message.message_id

    def create_topic(self, chat_id: int, name: str) -> int:
        topic = self._call(lambda bot: bot.create_forum_topic(chat_id, name))
        return topic.message_thread_id

    def rename_topic(self, chat_id: int, topic_id: int, name: str) -> None:
        self._call(lambda bot: bot.edit_forum_topic(chat_id, topic_id, name=name))

    def close_topic(self, chat_id: int, topic_id: int) -> None:
        self._call(lambda bot: bot.close_forum_topic(chat_id, topic_id))
