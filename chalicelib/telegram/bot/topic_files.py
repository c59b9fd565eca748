"""Photos, documents, archives and voice notes sent to an open session's or a running task's topic.

A file becomes the session's next turn, or a message for the task's engine (steered or queued
as text in the topic is: `steer_commands.task_text`), with the file attached (its caption, if
any, is the text): the turn or message keeps Telegram's file id only, and the machine fetches
the bytes when it delivers it (`services/attached_files.py`). An archive is checked here first,
so a bad one is refused in the topic at once. A voice note is transcribed, echoed in the topic,
and sent as the text.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from telegram import Message, Update
from telegram.ext import ApplicationHandlerStop, filters

from chalicelib.contracts.attachments import (
    MAX_ATTACHMENT_BYTES,
    BadArchive,
    check_archive,
    is_archive,
    safe_name,
)
from chalicelib.telegram.bot.context import Context, blocking, reply, services, topic_of
from chalicelib.telegram.domain.bot_commands import short_id
from chalicelib.telegram.domain.telegram_records import Topic
from chalicelib.telegram.services.ports import SendFailed

FILES = filters.PHOTO | filters.Document.ALL
VOICE = filters.VOICE | filters.AUDIO
MAX_VOICE_BYTES = 20 * 1024 * 1024  # what the Bot API hands over; under the 25 MB a transcription takes
NO_KEY = ("🎙 Voice notes need a transcription service: set OPENAI_API_KEY (and OPENAI_BASE_URL for "
          "another OpenAI-compatible server). Write the message instead.")


async def file_sent(update: Update, context: Context) -> None:
    """A photo, document or archive in an open session's or a running task's topic: it goes with
    the session's next turn or the message to the task's engine."""
    message = update.effective_message
    topic = await _open_topic(update, context)
    if message is None or topic is None:
        return
    name, file_id, size = _described(message)
    if size > MAX_ATTACHMENT_BYTES:
        await reply(update, context, f"❌ {name} is {_mb(size)}; files up to {_mb(MAX_ATTACHMENT_BYTES)} "
                                     "reach a session or a task.")
        raise ApplicationHandlerStop
    if is_archive(name) and not await _archive_ok(update, context, name, file_id):
        raise ApplicationHandlerStop
    await _deliver(update, context, topic, message.caption or "", [{"name": name, "size": size,
                                                                    "file_id": file_id}])
    raise ApplicationHandlerStop


async def voice_sent(update: Update, context: Context) -> None:
    """A voice note in an open session's or a running task's topic: transcribed, echoed, and sent
    as the session's next turn or the message to the task's engine."""
    message = update.effective_message
    topic = await _open_topic(update, context)
    if message is None or topic is None:
        return
    audio = message.voice or message.audio
    assert audio is not None
    bot = services(context)
    if bot.transcriber is None or not bot.transcriber.enabled:
        await reply(update, context, NO_KEY)
        raise ApplicationHandlerStop
    try:
        data = await bot.telegram.download(audio.file_id, MAX_VOICE_BYTES)
    except SendFailed as error:
        await reply(update, context, f"❌ Could not fetch the voice note: {error}")
        raise ApplicationHandlerStop from None
    name = "voice.ogg" if message.voice else safe_name(getattr(audio, "file_name", None) or "audio.mp3")
    seconds = audio.duration.total_seconds() if isinstance(audio.duration, timedelta) else audio.duration
    text = await blocking(bot.transcriber.transcribe, "voice_note", data, name, int(seconds or 0))
    if not text:
        await reply(update, context, "❌ The voice note could not be transcribed (today's LLM budget is "
                                     "spent, or the service failed: `itachi usage` says which).")
        raise ApplicationHandlerStop
    await reply(update, context, f"🎙 {text}")
    await _deliver(update, context, topic, text)
    raise ApplicationHandlerStop


async def _open_topic(update: Update, context: Context) -> Topic | None:
    """The open session or running task whose topic this is; a closed or finished one is told why not."""
    chat = update.effective_chat
    if chat is None or not topic_of(update):
        return None
    bot = services(context)
    topic = await blocking(bot.topics.by_thread, chat.id, topic_of(update))
    if topic is None:
        return None
    if topic.kind == "task":
        task = await blocking(bot.tasks.get, topic.ref_id)
        if task.status.value != "running":
            await reply(update, context, f"Task {short_id(topic.ref_id)} is {task.status.value}: files and "
                                         "voice notes reach a running task or an open session (/session).")
            raise ApplicationHandlerStop
        return topic
    if topic.kind != "session":
        return None
    if topic.status != "open":
        await reply(update, context, "This session is closed: files and voice notes reach an open session.")
        raise ApplicationHandlerStop
    return topic


async def _deliver(update: Update, context: Context, topic: Topic, text: str,
                   files: list[dict[str, Any]] | None = None) -> None:
    """The session's next turn, or a message to the task's engine in the mode text in its topic has."""
    bot = services(context)
    if topic.kind == "task":
        await blocking(bot.tasks.steer, topic.ref_id, text, mode=bot.task_text,
                       key=f"telegram:{update.update_id}", files=files or ())
    else:
        await blocking(bot.sessions.send_input, topic.ref_id, text, *([files] if files else []))


async def _archive_ok(update: Update, context: Context, name: str, file_id: str) -> bool:
    try:
        check_archive(name, await services(context).telegram.download(file_id, MAX_ATTACHMENT_BYTES))
    except BadArchive as error:
        await reply(update, context, f"❌ Archive refused: {error}")
        return False
    except SendFailed as error:
        await reply(update, context, f"❌ Could not fetch {name}: {error}")
        return False
    return True


def _described(message: Message) -> tuple[str, str, int]:
    """(name, Telegram file id, size in bytes) of the message's photo (its largest size) or document."""
    if message.photo:
        photo = message.photo[-1]
        return f"photo-{safe_name(photo.file_unique_id)}.jpg", photo.file_id, int(photo.file_size or 0)
    document = message.document
    assert document is not None
    return safe_name(document.file_name or "", "document"), document.file_id, int(document.file_size or 0)


def _mb(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MB"
