"""/continue: pick up a terminal session of Claude Code, Codex or Gemini CLI in a new topic."""

from __future__ import annotations

from pathlib import PurePath

from telegram import Update

from chalicelib.contracts.agent_api import SessionStartRequest
from chalicelib.kernel.errors import InvalidInput
from chalicelib.telegram.bot.context import Context, blocking, command, reply, services, topic_link, topic_of
from chalicelib.telegram.bot.session_commands import GLOBAL_PROJECT, launch
from chalicelib.telegram.bot.topics import open_topic, send_header
from chalicelib.telegram.domain.bot_commands import short_id
from chalicelib.telegram.domain.resume_choices import (
    MACHINE_PREFIX,
    machine_data,
    parse_choice,
    parse_continue,
    terminal_command,
)
from chalicelib.telegram.domain.topic_story import topic_title

CHOICE_PATTERN = r"^ct:"
MACHINE_PATTERN = f"^{MACHINE_PREFIX}:"


@command("continue")
async def continue_session(update: Update, context: Context) -> None:
    """Ask the machine (the one online, else the one picked) for its latest terminal sessions."""
    request = parse_continue(context.args or [])
    bot = services(context)
    machine = request.machine
    if machine is None:
        online = [m["id"] for m in await blocking(bot.machines.list_machines) if m["status"] == "online"]
        if not online:
            raise InvalidInput("No machine is online.")
        if len(online) > 1:
            buttons = [[(name, data)] for name in online if (data := machine_data(name))]
            await reply(update, context, "Which machine's terminal sessions?", buttons)
            return
        machine = online[0]
    await _ask(update, context, machine, request.folder)


async def machine_picked(update: Update, context: Context) -> None:
    """A machine button of /continue: list that machine's sessions in all its folders."""
    query = update.callback_query
    assert query is not None and query.data is not None
    await services(context).telegram.answer_button(query.id, "Looking...")
    await _ask(update, context, query.data.split(":", 1)[1], "")


async def _ask(update: Update, context: Context, machine: str, folder: str) -> None:
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    listings = services(context).resume_listings
    if listings is None:
        raise InvalidInput("/continue is not available here.")
    await blocking(listings.ask, chat.id, topic_of(update), user.id, machine, folder)
    where = folder or "its folders"
    await reply(update, context, f"Looking for terminal sessions on {machine} in {where}...")


async def chosen(update: Update, context: Context) -> None:
    """A session button: continue that engine session in a new topic, as an Itachi session."""
    query = update.callback_query
    assert query is not None and query.data is not None
    bot = services(context)
    choice = parse_choice(query.data)
    taken = await blocking(bot.resume_listings.choose, *choice) if choice and bot.resume_listings else None
    if taken is None:
        await bot.telegram.answer_button(query.id, "This choice was already made.")
        return
    listing, entry = taken
    engine, engine_session, cwd = str(entry["engine"]), str(entry["session_id"]), str(entry["cwd"])
    await bot.telegram.answer_button(query.id, f"Continuing {engine} {engine_session[:8]}...")
    title = topic_title(listing.machine, f"continue {engine} {engine_session[:8]}")
    place = await open_topic(update, context, title)
    header = (f"🔁 Continuing {engine} session {engine_session} on {listing.machine} in {cwd}\n"
              f"Last: {entry.get('last_message') or '-'}\n\n"
              f"Write here to continue it; /close ends it. Back in the terminal: "
              f"cd {cwd} && {terminal_command(engine, engine_session)}")
    header_sent = await send_header(context, place, header)
    started = await launch(context, place, title, header, header_sent, SessionStartRequest(
        "", PurePath(cwd).name or GLOBAL_PROJECT, machine=listing.machine, repo=cwd, engine=engine,
        telegram_chat_id=place.chat_id, telegram_topic_id=place.topic_id or None, resume=engine_session))
    if query.message is not None:
        link = topic_link(place.chat_id, place.topic_id)
        await bot.telegram.edit(query.message.chat.id, query.message.message_id,
                                f"Session {short_id(started.id)} continues {engine} {engine_session} on "
                                f"{started.machine_id}." + (f" Topic: {link}" if link else ""))
