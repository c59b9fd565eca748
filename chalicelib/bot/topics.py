"""Opening the forum topic of a new task or session: where it goes and how it starts."""

from __future__ import annotations

from dataclasses import dataclass

from telegram import Update

from chalicelib.bot.context import Context, blocking, itachi
from chalicelib.services.telegram_ports import Undeliverable


@dataclass(frozen=True)
class Place:
    chat_id: int
    topic_id: int  # 0: no topic, the chat itself


async def open_topic(update: Update, context: Context, title: str) -> Place:
    """A new topic in the configured supergroup, else in this chat if it is a forum, else this chat."""
    chat = update.effective_chat
    assert chat is not None
    container = itachi(context)
    target = container.settings.telegram_chat_id or (chat.id if chat.is_forum else None)
    if target is not None:
        try:
            topic_id = await blocking(container.telegram.sender.create_topic, target, title)
            return Place(target, topic_id)
        except Undeliverable:
            pass  # not a forum (or the bot may not manage topics): stream into this chat instead
    return Place(chat.id, 0)
