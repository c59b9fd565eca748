"""Interactive sessions: /session with its engine x mode picker and folder walk, the relay of
topic text, /close."""

from __future__ import annotations

import json
from pathlib import PurePath

from telegram import Update
from telegram.ext import ApplicationHandlerStop

from chalicelib.contracts.agent_api import SessionStartRequest
from chalicelib.kernel.errors import DomainError, InvalidInput
from chalicelib.tasks.domain.agent_session_states import AgentSession
from chalicelib.tasks.domain.session_export import export_json, export_markdown
from chalicelib.telegram.bot.approval_buttons import revision_reason
from chalicelib.telegram.bot.context import Context, blocking, command, reply, services, topic_link, topic_of
from chalicelib.telegram.bot.steer_commands import task_text
from chalicelib.telegram.bot.topics import Place, open_topic, register, send_header
from chalicelib.telegram.domain.bot_commands import (
    MODES,
    WRAPPERS,
    SessionRequest,
    parse_export,
    parse_learn,
    parse_picker_data,
    parse_session,
    picker_data,
    short_id,
)
from chalicelib.telegram.domain.topic_story import closed_title, topic_title

GLOBAL_PROJECT = "_global"
PLAN_LABEL = "itachi --plan"


@command("session")
async def session(update: Update, context: Context) -> None:
    """Ask which engine and mode to run, with the 3 x 2 picker; with --plan start Claude in plan mode."""
    request = parse_session(context.args or [])
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    if request.plan:
        await _plan_session(update, context, request)
        return
    request_id = await blocking(services(context).session_requests.create, chat.id, topic_of(update), user.id,
                                request.machine, request.prompt)
    keyboard = [[(f"{wrapper} {flag}", picker_data(request_id, wrapper, mode))
                 for mode, flag in MODES.items()] for wrapper in WRAPPERS]
    await reply(update, context, f"Session on {request.machine}: {request.prompt}\nWhich engine and mode?",
                keyboard)


async def picked(update: Update, context: Context) -> None:
    """A picker button: open the topic, then start the session there, or first walk the machine's
    folders when no project was named and the machine has folders to offer."""
    query = update.callback_query
    assert query is not None and query.data is not None
    choice = parse_picker_data(query.data)
    bot = services(context)
    request = await blocking(bot.session_requests.choose, choice.request_id) if choice else None
    if choice is None or request is None:
        await bot.telegram.answer_button(query.id, "This choice was already made.")
        return
    await bot.telegram.answer_button(query.id, f"Starting {choice.label}...")
    scoped = parse_learn(request.prompt.split())  # "project: prompt" names the project
    title = topic_title(request.machine, scoped.rule)
    place = await open_topic(update, context, title)
    walk = bool(place.topic_id) and scoped.project is None and await blocking(
        bot.folder_walks.offered, request.machine)
    header = (f"💬 Session on {request.machine} ({choice.label})\n{scoped.rule}\n\n"
              + ("Pick the folder to start in: its list follows." if walk
                 else "Write here to talk to it; /close ends it."))
    header_sent = await send_header(context, place, header)
    link = topic_link(place.chat_id, place.topic_id)
    if walk:
        await blocking(bot.folder_walks.begin, request, choice.engine, choice.label,
                       (place.chat_id, place.topic_id), title)
        if query.message is not None:
            await bot.telegram.edit(query.message.chat.id, query.message.message_id,
                                    f"Pick the folder on {request.machine} in the session's topic: {link}")
        return
    started = await launch(context, place, title, header, header_sent, SessionStartRequest(
        scoped.rule, scoped.project or GLOBAL_PROJECT, machine=request.machine, engine=choice.engine,
        telegram_chat_id=place.chat_id, telegram_topic_id=place.topic_id or None))
    await blocking(bot.session_requests.attach_session, request.id, started.id)
    if query.message is not None:
        await bot.telegram.edit(query.message.chat.id, query.message.message_id,
                                f"Session {short_id(started.id)} started on {started.machine_id} with "
                                f"{choice.label}." + (f" Topic: {link}" if link else ""))


async def _plan_session(update: Update, context: Context, request: SessionRequest) -> None:
    """/session --plan: Claude starts in plan mode in a new topic, in the project the prompt names
    (else the machine's scratch folder); its plan waits there for Approve plan / Revise."""
    scoped = parse_learn(request.prompt.split())
    title = topic_title(request.machine, scoped.rule)
    place = await open_topic(update, context, title)
    header = (f"💬 Session on {request.machine} ({PLAN_LABEL})\n{scoped.rule}\n\nClaude plans first: approve "
              "its plan here before it edits. Write here to talk to it; /close ends it.")
    header_sent = await send_header(context, place, header)
    started = await launch(context, place, title, header, header_sent, SessionStartRequest(
        scoped.rule, scoped.project or GLOBAL_PROJECT, machine=request.machine, engine="claude",
        telegram_chat_id=place.chat_id, telegram_topic_id=place.topic_id or None, permission_mode="plan"))
    if place.topic_id:
        await reply(update, context, f"Session {short_id(started.id)} started on {started.machine_id} in "
                    f"plan mode. Topic: {topic_link(place.chat_id, place.topic_id)}")


