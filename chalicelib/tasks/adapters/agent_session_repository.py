"""Postgres access to `agent_sessions` and `agent_session_events`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from psycopg.types.json import Jsonb

from chalicelib.kernel.postgres_repository import PostgresRepository
from chalicelib.tasks.domain.agent_session_states import AgentSession, SessionStatus
from chalicelib.tasks.domain.task_model import NewEvent


def _session(row: dict[str, Any]) -> AgentSession:
    values = {k: v for k, v in row.items() if k in AgentSession.__dataclass_fields__}
    values.update(id=str(row["id"]), status=SessionStatus(row["status"]))
    return AgentSession(**values)


class AgentSessionRepository(PostgresRepository):
    """The `AgentSessions` port over one connection (bound by the unit of work)."""

    def insert(self, session_id: str, *, machine_id: str, project: str, repo: str | None,
               engine: str, telegram_chat_id: int | None, telegram_topic_id: int | None,
               resume_id: str | None = None, permission_mode: str | None = None) -> AgentSession:
        row = self._one(
            "INSERT INTO agent_sessions (id, machine_id, project, repo, engine, telegram_chat_id,"
            " telegram_topic_id, resume_id, permission_mode) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " RETURNING *",
            (session_id, machine_id, project, repo, engine, telegram_chat_id, telegram_topic_id, resume_id,
             permission_mode),
        )
        return _session(row)

    def get(self, session_id: str, *, for_update: bool = False) -> AgentSession | None:
        lock = " FOR UPDATE" if for_update else ""
        row = self._conn.execute(f"SELECT * FROM agent_sessions WHERE id = %s{lock}",
                                 (session_id,)).fetchone()
        return _session(row) if row else None

    def search(self, *, machine: str | None, status: str | None,
               limit: int) -> list[AgentSession]:
        rows = self._conn.execute(
            "SELECT * FROM agent_sessions WHERE (%(m)s::text IS NULL OR machine_id = %(m)s)"
            " AND (%(s)s::text IS NULL OR status = %(s)s) ORDER BY created_at DESC LIMIT %(n)s",
            {"m": machine, "s": status, "n": limit}).fetchall()
        return [_session(r) for r in rows]

    def set_status(self, session_id: str, status: SessionStatus, *,
                   exit_code: int | None = None, error: str | None = None) -> AgentSession:
        closed = status in {SessionStatus.CLOSED, SessionStatus.FAILED}
        row = self._one(
            "UPDATE agent_sessions SET status = %s, exit_code = COALESCE(%s, exit_code),"
            " error = COALESCE(%s, error), updated_at = now(),"
            " closed_at = CASE WHEN %s THEN now() ELSE closed_at END WHERE id = %s RETURNING *",
            (status.value, exit_code, error, closed, session_id))
        return _session(row)

    def next_input_seq(self, session_id: str) -> int:
        row = self._one("UPDATE agent_sessions SET input_seq = input_seq + 1, updated_at = now()"
                        " WHERE id = %s RETURNING input_seq", (session_id,))
        return int(row["input_seq"])

    def append_events(self, session_id: str, events: Sequence[NewEvent]) -> int:
        """Append with the next per-session sequence numbers; return the last seq."""
        row = self._one("UPDATE agent_sessions SET event_seq = event_seq + %s WHERE id = %s"
                        " RETURNING event_seq", (len(events), session_id))
        last = int(row["event_seq"])
        first = last - len(events) + 1
        with self._conn.cursor() as cur:
            cur.executemany("INSERT INTO agent_session_events (session_id, seq, kind, text, data)"
                            " VALUES (%s, %s, %s, %s, %s)",
                            [(session_id, first + i, e.kind, e.text, Jsonb(e.data))
                             for i, e in enumerate(events)])
        return last

    def events(self, session_id: str, *, after: int, limit: int,
               kind: str | None = None) -> list[dict[str, Any]]:
        rows = self._conn.execute(
            "SELECT seq, kind, text, data, created_at FROM agent_session_events WHERE session_id = %s"
            " AND seq > %s AND (%s::text IS NULL OR kind = %s) ORDER BY seq LIMIT %s",
            (session_id, after, kind, kind, limit)).fetchall()
        return [{**r, "created_at": r["created_at"].isoformat()} for r in rows]

    def open_on_machine(self, machine_id: str) -> list[AgentSession]:
        rows = self._conn.execute("SELECT * FROM agent_sessions WHERE machine_id = %s"
                                  " AND status IN ('starting', 'active', 'closing') FOR UPDATE SKIP LOCKED",
                                  (machine_id,)).fetchall()
        return [_session(r) for r in rows]
