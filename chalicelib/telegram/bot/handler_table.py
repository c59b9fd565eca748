"""The one table of the bot's handlers, and the Application built from it.

Groups run in order: -1 the allow-list (a stranger stops there), 0 commands and buttons,
1 the session relay (text in a session's topic), 2 conversation for any other text. Edited
messages run nothing: a command is acted on once, when it is sent.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from telegram import Update
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from chalicelib.telegram.bot import (
    conversation,
    guard,
    help_commands,
    machine_commands,
    memory_commands,
    reminder_commands,
    session_commands,
    task_commands,
)
from chalicelib.telegram.bot.context import CONTAINER_KEY, Context
from chalicelib.telegram.domain.bot_commands import COMMAND_NAMES, PICKER_PREFIX

if TYPE_CHECKING:
    from chalicelib.bootstrap import Container

Callback = Callable[[Update, Context], Coroutine[Any, Any, None]]

COMMANDS: dict[str, Callback] = {
    "task": task_commands.task,
    "cancel": task_commands.cancel,
    "status": task_commands.status,
    "session": session_commands.session,
    "close": session_commands.close,
    "machines": machine_commands.machines,
    "repos": machine_commands.repos,
    "engines": machine_commands.engines,
    "recall": memory_commands.recall,
    "learn": memory_commands.learn,
    "feedback": memory_commands.feedback,
    "remind": reminder_commands.remind,
    "start": help_commands.start,
    "help": help_commands.help_command,
}
assert set(COMMANDS) == COMMAND_NAMES, "every command in the help has a handler, and only those"

NEW_MESSAGE = filters.UpdateType.MESSAGE


def build_application(container: Container) -> Application[Any, Any, Any, Any, Any, Any]:
    s = container.settings
    app = (Application.builder().token(s.telegram_bot_token).base_url(s.telegram_api_url)
           .updater(None).build())
    app.bot_data[CONTAINER_KEY] = container
    app.add_handler(TypeHandler(Update, guard.allow_listed_only), group=-1)
    for name, callback in COMMANDS.items():
        app.add_handler(CommandHandler(name, callback, filters=NEW_MESSAGE))
    app.add_handler(CallbackQueryHandler(session_commands.picked, pattern=f"^{PICKER_PREFIX}:"))
    app.add_handler(CallbackQueryHandler(guard.stale_button))
    app.add_handler(MessageHandler(NEW_MESSAGE & filters.COMMAND, help_commands.unknown_command))
    app.add_handler(MessageHandler(NEW_MESSAGE & filters.TEXT & ~filters.COMMAND, session_commands.relay),
                    group=1)
    app.add_handler(MessageHandler(NEW_MESSAGE & filters.TEXT & ~filters.COMMAND, conversation.text), group=2)
    app.add_error_handler(guard.on_error)
    return app
