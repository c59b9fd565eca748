"""/rules [project]: a project's rules; in a project of namespaces each comes with ⬆ Promote to
<namespace>, and a press promotes it (allow-listed users only: the guard runs first)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from telegram import Update

from chalicelib.kernel.errors import InvalidInput
from chalicelib.telegram.bot.buttons import Press, button
from chalicelib.telegram.bot.context import (
    Context,
    available,
    blocking,
    command,
    project_here,
    reply,
    services,
    who,
)
from chalicelib.telegram.domain.bot_commands import parse_rules, spec
from chalicelib.telegram.domain.rule_buttons import PREFIX, parse_button

if TYPE_CHECKING:
    from chalicelib.telegram.services.rule_offers import RuleOffers

PATTERN = f"^{PREFIX}:"


@command("rules")
async def rules(update: Update, context: Context) -> None:
    offers = available(services(context).rule_offers, "Rules are not set up on this server.")
    project = parse_rules(context.args or []) or await project_here(update, context)
    if project is None:
        raise InvalidInput(f"Which project? Usage: {spec('rules').usage} (or ask in its topic)")
    listing, rule_messages = await blocking(offers.offer, project)
    await reply(update, context, listing)
    for text, keyboard in rule_messages:
        await reply(update, context, text, keyboard)


@button(parse_button, lambda bot: bot.rule_offers)
async def promoted(press: Press[tuple[str, str]], offers: RuleOffers) -> None:
    text = await blocking(offers.promote, *press.choice, who(press.update))
    await press.answer("Promoted.")
    await press.edit(text)
