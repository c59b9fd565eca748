"""The buttons of a tool approval request: Approve, Deny, Allow for this session (once); of a plan:
Approve plan, Revise (the next message in the topic is the revision asked for)."""

from __future__ import annotations

from telegram import Update

from chalicelib.approvals.domain.approvals import PREFIX, decided_text, parse_callback, revising_text
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
    answers = {"allowed": "Approved.", "pending": "Write what to change in this topic."}
    await bot.telegram.answer_button(query.id, answers.get(done.status, "Denied."))
    if query.message is not None:
        text = revising_text(done) if done.revising else decided_text(done)
        await bot.telegram.edit(query.message.chat.id, query.message.message_id, text)


async def revision_reason(update: Update, context: Context, topic_id: int, text: str) -> bool:
    """A message in a topic whose plan waits after Revise: it goes back as the revision asked for."""
    bot, chat, user = services(context), update.effective_chat, update.effective_user
    if bot.approvals is None or chat is None:
        return False
    by = f"telegram:{user.username or user.id}" if user else "telegram"
    settled = await blocking(bot.approvals.give_reason, chat.id, topic_id, text, by)
    if settled is None:
        return False
    await bot.telegram.send(chat.id, "✏️ Sent back to Claude to revise the plan.", topic_id=topic_id)
    return True
