"""/rules [project]: a project's rules; in a project of namespaces each comes with ⬆ Promote to
<namespace>, and a press promotes it (allow-listed users only: the guard runs first)."""

from __future__ import annotations

from telegram import Update

from chalicelib.kernel.errors import DomainError, InvalidInput, Unavailable
from chalicelib.telegram.bot.context import Context, blocking, command, project_here, reply, services
from chalicelib.telegram.domain.bot_commands import parse_rules, spec
from chalicelib.telegram.domain.rule_buttons import PREFIX, parse_button

PATTERN = f"^{PREFIX}:"


@command("rules")
async def rules(update: Update, context: Context) -> None:
    offers = services(context).rule_offers
    if offers is None:
        raise Unavailable("Rules are not set up on this server.")
    project = parse_rules(context.args or []) or await project_here(update, context)
    if project is None:
        raise InvalidInput(f"Which project? Usage: {spec('rules').usage} (or ask in its topic)")
    listing, rule_messages = await blocking(offers.offer, project)
    await reply(update, context, listing)
    for text, keyboard in rule_messages:
        await reply(update, context, text, keyboard)


async def promoted(update: Update, context: Context) -> None:
    query = update.callback_query
    assert query is not None and query.data is not None
    bot = services(context)
    choice = parse_button(query.data)
    if choice is None or bot.rule_offers is None:
        await bot.telegram.answer_button(query.id, "This button is no longer active.")
        return
    user = update.effective_user
    by = f"telegram:{user.username or user.id}" if user else "telegram"
    try:
        text = await blocking(bot.rule_offers.promote, *choice, by)
    except DomainError as exc:  # promoted already, replaced, or no longer a member
        await bot.telegram.answer_button(query.id, exc.message[:190], alert=True)
        return
    await bot.telegram.answer_button(query.id, "Promoted.")
    if query.message is not None:
        await bot.telegram.edit(query.message.chat.id, query.message.message_id, text)
