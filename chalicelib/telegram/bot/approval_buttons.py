"""The buttons of a tool approval request: Approve, Deny, Allow for this session (once)."""

from __future__ import annotations

from telegram import Update

from chalicelib.approvals.domain.approvals import PREFIX, decided_text, parse_callback
from chalicelib.kernel.errors import DomainError
from chalicelib.telegram.bot.context import Context, blocking, services

PATTERN = f"^{PREFIX}:"


async def decided(update: Update, context: Context) -> None:
    query = update.callback_query
    assert query is not None and query.data is not None
    bot = services(context)
    choice = parse_callback(query.data)
    if choice is None or bot.approvals is None:
        await bot.telegram.answer_button(query.id, "This button is no longer active.")
        return
    user = update.effective_user
    by = f"telegram:{user.username or user.id}" if user else "telegram"
    try:
        done = await blocking(bot.approvals.decide, choice[0], choice[1], by)
    except DomainError as exc:  # already decided, expired or unknown
        await bot.telegram.answer_button(query.id, exc.message[:190], alert=True)
        return
    await bot.telegram.answer_button(query.id, "Approved." if done.status == "allowed" else "Denied.")
    if query.message is not None:
        await bot.telegram.edit(query.message.chat.id, query.message.message_id, decided_text(done))
