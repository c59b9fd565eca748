"""/start, /help, and commands the bot does not know."""

from __future__ import annotations

from telegram import Update

from chalicelib.telegram.bot.context import Context, command, reply, services
from chalicelib.telegram.domain.bot_commands import help_text

WELCOME = ("Hi, I am Itachi. I queue coding tasks on your machines and stream their progress to a "
           "topic per task, run interactive sessions, and remember what your agents learned.")


@command("start")
async def start(update: Update, context: Context) -> None:
    where = ("" if services(context).forum_chat_id else
             "\n\nTip: set TELEGRAM_CHAT_ID to a forum supergroup to get one topic per task.")
    await reply(update, context, f"{WELCOME}\n\n{help_text()}{where}")


@command("help")
async def help_command(update: Update, context: Context) -> None:
    await reply(update, context, help_text())


async def unknown_command(update: Update, context: Context) -> None:
    await reply(update, context, "I do not know that command. /help lists what I can do.")
