"""Free text that is not a command and not for a session: a conversational answer."""

from __future__ import annotations

from telegram import Update

from chalicelib.telegram.bot.context import Context, blocking, itachi, reply, topic_of


async def text(update: Update, context: Context) -> None:
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or not message.text or chat is None or user is None:
        return
    telegram = itachi(context).telegram
    topic = await blocking(telegram.topics.by_thread, chat.id, topic_of(update))
    project = await blocking(telegram.project_of, topic) if topic is not None else None
    await chat.send_action("typing", message_thread_id=topic_of(update) or None)
    answer = await blocking(telegram.conversation.answer, message.text, speaker=user.first_name,
                            project=project)
    await reply(update, answer)
