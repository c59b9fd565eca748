"""The Application built from the command table, with the handlers that are not commands.

Groups run in order: -1 the allow-list (a stranger stops there), 0 commands and buttons,
1 the relay (text, files and voice notes in a session's topic; text in a running task's), 2
conversation for any other text. Edited messages run nothing: a command is acted on once, when
it is sent. Each command of `domain/bot_commands.py` is served by the handler bound to it with
`@command`.
"""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from chalicelib.assistant.domain.task_intent import OFFER_PREFIX
from chalicelib.brain.domain.proposals import CALLBACK_PREFIX as PROPOSAL_PREFIX
from chalicelib.ssh.domain.run_story import CONFIRM_PREFIX
from chalicelib.telegram.bot import (  # noqa: F401 (imported for their @command bindings)
    agent_commands,
    approval_buttons,
    assistant_actions,
    brain_commands,
    budget_commands,
    continue_commands,
    conversation,
    deploy_commands,
    graph_buttons,
    guard,
    help_commands,
    machine_commands,
    memory_commands,
    reminder_commands,
    review_buttons,
    rule_commands,
    session_commands,
    ssh_commands,
    steer_commands,
    task_commands,
    topic_files,
)
from chalicelib.telegram.bot.context import SERVICES_KEY, BotServices, command_handlers
from chalicelib.telegram.domain.bot_commands import PICKER_PREFIX

NEW_MESSAGE = filters.UpdateType.MESSAGE
COMMAND_HANDLERS = command_handlers()  # raises at import if a command of the table has no handler


def build_application(token: str, api_url: str,
                      services: BotServices) -> Application[Any, Any, Any, Any, Any, Any]:
    file_url = api_url.removesuffix("/bot") + "/file/bot"  # where Telegram serves files' bytes
    app = Application.builder().token(token).base_url(api_url).base_file_url(file_url).updater(None).build()
    app.bot_data[SERVICES_KEY] = services
    app.add_handler(TypeHandler(Update, guard.allow_listed_only), group=-1)
    for name, callback in COMMAND_HANDLERS:
        app.add_handler(CommandHandler(name, callback, filters=NEW_MESSAGE))
    app.add_handler(CallbackQueryHandler(session_commands.picked, pattern=f"^{PICKER_PREFIX}:"))
    app.add_handler(CallbackQueryHandler(ssh_commands.confirmed, pattern=f"^{CONFIRM_PREFIX}:"))
    app.add_handler(CallbackQueryHandler(brain_commands.decided, pattern=f"^{PROPOSAL_PREFIX}:"))
    app.add_handler(CallbackQueryHandler(graph_buttons.resolved, pattern=graph_buttons.PATTERN))
    app.add_handler(CallbackQueryHandler(graph_buttons.settled, pattern=graph_buttons.RULE_PATTERN))
    app.add_handler(CallbackQueryHandler(review_buttons.decided, pattern=review_buttons.PATTERN))
    app.add_handler(CallbackQueryHandler(approval_buttons.decided, pattern=approval_buttons.PATTERN))
    app.add_handler(CallbackQueryHandler(assistant_actions.offer_decided, pattern=f"^{OFFER_PREFIX}:"))
    app.add_handler(CallbackQueryHandler(rule_commands.promoted, pattern=rule_commands.PATTERN))
    app.add_handler(CallbackQueryHandler(continue_commands.chosen, pattern=continue_commands.CHOICE_PATTERN))
    app.add_handler(CallbackQueryHandler(continue_commands.machine_picked,
                                         pattern=continue_commands.MACHINE_PATTERN))
    app.add_handler(CallbackQueryHandler(guard.stale_button))
    app.add_handler(MessageHandler(NEW_MESSAGE & filters.COMMAND, help_commands.unknown_command))
    app.add_handler(MessageHandler(NEW_MESSAGE & review_buttons.EDIT_REPLY & filters.TEXT & ~filters.COMMAND,
                                   review_buttons.edited))
    app.add_handler(MessageHandler(NEW_MESSAGE & filters.REPLY & filters.TEXT & ~filters.COMMAND,
                                   brain_commands.reason_given))
    app.add_handler(MessageHandler(NEW_MESSAGE & filters.TEXT & ~filters.COMMAND, session_commands.relay),
                    group=1)
    app.add_handler(MessageHandler(NEW_MESSAGE & topic_files.FILES, topic_files.file_sent), group=1)
    app.add_handler(MessageHandler(NEW_MESSAGE & topic_files.VOICE, topic_files.voice_sent), group=1)
    app.add_handler(MessageHandler(NEW_MESSAGE & filters.TEXT & ~filters.COMMAND, conversation.text), group=2)
    app.add_error_handler(guard.on_error)
    return app
