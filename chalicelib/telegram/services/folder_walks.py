"""The session picker's folder walk, between the bot and the machine's agent.

The agent owns the filesystem, so every listing is asked for on the machine's own queue
(`folder_list`) and answered by its agent over the API; the answer is shown in the session's
topic. This works wherever the bot runs (a Lambda in AWS, the machine elsewhere): nothing
waits for the agent. Only the newest listing asked for a walk is shown (a late answer to an
older one is dropped), and only paths built from the shown listing are ever asked for; the
agent refuses any path outside its configured roots whatever it is sent.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from typing import Any

from chalicelib.contracts.machine_messages import FOLDER_LIST, MachineMessage
from chalicelib.telegram.domain.folder_walk import FolderWalk, listing_text, step
from chalicelib.telegram.domain.telegram_records import SessionRequestRow, Topic
from chalicelib.telegram.services.agent_listings import SendToMachine, answered_by, ask_agent
from chalicelib.telegram.services.ports import UnitOfWorkFactory
from chalicelib.telegram.services.topic_streams import TopicStreams

STREAM_KIND = "walk"


class FolderWalks:
    def __init__(self, uow: UnitOfWorkFactory, streams: TopicStreams, send: SendToMachine,
                 machine_folders: Callable[[str], bool]) -> None:
        self._uow, self._streams, self._send = uow, streams, send
        self._machine_folders = machine_folders

    def offered(self, machine: str) -> bool:
        """Whether a session on `machine` without a project walks its folders first (it is online
        and reported folders to walk)."""
        return self._machine_folders(machine)

    def begin(self, request: SessionRequestRow, engine: str, label: str, place: tuple[int, int],
              title: str) -> None:
        """Start a walk in the session's topic (chat, topic): ask the machine for its roots."""
        listing_id = secrets.token_hex(8)
        walk = FolderWalk(request.id, place[0], place[1], request.machine, engine, label, request.prompt,
                          title, listing_id)
        with self._uow() as uow:
            uow.folder_walks.add(walk)
            uow.commit()
        self._ask(walk.machine, listing_id, "", 0)

    def reply(self, chat_id: int, topic_id: int, text: str) -> FolderWalk | None:
        """A reply in a topic. Returns the walk when the user starts the session (`0`); None when
        the reply was handled here (the next listing asked for, or why not said) or no walk is on."""
        with self._uow() as uow:
            walk = uow.folder_walks.by_thread(chat_id, topic_id)
            if walk is None:
                return None
            decision = step(walk, text)
            if decision.start:
                started = uow.folder_walks.started(walk.request_id)
                uow.commit()
                return walk if started else None
            if decision.refusal is not None or decision.path is None:
                uow.commit()
                self._show(walk, decision.refusal or "")
                return None
            listing_id = secrets.token_hex(8)
            uow.folder_walks.asked(walk.request_id, listing_id)
            uow.commit()
        self._ask(walk.machine, listing_id, decision.path, decision.offset)
        return None

    def walking(self, chat_id: int, topic_id: int) -> bool:
        with self._uow() as uow:
            return uow.folder_walks.by_thread(chat_id, topic_id) is not None

    def answered(self, machine_id: str, listing_id: str, listing: Mapping[str, Any]) -> bool:
        """The agent's listing: shown in the walk's topic if it is the one asked for last."""
        with self._uow() as uow:
            walk = answered_by(uow.folder_walks.by_listing(listing_id), machine_id, listing_id, "folder")
            if walk.status != "walking":
                return False
            if not listing.get("error"):
                uow.folder_walks.listed(
                    walk.request_id, str(listing.get("path") or ""), listing.get("parent"),
                    list(listing.get("entries") or []), int(listing.get("total") or 0),
                    int(listing.get("offset") or 0))
            uow.commit()
        self._show(walk, listing_text(walk.machine, listing))
        return True

    def _ask(self, machine: str, listing_id: str, path: str, offset: int) -> None:
        message = MachineMessage(FOLDER_LIST, listing_id=listing_id, path=path, offset=offset)
        ask_agent(self._send, machine, message)

    def _show(self, walk: FolderWalk, text: str) -> None:
        if text:
            topic = Topic(STREAM_KIND, walk.request_id, walk.chat_id, walk.topic_id, walk.title, "open")
            self._streams.post(topic, [text])
