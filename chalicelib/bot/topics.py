"""Opening the forum topic of a new task or session: where it goes and how it starts."""

from __future__ import annotations

from dataclasses import dataclass

from telegram import Update
from telegram.error import TelegramError

from chalicelib.adapters.telegram_topic_repository import Topic
from chalicelib.bot.context import Context, blocking, itachi
from chalicelib.logging import get_logger
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


async def start_story(context: Context, kind: str, ref_id: str, place: Place, title: str,
                      header: str) -> Topic:
    """Post the topic's first message, then register the topic so its stream may begin.

    The header goes out directly, before the topic is registered: no output can overtake it,
    and the stream's first flush is not held back by the header's. If Telegram refuses it now
    (flood control), the header joins the stream instead and goes out first once allowed.
    """
    telegram = itachi(context).telegram
    try:
        await context.bot.send_message(place.chat_id, header, message_thread_id=place.topic_id or None)
        sent = True
    except TelegramError:
        get_logger().warning("topic header deferred to the stream", extra={"ref_id": ref_id})
        sent = False
    topic = await blocking(telegram.topics.register, kind, ref_id, place.chat_id, place.topic_id, title)
    if not sent:
        await blocking(telegram.streams.post, topic, [header])
    return topic
