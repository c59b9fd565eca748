"""The buttons of an announced contradiction (the graph's, or a flagged rule's): Keep new, Keep
old, Keep both (once)."""

from __future__ import annotations

from telegram import Update

from chalicelib.graph.domain.contradiction_buttons import PREFIX, RULE_PREFIX, parse_button, resolved_text
from chalicelib.kernel.errors import DomainError
from chalicelib.telegram.bot.context import Context, blocking, services

PATTERN = f"^({PREFIX}|{RULE_PREFIX}):"


async def resolved(update: Update, context: Context) -> None:
    query = update.callback_query
    assert query is not None and query.data is not None
    bot = services(context)
    if query.data.startswith(f"{RULE_PREFIX}:"):
        await _settled(update, context)
        return
    choice = parse_button(query.data)
    if choice is None or bot.graph_admin is None:
        await bot.telegram.answer_button(query.id, "This button is no longer active.")
        return
    try:
        done = await blocking(bot.graph_admin.resolve, *choice)
    except (LookupError, ValueError) as exc:  # unknown, or already resolved
        await bot.telegram.answer_button(query.id, str(exc)[:190])
        return
    await bot.telegram.answer_button(query.id, "Done.")
    if query.message is not None:
        await bot.telegram.edit(query.message.chat.id, query.message.message_id,
                                f"Contradiction in {done['project']}: {resolved_text(choice[1])}")


async def _settled(update: Update, context: Context) -> None:
    """A flagged rule's button: the instruction store settles the clash."""
    query = update.callback_query
    assert query is not None and query.data is not None
    bot = services(context)
    choice = parse_button(query.data, RULE_PREFIX)
    if choice is None or bot.rule_clashes is None:
        await bot.telegram.answer_button(query.id, "This button is no longer active.")
        return
    try:
        done = await blocking(bot.rule_clashes.settle, *choice)
    except DomainError as exc:  # unknown, or already settled
        await bot.telegram.answer_button(query.id, str(exc)[:190])
        return
    await bot.telegram.answer_button(query.id, "Done.")
    if query.message is not None:
        await bot.telegram.edit(query.message.chat.id, query.message.message_id,
                                f"Rules of {done['project']}: {resolved_text(choice[1])}")
