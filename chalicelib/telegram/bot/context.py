"""What every handler needs: the container, where a message was written, and how to answer."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from telegram import Message, Update
from telegram.ext import ContextTypes

from chalicelib.telegram.adapters.telegram_gateway import markup
from chalicelib.telegram.domain.telegram_text import split_message
from chalicelib.telegram.services.telegram_ports import Keyboard

if TYPE_CHECKING:
    from chalicelib.bootstrap import Container

T = TypeVar("T")
Context = ContextTypes.DEFAULT_TYPE
CONTAINER_KEY = "itachi.container"


def itachi(context: Context) -> Container:
    return context.application.bot_data[CONTAINER_KEY]  # type: ignore[no-any-return]


def topic_of(update: Update) -> int:
    """The forum topic the message was written in; 0 outside topics (General included)."""
    message = update.effective_message
    if message is None or not message.is_topic_message:
        return 0
    return message.message_thread_id or 0


async def blocking(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a synchronous service call off the event loop, so other updates and sends go on."""
    return await asyncio.to_thread(fn, *args, **kwargs)


async def reply(update: Update, text: str, keyboard: Keyboard | None = None) -> Message | None:
    """Answer in the chat and topic of the update, split into as many messages as needed."""
    message = update.effective_message
    if message is None:
        return None
    parts = split_message(text) or ["(empty)"]
    sent = None
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        sent = await message.reply_text(part, do_quote=False, reply_markup=markup(keyboard) if last else None)
    return sent


def topic_link(chat_id: int, topic_id: int) -> str | None:
    """A t.me link to a topic of a supergroup (ids of the form -100XXXXXXXXXX)."""
    digits = str(chat_id)
    if not topic_id or not digits.startswith("-100"):
        return None
    return f"https://t.me/c/{digits[4:]}/{topic_id}"
