"""The buttons of a tool approval request: Approve, Deny, Allow for this session (once); of a plan:
Approve plan, Revise (the next message in the topic is the revision asked for)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from telegram import Update

from chalicelib.approvals.domain.approvals import PREFIX, Choice, decided_text, parse_callback, revising_text
from chalicelib.telegram.bot.buttons import Press, button
from chalicelib.telegram.bot.context import Context, blocking, services, who

if TYPE_CHECKING:
    from chalicelib.approvals.services.tool_approvals import ToolApprovals

PATTERN = f"^{PREFIX}:"


@button(parse_callback, lambda bot: bot.approvals)
async def decided(press: Press[tuple[str, Choice]], approvals: ToolApprovals) -> None:
    done = await blocking(approvals.decide, *press.choice, who(press.update))
    answers = {"allowed": "Approved.", "pending": "Write what to change in this topic."}
    await press.answer(answers.get(done.status, "Denied."))
    await press.edit(revising_text(done) if done.revising else decided_text(done))


async def revision_reason(update: Update, context: Context, topic_id: int, text: str) -> bool:
    """A message in a topic whose plan waits after Revise: it goes back as the revision asked for."""
    bot, chat = services(context), update.effective_chat
    if bot.approvals is None or chat is None:
        return False
    settled = await blocking(bot.approvals.give_reason, chat.id, topic_id, text, who(update))
    if settled is None:
        return False
    await bot.telegram.send(chat.id, "✏️ Sent back to Claude to revise the plan.", topic_id=topic_id)
    return True
