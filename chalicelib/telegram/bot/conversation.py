"""Free text that is not a command and not for a session: a task offer when it asks for work,
otherwise a conversational answer; either way the assistant learns from it afterwards."""

from __future__ import annotations

from telegram import Update

from chalicelib.kernel.logging import get_logger
from chalicelib.telegram.bot.assistant_actions import offer_task
from chalicelib.telegram.bot.context import Context, blocking, project_here, reply, services, topic_of


async def text(update: Update, context: Context) -> None:
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or not message.text or chat is None or user is None:
        return
    bot = services(context)
    project = await project_here(update, context)
    await bot.telegram.typing(chat.id, topic_of(update))
    if not await offer_task(update, context, message.text, project):
        answer = await blocking(
            bot.conversation.answer, message.text, speaker=user.first_name, project=project
        )
        await reply(update, context, answer)
    if bot.assistant is not None:
        try:
            await blocking(bot.assistant.observe, chat.id, user.first_name, message.text)
        except Exception:  # learning about the user never costs the user their answer
            get_logger().exception("the assistant could not learn from a message")