async def launch(context: Context, place: Place, title: str, header: str, header_sent: bool,
                 new: SessionStartRequest) -> AgentSession:
    """Start the session in its topic and register the topic; a refusal is said there and closes it."""
    bot = services(context)
    try:
        started = await blocking(bot.sessions.start, new)
    except DomainError as error:
        if place.topic_id:
            await bot.telegram.send(place.chat_id, f"Could not start: {error.message}",
                                    topic_id=place.topic_id)
            await bot.telegram.close_topic(place.chat_id, place.topic_id)
        raise
    await register(context, "session", started.id, place, title, header, header_sent)
    return started


async def _walk_reply(context: Context, chat_id: int, topic_id: int, text: str) -> None:
    """A reply in a topic whose session is still picking its folder: the next step, or the start."""
    bot = services(context)
    walk = await blocking(bot.folder_walks.reply, chat_id, topic_id, text)
    if walk is None or walk.path is None:
        return
    project = PurePath(walk.path).name or GLOBAL_PROJECT
    started = await launch(context, Place(chat_id, topic_id), walk.title, "", True, SessionStartRequest(
        walk.prompt, project, machine=walk.machine, repo=walk.path, engine=walk.engine,
        telegram_chat_id=chat_id, telegram_topic_id=topic_id))
    await blocking(bot.session_requests.attach_session, walk.request_id, started.id)
    await bot.telegram.send(chat_id, f"▶️ Session {short_id(started.id)} starting in {walk.path} with "
                            f"{walk.label}. Write here to talk to it; /close ends it.", topic_id=topic_id)


async def relay(update: Update, context: Context) -> None:
    """Text in an open session's topic is the session's next input, and in a running task's topic a
    message to its engine (`steer_commands`), bypassing the LLM; after a plan's Revise, it is the
    revision asked for (`approval_buttons`)."""
    chat, message = update.effective_chat, update.effective_message
    if chat is None or message is None or not message.text or not topic_of(update):
        return
    if await revision_reason(update, context, topic_of(update), message.text):
        raise ApplicationHandlerStop
    bot = services(context)
    topic = await blocking(bot.topics.by_thread, chat.id, topic_of(update))
    if topic is None and await blocking(bot.folder_walks.walking, chat.id, topic_of(update)):
        await _walk_reply(context, chat.id, topic_of(update), message.text)
        raise ApplicationHandlerStop
    if topic is not None and topic.kind == "task" and topic.status == "open":
        if await task_text(update, context, topic, message.text):
            raise ApplicationHandlerStop
        return
    if topic is None or topic.kind != "session" or topic.status != "open":
        return
    await blocking(bot.sessions.send_input, topic.ref_id, message.text)
    raise ApplicationHandlerStop


@command("close")
async def close(update: Update, context: Context) -> None:
    """/close in a session's topic: end the session and close the topic."""
    chat = update.effective_chat
    assert chat is not None
    bot = services(context)
    topic = await blocking(bot.topics.by_thread, chat.id, topic_of(update))
    if topic is None:
        raise InvalidInput("/close works in a session's topic.")
    if topic.kind != "session":
        raise InvalidInput(f"This topic is task {short_id(topic.ref_id)}; /cancel stops it.")
    if topic.status != "open":
        raise InvalidInput("This session is already closed.")
    await blocking(bot.sessions.close, topic.ref_id)
    await blocking(bot.streams.post, topic, ["🛑 Session closed."])
    await blocking(bot.streams.close, topic, closed_title(topic.title, "closed"))
    if not topic.topic_id:
        await reply(update, context, f"Session {short_id(topic.ref_id)} closed.")


@command("export")
async def export(update: Update, context: Context) -> None:
    """/export [md|json] in a session's topic: its conversation so far, as a file in the topic."""
    chat = update.effective_chat
    assert chat is not None
    file_format = parse_export(context.args or [])
    bot = services(context)
    topic = await blocking(bot.topics.by_thread, chat.id, topic_of(update))
    if topic is None:
        raise InvalidInput("/export works in a session's topic.")
    if topic.kind != "session":
        raise InvalidInput(f"This topic is task {short_id(topic.ref_id)}; /export works in a session's topic "
                           "(GET /api/tasks/{id}/events has a task's story).")
    session, events = await blocking(bot.sessions.conversation, topic.ref_id)
    if file_format == "json":
        content = json.dumps(export_json(session, events), indent=2, ensure_ascii=False).encode()
    else:
        content = export_markdown(session, events).encode()
    await bot.telegram.send_document(chat.id, f"session-{short_id(session.id)}.{file_format}", content,
                                     topic_id=topic_of(update),
                                     caption=f"Session {short_id(session.id)}: {len(events)} events")
