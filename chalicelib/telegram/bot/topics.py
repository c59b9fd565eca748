"""Opening the forum topic of a new task or session: where it goes and how it starts."""

from __future__ import annotations

from dataclasses import dataclass

from telegram import Update

from chalicelib.kernel.logging import get_logger
from chalicelib.telegram.bot.context import Context, blocking, services
from chalicelib.telegram.domain.telegram_records import Topic
from chalicelib.telegram.services.ports import SendFailed, Undeliverable

HEADER_POSITION = 0  # before every event (event sequence numbers start at 1)


@dataclass(frozen=True)
class Place:
    chat_id: int
    topic_id: int  # 0: no topic, the chat itself


async def open_topic(update: Update, context: Context, title: str) -> Place:
    """A new topic in the configured supergroup, else in this chat if it is a forum, else this chat."""
    chat = update.effective_chat
    assert chat is not None
    bot = services(context)
    target = bot.forum_chat_id or (chat.id if chat.is_forum else None)
    if target is not None:
        try:
            return Place(target, await bot.telegram.create_topic(target, title))
        except Undeliverable:
            pass  # not a forum (or the bot may not manage topics): stream into this chat instead
    return Place(chat.id, 0)


async def send_header(context: Context, place: Place, header: str) -> bool:
    """Post a topic's first message directly, before its task or session exists.

    Nothing can overtake it (there is nothing to stream yet), and the stream's first flush is
    not held back by the header's. False when Telegram refused it now (e.g. flood control):
    `register` then puts it first in the stream.
    """
    try:
        await services(context).telegram.send(place.chat_id, header, topic_id=place.topic_id)
        return True
    except SendFailed:
        get_logger().warning("topic header deferred to the stream", extra={"chat_id": place.chat_id})
        return False


async def register(context: Context, kind: str, ref_id: str, place: Place, title: str, header: str,
                   header_sent: bool) -> Topic:
    """Record the topic of a new task or session; queue its header first if it was not sent."""
    bot = services(context)
    topic = await blocking(bot.topics.register, kind, ref_id, place.chat_id, place.topic_id, title)
    if not header_sent:
        await blocking(bot.streams.post, topic, [header], [HEADER_POSITION])
    return topic
