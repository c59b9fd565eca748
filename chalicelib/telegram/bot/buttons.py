"""What every button handler does first: read the press, and answer a stale one.

A press whose data no longer parses, or whose service is not set up on this server, is answered
"This button is no longer active." and goes no further. A DomainError the handler raises (already
decided, expired, unknown) is answered with its message as an alert by `guard.on_error`.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from telegram import CallbackQuery, MaybeInaccessibleMessage, Update

from chalicelib.telegram.bot.context import BotServices, Callback, Context, services

C = TypeVar("C")
S = TypeVar("S")
STALE = "This button is no longer active."


@dataclass(frozen=True)
class Press(Generic[C]):
    """A press of a button whose data parsed into `choice`."""

    update: Update
    context: Context
    query: CallbackQuery
    bot: BotServices
    choice: C

    async def answer(self, text: str, *, alert: bool = False) -> None:
        await self.bot.telegram.answer_button(self.query.id, text, alert=alert)

    async def edit(self, text: str) -> None:
        """Replace the text of the message the button is on (when Telegram still sends it)."""
        message = self.query.message
        if message is not None:
            await self.bot.telegram.edit(message.chat.id, message.message_id, text)

    async def send(self, text: str) -> None:
        """Send a message where the pressed one is (its chat and topic)."""
        message = self.query.message
        if message is not None:
            await self.bot.telegram.send(message.chat.id, text, topic_id=_topic(message))

    async def ask(self, question: str, placeholder: str) -> None:
        """Ask, where the pressed message is, a question whose answer is a reply to it."""
        message = self.query.message
        if message is not None:
            await self.bot.telegram.ask(message.chat.id, question, topic_id=_topic(message),
                                        placeholder=placeholder)


def _topic(message: MaybeInaccessibleMessage) -> int:
    return getattr(message, "message_thread_id", None) or 0


def button(
    parse: Callable[[str], C | None], service: Callable[[BotServices], S | None]
) -> Callable[[Callable[[Press[C], S], Awaitable[None]]], Callback]:
    """Make a button handler of `handler(press, service)`, given how to parse the button's data and
    which service of the bot it needs."""

    def bind(handler: Callable[[Press[C], S], Awaitable[None]]) -> Callback:
        @functools.wraps(handler)
        async def pressed(update: Update, context: Context) -> None:
            query = update.callback_query
            assert query is not None and query.data is not None
            bot = services(context)
            choice, used = parse(query.data), service(bot)
            if choice is None or used is None:
                await bot.telegram.answer_button(query.id, STALE)
                return
            await handler(Press(update, context, query, bot, choice), used)

        return pressed

    return bind
