"""The review digest's buttons: Keep and Drop decide at once, Edit asks for the new text as a reply.

The person recorded is the Telegram user id (`telegram:<id>`). A memory already decided (in the
console or by another button) answers the press with why, and nothing changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from telegram import Message, Update
from telegram.ext import ApplicationHandlerStop, filters

from chalicelib.kernel.errors import DomainError
from chalicelib.memory.domain.review_digest import (
    PREFIX,
    decided_text,
    edit_asked_about,
    edit_question,
    parse_button,
)
from chalicelib.telegram.bot.buttons import Press, button
from chalicelib.telegram.bot.context import Context, blocking, reply, services

if TYPE_CHECKING:
    from chalicelib.memory.services.memory_review import MemoryReview

PATTERN = f"^{PREFIX}:"


class _EditReply(filters.MessageFilter):
    """A reply to one of the bot's edit questions."""

    def filter(self, message: Message) -> bool:
        asked = message.reply_to_message
        return asked is not None and edit_asked_about(asked.text or "") is not None


EDIT_REPLY = _EditReply()


def _who(update: Update) -> str:
    user = update.effective_user
    return f"telegram:{user.id}" if user else "telegram"


@button(parse_button, lambda bot: bot.review)
async def decided(press: Press[tuple[str, str]], review: MemoryReview) -> None:
    memory_id, action = press.choice
    who = _who(press.update)
    if action == "edit":
        current = await blocking(review.pending, memory_id)
    elif action == "keep":
        current = await blocking(review.keep, memory_id, who)
    else:
        current = await blocking(review.drop, memory_id, who)
    if action == "edit":
        await press.answer("Reply with the new text.")
        await press.ask(edit_question(memory_id, current.content), "the new text")
        return
    await press.answer("Kept." if action == "keep" else "Dropped.")
    await press.send(decided_text(action, current, who))


async def edited(update: Update, context: Context) -> None:
    """A reply to an edit question: the memory is kept with the reply's text."""
    message = update.effective_message
    bot = services(context)
    asked = message.reply_to_message if message is not None else None
    memory_id = edit_asked_about(asked.text or "") if asked is not None else None
    if message is None or not message.text or memory_id is None or bot.review is None:
        return
    if asked is None or asked.from_user is None or not asked.from_user.is_bot:
        return
    who = _who(update)
    try:
        kept = await blocking(bot.review.keep, memory_id, who, message.text)
    except DomainError as exc:
        await reply(update, context, exc.message)
    else:
        await reply(update, context, decided_text("edit", kept, who))
    raise ApplicationHandlerStop  # the new text is not a message for a session or the assistant

