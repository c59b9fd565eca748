"""/deploy <project>: the project's deploy command as a task offer (🚀 Deploy / ✖️ Cancel); the tap
is an offer's tap (`assistant_actions.offer_decided`): one task, output streamed to its topic.
/deploy set <project> [@machine] <command> stores the command."""

from __future__ import annotations

from telegram import Update

from chalicelib.assistant.domain.task_intent import offer_data
from chalicelib.telegram.bot.context import Context, available, blocking, command, reply, services, topic_of
from chalicelib.telegram.domain.bot_commands import parse_deploy


@command("deploy")
async def deploy(update: Update, context: Context) -> None:
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    assert message is not None and chat is not None
    request = parse_deploy(message.text or "")
    deploys = available(services(context).deploys, "Deploys are not set up on this server.")
    if request.command is not None:
        await reply(update, context, await blocking(deploys.configure, request.project, request.command,
                                                    request.machine))
        return
    offer, text = await blocking(deploys.offer, request.project, chat_id=chat.id, topic_id=topic_of(update),
                                 user_id=user.id if user else None)
    keyboard = [[("🚀 Deploy", offer_data(offer.id, True)), ("✖️ Cancel", offer_data(offer.id, False))]]
    await reply(update, context, text, keyboard)
