"""Interactive agent sessions: records and their state machine.

    starting -> active -> closing -> closed;  any open state -> failed | closed
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from chalicelib.contracts.json_records import JsonRecord
from chalicelib.tasks.domain.task_states import IllegalTransition

INPUT_KIND = "user_input"  # the event kind of a user turn (its data holds the turn's `seq`)


class SessionStatus(StrEnum):
    STARTING = "starting"
    ACTIVE = "active"
    CLOSING = "closing"
    CLOSED = "closed"
    FAILED = "failed"

    @property
    def open(self) -> bool:
        return self not in {SessionStatus.CLOSED, SessionStatus.FAILED}


_ALLOWED: dict[SessionStatus, frozenset[SessionStatus]] = {
    SessionStatus.STARTING: frozenset({SessionStatus.ACTIVE, SessionStatus.CLOSING,
                                       SessionStatus.CLOSED, SessionStatus.FAILED}),
    SessionStatus.ACTIVE: frozenset({SessionStatus.CLOSING, SessionStatus.CLOSED, SessionStatus.FAILED}),
    SessionStatus.CLOSING: frozenset({SessionStatus.CLOSED, SessionStatus.FAILED}),
}


def ensure_session_transition(current: SessionStatus | str, target: SessionStatus | str) -> SessionStatus:
    src, dst = SessionStatus(current), SessionStatus(target)
    if dst not in _ALLOWED.get(src, frozenset()):
        raise IllegalTransition(f"a {src.value} session cannot become {dst.value}")
    return dst


@dataclass(frozen=True)
class AgentSession(JsonRecord):
    id: str
    machine_id: str
    project: str
    status: SessionStatus
    engine: str = "claude"
    repo: str | None = None
    input_seq: int = 0
    exit_code: int | None = None
    error: str | None = None
    telegram_chat_id: int | None = None
    telegram_topic_id: int | None = None
    resume_id: str | None = None  # the engine's own session it continues (/continue), if any
    permission_mode: str | None = None  # "plan": Claude plans first, its plan approved in the topic
    created_at: datetime | None = None
    updated_at: datetime | None = None
    closed_at: datetime | None = None
