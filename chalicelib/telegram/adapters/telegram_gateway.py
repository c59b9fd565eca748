"""Every Bot API call the server makes, over python-telegram-bot.

`TelegramGateway` is for synchronous callers (services, schedules, the local poller): it runs
each call on the bot's loop and waits. `LoopGateway` is the same for the handlers, which
already run on that loop. Telegram's answers become the port's errors: 429 -> FloodControl
(retry_after), the requests that can never succeed (topic closed, deleted or unknown, chat gone,
bot blocked or removed, not a forum) -> Undeliverable, any other Bot API error -> SendFailed.
Renaming or closing a topic to the state it already has (TOPIC_NOT_MODIFIED) is done, so a
replayed close changes nothing.
"""

from __future__ import annotations

import datetime as dtm
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

from telegram import Bot, BotCommand, ForceReply, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, Forbidden, RetryAfter, TelegramError

from chalicelib.telegram.adapters.bot_runtime import BotRuntime
from chalicelib.telegram.services.ports import FloodControl, Keyboard, SendFailed, Undeliverable

T = TypeVar("T")
_UNDELIVERABLE = ("topic_closed", "topic_deleted", "thread not found", "chat not found",
                  "not a forum", "topic_id_invalid", "message thread not found", "bot was kicked")


def retry_after_seconds(error: RetryAfter) -> float:
    value = error.retry_after
    return value.total_seconds() if isinstance(value, dtm.timedelta) else float(value)


def markup(keyboard: Keyboard | None) -> InlineKeyboardMarkup | None:
    if not keyboard:
        return None
    return InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=data) for label, data in row]
                                 for row in keyboard])


def translated(error: TelegramError) -> SendFailed:
    if isinstance(error, RetryAfter):
        return FloodControl(retry_after_seconds(error))
    if isinstance(error, Forbidden) or (
            isinstance(error, BadRequest) and any(m in str(error).lower() for m in _UNDELIVERABLE)):
        return Undeliverable(str(error))
    return SendFailed(str(error))


class LoopGateway:
    """Bot API calls awaited on the bot's own loop (by the handlers)."""

    def __init__(self, bot: Callable[[], Bot]) -> None:
        self._bot = bot

    async def _call(self, work: Callable[[Bot], Awaitable[T]]) -> T:
        try:
            return await work(self._bot())
        except TelegramError as error:
            raise translated(error) from error

    async def send(self, chat_id: int, text: str, *, topic_id: int = 0,
                   keyboard: Keyboard | None = None) -> int:
        message = await self._call(lambda bot: bot.send_message(
            chat_id, text, message_thread_id=topic_id or None, reply_markup=markup(keyboard)))
        return message.message_id

    async def send_document(self, chat_id: int, file_name: str, content: bytes, *, topic_id: int = 0,
                            caption: str | None = None) -> int:
        """Send `content` as a file named `file_name`; return the message id."""
        message = await self._call(lambda bot: bot.send_document(
            chat_id, content, filename=file_name, caption=caption, message_thread_id=topic_id or None))
        return message.message_id

    async def download(self, file_id: str, max_bytes: int) -> bytes:
        """A file users sent (getFile, then its download link); SendFailed if over `max_bytes`."""
        async def fetch(bot: Bot) -> bytes:
            file = await bot.get_file(file_id)
            if (file.file_size or 0) > max_bytes:
                raise SendFailed(f"file is {file.file_size} bytes; at most {max_bytes} are taken")
            data = bytes(await file.download_as_bytearray())
            if len(data) > max_bytes:
                raise SendFailed(f"file is {len(data)} bytes; at most {max_bytes} are taken")
            return data

        return await self._call(fetch)

    async def ask(self, chat_id: int, text: str, *, topic_id: int = 0, placeholder: str = "") -> int:
        """Send a question whose answer is a reply to it (the client opens the reply box)."""
        message = await self._call(lambda bot: bot.send_message(
            chat_id, text, message_thread_id=topic_id or None,
            reply_markup=ForceReply(selective=True, input_field_placeholder=placeholder or None)))
        return message.message_id

    async def edit(self, chat_id: int, message_id: int, text: str) -> None:
        """Replace a message's text; one deleted meanwhile (in another client), or showing that
        text already, is left alone."""
        try:
            await self._call(lambda bot: bot.edit_message_text(text, chat_id=chat_id, message_id=message_id))
        except (FloodControl, Undeliverable):
            raise
        except SendFailed as error:  # an edit to the text it has already (a second press) is done
            text_now = str(error).lower()
            if "message to edit not found" not in text_now and "message is not modified" not in text_now:
                raise

    async def answer_button(self, query_id: str, text: str | None = None, *, alert: bool = False) -> None:
        """Answer a button press (a toast, or an alert the user must dismiss)."""
        await self._call(lambda bot: bot.answer_callback_query(query_id, text, show_alert=alert))

    async def typing(self, chat_id: int, topic_id: int = 0) -> None:
        await self._call(lambda bot: bot.send_chat_action(chat_id, "typing",
                                                          message_thread_id=topic_id or None))

    async def create_topic(self, chat_id: int, name: str) -> int:
        topic = await self._call(lambda bot: bot.create_forum_topic(chat_id, name))
        return topic.message_thread_id

    async def rename_topic(self, chat_id: int, topic_id: int, name: str) -> None:
        await self._unless_unchanged(lambda bot: bot.edit_forum_topic(chat_id, topic_id, name=name))

    async def close_topic(self, chat_id: int, topic_id: int) -> None:
        await self._unless_unchanged(lambda bot: bot.close_forum_topic(chat_id, topic_id))

    async def _unless_unchanged(self, work: Callable[[Bot], Awaitable[bool]]) -> None:
        try:
            await self._call(work)
        except (FloodControl, Undeliverable):
            raise
        except SendFailed as error:
            if "not_modified" not in str(error).lower().replace(" ", "_"):
                raise

    async def webhook_url(self) -> str:
        info = await self._call(lambda bot: bot.get_webhook_info())
        return str(info.url or "")

    async def set_commands(self, commands: Sequence[tuple[str, str]]) -> None:
        menu = [BotCommand(name, summary) for name, summary in commands]
        await self._call(lambda bot: bot.set_my_commands(menu))

    async def updates(self, offset: int | None, timeout_s: int,
                      allowed: Sequence[str]) -> list[dict[str, Any]]:
        got = await self._call(lambda bot: bot.get_updates(offset=offset, timeout=timeout_s,
                                                           allowed_updates=list(allowed)))
        return [update.to_dict() for update in got]


