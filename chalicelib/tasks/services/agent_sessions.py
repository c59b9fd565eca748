"""Interactive sessions: a long-lived engine on a machine, fed one user turn at a time.

The user side starts a session, sends input and closes it; each step is stored (the input as
a `user_input` event with its sequence number) and announced on the machine's queue. The
agent claims the session, writes inputs to the engine's stdin in sequence order (so SQS's
unordered delivery cannot reorder turns), posts the engine's events and reports its end.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from chalicelib.auth.request_principal import own_machine
from chalicelib.contracts.agent_api import SessionStartRequest
from chalicelib.contracts.engine_switch import KNOWN_ENGINES
from chalicelib.contracts.machine_messages import SESSION_CLOSE, SESSION_INPUT, SESSION_START, MachineMessage
from chalicelib.kernel.errors import Conflict, InvalidInput, NotFound, Unavailable, or_not_found
from chalicelib.kernel.redaction import redact
from chalicelib.tasks.domain.agent_session_states import (
    INPUT_KIND,
    AgentSession,
    SessionStatus,
    ensure_session_transition,
)
from chalicelib.tasks.domain.machine_selection import TaskNeeds, choose_machine
from chalicelib.tasks.domain.task_model import NewEvent, check_repo, redacted
from chalicelib.tasks.services.ports import TasksUnitOfWork
from chalicelib.tasks.services.task_deps import TaskUseCase, announce_session

SWITCH_KIND = "engine_switch"
EXPORT_PAGE = 1000


class AgentSessionService(TaskUseCase):
    """Messages to the machine are sent once committed, but not as after-commit actions: a turn
    the machine's queue refused must fail the request (the agent reads turns only from its queue)."""

    def start(self, new: SessionStartRequest) -> AgentSession:
        """Start a session on new.machine (or any online machine that can run it; a machine key's
        session on its own machine). With `resume` it continues that engine session, and the prompt
        may be left empty: the first turn is then the next input."""
        new = replace(new, machine=new.machine or own_machine())
        if new.engine not in KNOWN_ENGINES:
            raise InvalidInput(f"sessions support {', '.join(KNOWN_ENGINES)}", field="engine")
        if new.permission_mode and new.engine != "claude":
            raise InvalidInput("plan mode is for claude sessions", field="permission_mode")
        if not new.prompt.strip() and not new.resume:
            raise InvalidInput("a session starts with a prompt", field="prompt")
        check_repo(new.repo)
        session_id = str(uuid.uuid4())
        with self._uow() as uow:
            views = [r.view for r in uow.machines.records()]
            needs = TaskNeeds(new.project, new.repo, new.engine, new.machine)
            machine_id = choose_machine(views, needs, self._policy.offline_after_s)
            if machine_id is None:
                raise Unavailable(f"machine {new.machine} is not online" if new.machine
                                  else "no online machine can take a session now")
            session = uow.sessions.insert(
                session_id, machine_id=machine_id, project=new.project, repo=new.repo, engine=new.engine,
                telegram_chat_id=new.telegram_chat_id, telegram_topic_id=new.telegram_topic_id,
                resume_id=new.resume, permission_mode=new.permission_mode)
            if new.prompt.strip():
                self._append_input(uow, session_id, redact(new.prompt))  # redacted before it is stored
            uow.commit()
        self._send(machine_id, MachineMessage(SESSION_START, session_id=session_id))
        return session

    def get(self, session_id: str) -> AgentSession:
        with self._uow() as uow:
            return self._require(uow, session_id)

    def list_sessions(self, *, machine: str | None = None, status: str | None = None,
                      limit: int = 50) -> list[AgentSession]:
        with self._uow() as uow:  # a machine key sees its own machine's sessions only
            return uow.sessions.search(machine=machine or own_machine(), status=status, limit=limit)

    def send_input(self, session_id: str, text: str, files: Sequence[Mapping[str, Any]] = ()) -> int:
        """Store one user turn and forward it to the machine; return its sequence number.

        `files` are the turn's attachments as {"name", "size", "file_id"} (Telegram keeps the
        bytes; the machine fetches each through `attachment`)."""
        with self._uow() as uow:
            session = self._require(uow, session_id, for_update=True)
            if session.status not in {SessionStatus.STARTING, SessionStatus.ACTIVE}:
                raise Conflict(f"session is {session.status.value}")
            seq = self._append_input(uow, session_id, text, [dict(f) for f in files])
            uow.commit()
        message = MachineMessage(SESSION_INPUT, session_id=session_id, seq=seq, text=text,
                                 files=tuple(str(f["name"]) for f in files))
        self._send(session.machine_id, message)
        return seq

    def close(self, session_id: str) -> AgentSession:
        with self._uow() as uow:
            session = self._require(uow, session_id, for_update=True)
            if session.status == SessionStatus.CLOSING:
                return session
            ensure_session_transition(session.status, SessionStatus.CLOSING)
            updated = uow.sessions.set_status(session_id, SessionStatus.CLOSING)
            uow.sessions.append_events(session_id, [NewEvent("close_requested")])
            uow.commit()
        self._send(session.machine_id, MachineMessage(SESSION_CLOSE, session_id=session_id))
        return updated

    def events(self, session_id: str, *, after: int = 0, limit: int = 200) -> list[dict[str, Any]]:
        with self._uow() as uow:
            self._require(uow, session_id)
            return uow.sessions.events(session_id, after=after, limit=limit)

    def conversation(self, session_id: str) -> tuple[AgentSession, list[dict[str, Any]]]:
        """The session and every event it has, in order (what an export holds)."""
        with self._uow() as uow:
            session = self._require(uow, session_id)
            events: list[dict[str, Any]] = []
            while page := uow.sessions.events(session_id, after=events[-1]["seq"] if events else 0,
                                              limit=EXPORT_PAGE):
                events += page
            return session, events

    # Agent side.
    def claim(self, session_id: str, machine_id: str) -> tuple[AgentSession, list[dict[str, Any]]]:
        """starting -> active for the session's machine; returns the inputs stored so far."""
        with self._uow() as uow:
            session = self._owned(uow, session_id, machine_id)
            if session.status == SessionStatus.CLOSING:
                return session, []
            ensure_session_transition(session.status, SessionStatus.ACTIVE)
            updated = uow.sessions.set_status(session_id, SessionStatus.ACTIVE)
            uow.sessions.append_events(session_id, [NewEvent("started", f"on {machine_id}")])
            inputs = uow.sessions.events(session_id, after=0, limit=1000, kind=INPUT_KIND)
            uow.commit()
        return updated, [_turn(i) for i in inputs]

    def attachment(self, session_id: str, machine_id: str, seq: int, index: int) -> dict[str, Any]:
        """File `index` of turn `seq`, for the session's own machine: {"name", "size", "file_id"}."""
        with self._uow() as uow:
            self._owned(uow, session_id, machine_id)
            inputs = uow.sessions.events(session_id, after=0, limit=1000, kind=INPUT_KIND)
        files = next((i["data"].get("files") or [] for i in inputs if i["data"].get("seq") == seq), [])
        if not 0 <= index < len(files):
            raise NotFound(f"turn {seq} of session {session_id} has no file {index}")
        return dict(files[index])

    def record_events(self, session_id: str, machine_id: str, events: Sequence[NewEvent]) -> int:
        with self._uow() as uow:
            self._owned(uow, session_id, machine_id)
            events = redacted(events)
            last = uow.sessions.append_events(session_id, events) if events else 0
            published = [{"kind": e.kind, "text": e.text} for e in events]
            uow.after_commit(lambda: announce_session(self._publisher, session_id, published))
            uow.commit()
        return last

    def switch_engine(self, session_id: str, machine_id: str, from_engine: str, to_engine: str,
                      reason: str) -> int:
        """Count a rate-limit switch of the session's engine; refused past the switch limit (the
        loop guard tasks have). Returns the switches so far; the event shows in the topic."""
        if to_engine not in KNOWN_ENGINES:
            raise InvalidInput(f"unknown engine {to_engine!r}", field="to_engine")
        with self._uow() as uow:
            session = self._owned(uow, session_id, machine_id)
            if session.status != SessionStatus.ACTIVE:
                raise Conflict(f"session is {session.status.value}")
            done = len(uow.sessions.events(session_id, after=0, limit=1000, kind=SWITCH_KIND))
            if done >= self._policy.max_switches:
                raise Conflict(f"switch limit reached ({done}/{self._policy.max_switches})")
            event = NewEvent(SWITCH_KIND, f"{from_engine} -> {to_engine}: {redact(reason)}",
                             {"from": from_engine, "to": to_engine, "switches": done + 1})
            uow.sessions.append_events(session_id, [event])
            published = [{"kind": event.kind, "text": event.text}]
            uow.after_commit(lambda: announce_session(self._publisher, session_id, published))
            uow.commit()
        return done + 1

    def ended(self, session_id: str, machine_id: str, exit_code: int | None,
              error: str | None) -> AgentSession:
        with self._uow() as uow:
            session = self._owned(uow, session_id, machine_id)
            if not session.status.open:
                return session
            error = redact(error) if error else error
            status = SessionStatus.FAILED if error else SessionStatus.CLOSED
            updated = uow.sessions.set_status(session_id, status, exit_code=exit_code, error=error)
            uow.sessions.append_events(session_id, [NewEvent(status.value, error or "",
                                                             {"exit_code": exit_code})])
            uow.after_commit(lambda: announce_session(self._publisher, session_id, [], finished=status.value,
                                                      summary=error or ""))
            uow.commit()
        return updated

    def _send(self, machine_id: str, message: MachineMessage) -> None:
        self._queues.send_to_machine(machine_id, message.to_body())

    @staticmethod
    def _append_input(uow: TasksUnitOfWork, session_id: str, text: str,
                      files: list[dict[str, Any]] | None = None) -> int:
        seq = uow.sessions.next_input_seq(session_id)
        data: dict[str, Any] = {"seq": seq, **({"files": files} if files else {})}
        uow.sessions.append_events(session_id, [NewEvent(INPUT_KIND, text, data)])
        return seq

    @staticmethod
    def _require(uow: TasksUnitOfWork, session_id: str, *, for_update: bool = False) -> AgentSession:
        try:
            uuid.UUID(session_id)
        except ValueError:
            raise NotFound(f"no session {session_id!r}") from None
        session = uow.sessions.get(session_id, for_update=for_update)
        return or_not_found(session, f"no session {session_id!r}")

    def _owned(self, uow: TasksUnitOfWork, session_id: str, machine_id: str) -> AgentSession:
        session = self._require(uow, session_id, for_update=True)
        if session.machine_id != machine_id:
            raise Conflict(f"session runs on {session.machine_id}, not {machine_id}")
        return session


def _turn(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored input as the claim returns it: {seq, text} and, when it has any, its files' names."""
    turn = {"seq": stored["data"].get("seq"), "text": stored["text"]}
    files = [f["name"] for f in stored["data"].get("files") or ()]
    return {**turn, "files": files} if files else turn
