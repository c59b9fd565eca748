"""/continue between the bot and the machine's agent: which terminal sessions can be picked up.

The agent owns the engines' session stores, so the listing is asked for on the machine's own
queue (`session_list`) and answered by its agent over the API; the answer is shown as buttons
where /continue was sent. Nothing waits for the agent. The agent refuses a folder outside its
configured roots whatever it is sent; a choice is taken once.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from typing import Any

from chalicelib.contracts.machine_messages import SESSION_LIST, MachineMessage
from chalicelib.telegram.domain.resume_choices import ResumeListing, keyboard, listing_text
from chalicelib.telegram.services.agent_listings import SendToMachine, answered_by, ask_agent
from chalicelib.telegram.services.ports import Keyboard, UnitOfWorkFactory


class SendToChat:
    """What showing a listing needs of the Bot API (the gateway's `send`)."""

    def __init__(self, send: Callable[..., int]) -> None:
        self._send = send

    def __call__(self, chat_id: int, topic_id: int, text: str, rows: Keyboard | None) -> None:
        self._send(chat_id, text, topic_id=topic_id, keyboard=rows)


class ResumeListings:
    def __init__(self, uow: UnitOfWorkFactory, send: SendToMachine, show: SendToChat) -> None:
        self._uow, self._send, self._show = uow, send, show

    def ask(self, chat_id: int, topic_id: int, user_id: int, machine: str, path: str) -> str:
        """Ask `machine` for the terminal sessions of `path` ("" every configured folder)."""
        listing = ResumeListing(secrets.token_hex(5), chat_id, topic_id, user_id, machine, path)
        with self._uow() as uow:
            uow.resume_listings.add(listing)
            uow.commit()
        ask_agent(self._send, machine, MachineMessage(SESSION_LIST, listing_id=listing.id, path=path))
        return listing.id

    def answered(self, machine_id: str, listing_id: str, answer: Mapping[str, Any]) -> bool:
        """The agent's answer: shown as buttons where /continue was sent, once."""
        with self._uow() as uow:
            listing = answered_by(uow.resume_listings.get(listing_id), machine_id, listing_id, "session")
            if listing.status != "asked":
                return False
            sessions = list(answer.get("sessions") or [])
            path = str(answer.get("path") or "")
            uow.resume_listings.listed(listing_id, path, sessions)
            uow.commit()
        shown = ResumeListing(listing.id, listing.chat_id, listing.topic_id, listing.user_id, listing.machine,
                              path, tuple(sessions), "listed")
        error = answer.get("error")
        self._show(listing.chat_id, listing.topic_id, listing_text(shown, str(error) if error else None),
                   None if error else keyboard(shown))
        return True

    def choose(self, listing_id: str, index: int) -> tuple[ResumeListing, Mapping[str, Any]] | None:
        """Take the session at `index` of the listing, once: a second press gets None."""
        with self._uow() as uow:
            listing = uow.resume_listings.get(listing_id)
            if listing is None or not 0 <= index < len(listing.sessions):
                return None
            if not uow.resume_listings.chosen(listing_id):
                return None
            uow.commit()
        return listing, listing.sessions[index]