class TelegramGateway:
    """The same calls for any thread but the loop's (services, schedules, the local poller)."""

    def __init__(self, runtime: BotRuntime) -> None:
        self._runtime = runtime
        self.on_loop = LoopGateway(lambda: runtime.bot)

    def _run(self, call: Callable[[LoopGateway], Awaitable[T]], timeout_s: float | None = None) -> T:
        return self._runtime.run(lambda app: call(self.on_loop), timeout_s)

    def send(self, chat_id: int, text: str, *, topic_id: int = 0, keyboard: Keyboard | None = None) -> int:
        return self._run(lambda bot: bot.send(chat_id, text, topic_id=topic_id, keyboard=keyboard))

    def edit(self, chat_id: int, message_id: int, text: str) -> None:
        self._run(lambda bot: bot.edit(chat_id, message_id, text))

    def create_topic(self, chat_id: int, name: str) -> int:
        return self._run(lambda bot: bot.create_topic(chat_id, name))

    def rename_topic(self, chat_id: int, topic_id: int, name: str) -> None:
        self._run(lambda bot: bot.rename_topic(chat_id, topic_id, name))

    def close_topic(self, chat_id: int, topic_id: int) -> None:
        self._run(lambda bot: bot.close_topic(chat_id, topic_id))

    def download(self, file_id: str, max_bytes: int) -> bytes:
        return self._run(lambda bot: bot.download(file_id, max_bytes), 120)

    def webhook_url(self) -> str:
        """The webhook Telegram posts to for this bot ("" when none is set)."""
        return self._run(lambda bot: bot.webhook_url())

    def set_commands(self, commands: Sequence[tuple[str, str]]) -> None:
        """Show (name, summary) pairs in Telegram's command menu."""
        self._run(lambda bot: bot.set_commands(commands))

    def updates(self, offset: int | None, *, timeout_s: int, allowed: Sequence[str]) -> list[dict[str, Any]]:
        """Long-poll getUpdates; each update as Telegram sent it."""
        return self._run(lambda bot: bot.updates(offset, timeout_s, allowed), timeout_s + 15)

    def start(self) -> None:
        """Start the bot (getMe) if not done yet; raise if Telegram cannot be reached."""
        self._runtime.start()

    def process(self, update: Mapping[str, Any]) -> None:
        """Run the bot's handlers for one update."""
        self._runtime.process(update)

    def close(self) -> None:
        self._runtime.close()
