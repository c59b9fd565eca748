"""Natural-language actions: the task offer with its Create / Cancel buttons, and the tap.

Create opens the task's topic as /task does and creates exactly one task per offer (a second
tap, or a tap after Cancel, is answered and changes nothing)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from telegram import Update

from chalicelib.assistant.domain.task_intent import offer_data, parse_offer_data
from chalicelib.telegram.bot.buttons import Press, button
from chalicelib.telegram.bot.context import Context, blocking, reply, services, topic_link, topic_of
from chalicelib.telegram.bot.topics import open_topic, register, send_header
from chalicelib.telegram.domain.bot_commands import short_id
from chalicelib.telegram.domain.topic_story import topic_title

if TYPE_CHECKING:
    from chalicelib.assistant.services.task_offers import TaskOffers


async def offer_task(update: Update, context: Context, text: str, project: str | None) -> bool:
    """Offer the task this message asks for; False when it asks for none (or offers are off)."""
    bot = services(context)
    chat, user = update.effective_chat, update.effective_user
    if bot.offers is None or chat is None:
        return False
    offer = await blocking(
        bot.offers.offer_for,
        text,
        chat_id=chat.id,
        topic_id=topic_of(update),
        user_id=user.id if user else None,
        project_here=project,
    )
    if offer is None:
        return False
    keyboard = [[("✅ Create", offer_data(offer.id, True)), ("✖️ Cancel", offer_data(offer.id, False))]]
    await reply(update, context, await blocking(bot.offers.describe, offer), keyboard)
    return True


@button(parse_offer_data, lambda bot: bot.offers)
async def offer_decided(press: Press[tuple[str, bool]], offers: TaskOffers) -> None:
    offer_id, create = press.choice
    if not create:
        offer, changed = await blocking(offers.cancel, offer_id)
        await press.answer("Cancelled." if changed else _already(offer.status))
        if changed:
            await press.edit(f"Not created: {offer.prompt}")
        return
    if not await blocking(offers.accept, offer_id):
        offer = await blocking(offers.get, offer_id)
        await press.answer(_already(offer.status))
        return
    await press.answer("Creating the task...")
    offer = await blocking(offers.get, offer_id)
    title = topic_title(offer.project, offer.prompt)
    place = await open_topic(press.update, press.context, title)
    header = f"📋 {offer.project}\n{offer.prompt}\n\nProgress streams here; /cancel stops it."
    header_sent = await send_header(press.context, place, header)
    created = await blocking(offers.create, offer_id, place.chat_id, place.topic_id)
    assert created.task_id is not None
    await register(press.context, "task", created.task_id, place, title, header, header_sent)
    link = topic_link(place.chat_id, place.topic_id) if place.topic_id else None
    done = f"Task {short_id(created.task_id)} created for {offer.project}." + (
        f" Progress: {link}" if link else ""
    )
    if press.query.message is not None:
        await press.edit(done)
    else:
        await reply(press.update, press.context, done)


def _already(status: str) -> str:
    return "This task was already created." if status == "created" else "This offer was cancelled."
