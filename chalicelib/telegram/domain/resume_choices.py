"""/continue: its arguments, the listing of terminal sessions as buttons, and the terminal
command that resumes an engine session (the way back from Telegram)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from chalicelib.kernel.errors import InvalidInput

CHOICE_PREFIX = "ct"    # ct:<listing id>:<index>: resume that session
MACHINE_PREFIX = "cm"   # cm:<machine>: list that machine's sessions
SHOWN = 6
_CHOICE = re.compile(r"^ct:([0-9a-f]{10}):(\d{1,2})$")
_MACHINE = re.compile(r"^[\w.@-]{1,60}$")
_TERMINAL = {"claude": "claude --resume {id}", "codex": "codex resume {id}", "gemini": "gemini --resume {id}"}
USAGE = "Usage: /continue [machine] [folder]"


@dataclass(frozen=True)
class ContinueRequest:
    machine: str | None
    folder: str  # "" every configured folder


@dataclass(frozen=True)
class ResumeListing:
    """The terminal sessions a machine's agent found for /continue, until one is chosen."""

    id: str
    chat_id: int
    topic_id: int
    user_id: int
    machine: str
    path: str = ""
    sessions: Sequence[Mapping[str, Any]] = field(default_factory=tuple)
    status: str = "asked"


def parse_continue(args: Sequence[str]) -> ContinueRequest:
    """`/continue`, `/continue laptop`, `/continue laptop ~/src/app`, `/continue /abs/folder`."""
    if len(args) > 2:
        raise InvalidInput(USAGE)
    words = list(args)
    machine = words.pop(0) if words and not words[0].startswith(("/", "~")) else None
    if machine is not None and not _MACHINE.match(machine):
        raise InvalidInput(f"'{machine}' is not a machine name. {USAGE}")
    if len(words) > 1:
        raise InvalidInput(USAGE)
    return ContinueRequest(machine, words[0] if words else "")


def choice_data(listing_id: str, index: int) -> str:
    return f"{CHOICE_PREFIX}:{listing_id}:{index}"


def parse_choice(data: str) -> tuple[str, int] | None:
    match = _CHOICE.match(data)
    return (match.group(1), int(match.group(2))) if match else None


def machine_data(machine: str) -> str | None:
    """A machine button's data, if the name fits Telegram's 64 bytes."""
    data = f"{MACHINE_PREFIX}:{machine}"
    return data if len(data.encode()) <= 64 else None


def terminal_command(engine: str, session_id: str) -> str:
    return _TERMINAL.get(engine, "{id}").format(id=session_id)


def listing_text(listing: ResumeListing, error: str | None = None) -> str:
    """The listing's message: the sessions numbered as their buttons are."""
    where = listing.path or "its configured folders"
    if error:
        return f"⛔ {listing.machine}: {listing.path or 'that folder'}: {error}"
    if not listing.sessions:
        return (f"No terminal sessions of Claude Code, Codex or Gemini CLI found on {listing.machine} "
                f"in {where}.")
    lines = [f"🔁 Sessions on {listing.machine} in {where}, newest first. Pick one to continue it here:"]
    for number, entry in enumerate(listing.sessions[:SHOWN], start=1):
        lines.append(f"{number}. {entry['engine']} · {_when(str(entry['last_active']))} · {entry['cwd']}\n"
                     f"   first: {entry.get('first_message') or '-'}\n"
                     f"   last: {entry.get('last_message') or '-'}")
    return "\n".join(lines)


def keyboard(listing: ResumeListing) -> list[list[tuple[str, str]]]:
    rows = []
    for index, entry in enumerate(listing.sessions[:SHOWN]):
        label = f"{index + 1}. {entry['engine']} {str(entry['session_id'])[:8]}"
        rows.append([(label, choice_data(listing.id, index))])
    return rows


def _when(stamp: str) -> str:
    try:
        return datetime.fromisoformat(stamp).strftime("%Y-%m-%d %H:%M UTC")
    except ValueError:
        return stamp
