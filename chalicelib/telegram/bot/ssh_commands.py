"""/ssh <target> and /exec @<machine>: one-off commands, output streamed to this chat or topic.

A command off the target's allow-list first asks for the confirmation button; the press goes
through the same allow-list guard as every update.
"""

from __future__ import annotations

from telegram import Update

from chalicelib.ssh.domain.run_rules import AWAITING
from chalicelib.ssh.domain.run_story import confirm_data, confirmation, parse_confirm_data
from chalicelib.ssh.domain.ssh_model import DEFAULT_TIMEOUT_S
from chalicelib.ssh.services.ssh_runs import RunRequest, SshRuns
from chalicelib.telegram.bot.buttons import Press, button
from chalicelib.telegram.bot.context import Context, blocking, commands, reply, services, topic_of
from chalicelib.telegram.domain.bot_commands import parse_remote


@commands("ssh", "exec")
async def run_remote(update: Update, context: Context, verb: str) -> None:
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


@button(parse_confirm_data, lambda bot: bot.ssh_runs)
async def confirmed(press: Press[tuple[str, bool]], runs: SshRuns) -> None:
    """The confirmation button: run the command or drop it (a second press is refused)."""
    run = await blocking(runs.confirm, *press.choice)
    go = press.choice[1]
    await press.answer("Running..." if go else "Cancelled.")
    await press.edit(f"{run.target}: `{run.command}` {'running; output follows.' if go else 'cancelled.'}")
