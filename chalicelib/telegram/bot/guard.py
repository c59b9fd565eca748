"""The allow-list (runs before every handler) and the one error handler."""

from __future__ import annotations

from telegram import Update
from telegram.ext import ApplicationHandlerStop

from chalicelib.kernel.errors import DomainError
from chalicelib.kernel.logging import get_logger
from chalicelib.telegram.bot.buttons import STALE
from chalicelib.telegram.bot.context import Context, blocking, reply, services

REFUSAL = ("Sorry, this is a private Itachi bot and you are not on its list of users. "
           "Your Telegram user id is {user_id}: its owner can add it to TELEGRAM_ALLOWED_USERS.")
FAILURE = "Sorry, something went wrong while handling that. It has been logged; please try again later."


async def allow_listed_only(update: object, context: Context) -> None:
    """Let allow-listed users through; refuse a stranger once, politely, and run nothing."""
    if not isinstance(update, Update):
        raise ApplicationHandlerStop
    user, query = update.effective_user, update.callback_query
    bot = services(context)
    if user is not None and bot.access.allows(user.id):
        return
    if user is not None and not user.is_bot:
        get_logger().info("telegram stranger refused", extra={"user_id": user.id})
        if await blocking(bot.access.first_refusal, user.id):
            text = REFUSAL.format(user_id=user.id)
            if query is not None:
                await bot.telegram.answer_button(query.id, text[:200], alert=True)
            else:
                await reply(update, context, text)
        elif query is not None:
            await bot.telegram.answer_button(query.id)
    raise ApplicationHandlerStop


async def on_error(update: object, context: Context) -> None:
    """Answer expected errors with their message; log anything else and say only that it failed."""
    error = context.error
    update_id = update.update_id if isinstance(update, Update) else None
    if isinstance(error, DomainError):
        get_logger().info("telegram command refused", extra={"update_id": update_id, "code": error.code})
        text = error.message
    else:
        get_logger().error("telegram handler failed", exc_info=error, extra={"update_id": update_id})
        text = FAILURE
    if not isinstance(update, Update):
        return
    try:
        if update.callback_query is not None:
            await services(context).telegram.answer_button(update.callback_query.id, text[:200], alert=True)
        else:
            await reply(update, context, text)
    except Exception:  # Telegram itself is failing: the log above is all we can do
        get_logger().warning("could not report the error to the user", extra={"update_id": update_id})


async def stale_button(update: Update, context: Context) -> None:
    """A button the bot no longer knows (an old keyboard): say so instead of spinning."""
    if update.callback_query is not None:
        await services(context).telegram.answer_button(update.callback_query.id, STALE)
