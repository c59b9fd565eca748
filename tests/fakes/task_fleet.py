"""In-memory machines and agent sessions for the fake tasks unit of work (tests/fakes/task_store.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from chalicelib.tasks.domain.agent_session_states import AgentSession, SessionStatus
from chalicelib.tasks.domain.machine_records import Heartbeat, MachineRecord
from chalicelib.tasks.domain.machine_selection import MachineView
from chalicelib.tasks.domain.task_model import NewEvent
from tests.fakes.task_tables import TaskStore

_OPEN = {SessionStatus.STARTING, SessionStatus.ACTIVE, SessionStatus.CLOSING}


class FakeMachines:
    def __init__(self, store: TaskStore) -> None:
        self._s = store

    def record_heartbeat(self, hb: Heartbeat) -> tuple[str | None, str | None]:
        rows, now = self._s.tables.machines, self._s.clock()
        previous = rows.get(hb.machine_id)
        row = dict(previous or {"queue_url": None, "registered_at": now})
        row.update(id=hb.machine_id, status=hb.status, agent_instance=hb.agent_instance,
                   active_tasks=hb.active_tasks, max_concurrent=hb.max_concurrent,
                   engine_priority=tuple(hb.engine_priority), projects=tuple(hb.projects),
                   repos=tuple(hb.repos), hostname=hb.hostname, last_heartbeat_at=now)
        rows[hb.machine_id] = row
        if previous is None:
            return None, None
        return previous["agent_instance"], previous["queue_url"]

    def set_queue_url(self, machine_id: str, url: str) -> None:
        if machine_id in self._s.tables.machines:
            self._s.tables.machines[machine_id]["queue_url"] = url

    def set_paused(self, machine_id: str, paused: bool) -> bool:
        row = self._s.tables.machines.get(machine_id)
        if row is not None:
            row["paused"] = paused
        return row is not None

    def records(self, machine_id: str | None = None) -> list[MachineRecord]:
        rows = sorted(self._s.tables.machines.values(), key=lambda r: r["id"])
        return [self._record(r) for r in rows if machine_id is None or r["id"] == machine_id]

    def _record(self, row: dict[str, Any]) -> MachineRecord:
        age = (self._s.clock() - row["last_heartbeat_at"]).total_seconds()
        view = MachineView(row["id"], row["status"], age, row["max_concurrent"],
                           self._s.tables.assigned(row["id"]), row["engine_priority"], row["projects"],
                           row["repos"], paused=bool(row.get("paused")))
        return MachineRecord(view, row["agent_instance"], row["active_tasks"], row["queue_url"],
                             row["hostname"], row["last_heartbeat_at"], row["registered_at"])


class FakeAgentSessions:
    def __init__(self, store: TaskStore) -> None:
        self._s = store

    def insert(self, session_id: str, *, machine_id: str, project: str, repo: str | None, engine: str,
               telegram_chat_id: int | None, telegram_topic_id: int | None,
               resume_id: str | None = None, permission_mode: str | None = None) -> AgentSession:
        now = self._s.clock()
        session = AgentSession(session_id, machine_id, project, SessionStatus.STARTING, engine, repo,
                               telegram_chat_id=telegram_chat_id, telegram_topic_id=telegram_topic_id,
                               resume_id=resume_id, permission_mode=permission_mode, created_at=now,
                               updated_at=now)
        self._s.tables.sessions[session_id] = session
        return session

    def get(self, session_id: str, *, for_update: bool = False) -> AgentSession | None:
        return self._s.tables.sessions.get(session_id)

    def search(self, *, machine: str | None, status: str | None, limit: int) -> list[AgentSession]:
        found = [s for s in self._s.tables.sessions.values()
                 if (machine is None or s.machine_id == machine) and (status is None or s.status == status)]
        return sorted(found, key=lambda s: s.created_at or self._s.clock(), reverse=True)[:limit]

    def set_status(self, session_id: str, status: SessionStatus, *, exit_code: int | None = None,
                   error: str | None = None) -> AgentSession:
        now, session = self._s.clock(), self._s.tables.sessions[session_id]
        updated = replace(session, status=status, updated_at=now,
                          exit_code=session.exit_code if exit_code is None else exit_code,
                          error=session.error if error is None else error,
                          closed_at=session.closed_at if status.open else now)
        self._s.tables.sessions[session_id] = updated
        return updated

    def next_input_seq(self, session_id: str) -> int:
        session = self._s.tables.sessions[session_id]
        self._s.tables.sessions[session_id] = replace(session, input_seq=session.input_seq + 1,
                                                      updated_at=self._s.clock())
        return session.input_seq + 1

    def append_events(self, session_id: str, events: Sequence[NewEvent]) -> int:
        log = self._s.tables.session_events.setdefault(session_id, [])
        log.extend({"seq": len(log) + i + 1, "kind": e.kind, "text": e.text, "data": dict(e.data),
                    "created_at": self._s.clock()} for i, e in enumerate(events))
        return len(log)

    def events(self, session_id: str, *, after: int, limit: int,
               kind: str | None = None) -> list[dict[str, Any]]:
        found = [e for e in self._s.tables.session_events.get(session_id, [])
                 if e["seq"] > after and (kind is None or e["kind"] == kind)][:limit]
        return [{**e, "created_at": e["created_at"].isoformat()} for e in found]

    def open_on_machine(self, machine_id: str) -> list[AgentSession]:
        return [s for s in self._s.tables.sessions.values()
                if s.machine_id == machine_id and s.status in _OPEN]
