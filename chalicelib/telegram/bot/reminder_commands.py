"""/remind <when> <message>; /remind alone lists your pending reminders."""

from __future__ import annotations

from datetime import UTC, datetime

from telegram import Update

from chalicelib.telegram.bot.context import Context, blocking, command, reply, services, topic_of


@command("remind")
async def remind(update: Update, context: Context) -> None:
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    reminders = services(context).reminders
    if not context.args:
        pending = await blocking(reminders.pending, user.id)
        if not pending:
            await reply(update, context, "You have no pending reminders. Usage: /remind <when> <message>")
            return
        lines = [f"{r.due_at:%Y-%m-%d %H:%M} UTC: {r.message}" for r in pending]
        await reply(update, context, "Pending reminders:\n" + "\n".join(lines))
        return
    reminder = await blocking(reminders.schedule, " ".join(context.args), chat_id=chat.id,
                              topic_id=topic_of(update), user_id=user.id, now=datetime.now(UTC))
    await reply(update, context,
                f"OK, I will remind you at {reminder.due_at:%Y-%m-%d %H:%M} UTC: {reminder.message}")
