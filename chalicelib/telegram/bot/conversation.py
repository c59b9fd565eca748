"""Free text that is not a command and not for a session: a conversational answer."""

from __future__ import annotations

from telegram import Update

from chalicelib.telegram.bot.context import Context, blocking, project_here, reply, services, topic_of


async def text(update: Update, context: Context) -> None:
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or not message.text or chat is None or user is None:
        return
    bot = services(context)
    project = await project_here(update, context)
    await bot.telegram.typing(chat.id, topic_of(update))
    answer = await blocking(bot.conversation.answer, message.text, speaker=user.first_name, project=project)
    await reply(update, context, answer)
