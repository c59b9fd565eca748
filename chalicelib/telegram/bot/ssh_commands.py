"""/ssh <target> and /exec @<machine>: one-off commands, output streamed to this chat or topic.

A command off the target's allow-list first asks for the confirmation button; the press goes
through the same allow-list guard as every update.
"""

from __future__ import annotations

from telegram import Update

from chalicelib.ssh.domain.run_rules import AWAITING
from chalicelib.ssh.domain.run_story import confirm_data, confirmation, parse_confirm_data
from chalicelib.ssh.domain.ssh_model import DEFAULT_TIMEOUT_S
from chalicelib.ssh.services.ssh_runs import RunRequest
from chalicelib.telegram.bot.context import Context, blocking, command, reply, services, topic_of
from chalicelib.telegram.domain.bot_commands import parse_remote


@command("ssh")
async def ssh(update: Update, context: Context) -> None:
    await _run(update, context, "ssh")


@command("exec")
async def exec_command(update: Update, context: Context) -> None:
    await _run(update, context, "exec")


async def _run(update: Update, context: Context, verb: str) -> None:
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    assert message is not None and chat is not None
    parsed = parse_remote(message.text or "", verb)
    request = RunRequest(parsed.command, chat.id, topic_of(update), user.id if user else None,
                         target=parsed.where if verb == "ssh" else None,
                         machine=parsed.where if verb == "exec" else None,
                         timeout_s=parsed.timeout_s or DEFAULT_TIMEOUT_S)
    run = await blocking(services(context).ssh_runs.request, request)
    if run.status == AWAITING:
        keyboard = [[("▶️ Run it", confirm_data(run.id, True)), ("✖️ Cancel", confirm_data(run.id, False))]]
        await reply(update, context, confirmation(run), keyboard)


async def confirmed(update: Update, context: Context) -> None:
    """The confirmation button: run the command or drop it (a second press is refused)."""
    query = update.callback_query
    assert query is not None and query.data is not None
    bot = services(context)
    choice = parse_confirm_data(query.data)
    if choice is None:
        await bot.telegram.answer_button(query.id, "This button is no longer active.")
        return
    run = await blocking(bot.ssh_runs.confirm, *choice)
    await bot.telegram.answer_button(query.id, "Running..." if choice[1] else "Cancelled.")
    if query.message is not None:
        outcome = "running; output follows." if choice[1] else "cancelled."
        await bot.telegram.edit(query.message.chat.id, query.message.message_id,
                                f"{run.target}: `{run.command}` {outcome}")
