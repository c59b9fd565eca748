"""Postgres access to `tool_approvals` and `tool_approval_grants`, and their unit of work."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import psycopg

from chalicelib.approvals.domain.approvals import Approval
from chalicelib.kernel.unit_of_work import postgres_units

Conn = psycopg.Connection[Any]
_FIELDS = ("id", "session_id", "project", "tool", "summary", "status", "always", "decided_by", "decided_at",
           "created_at", "expires_at", "chat_id", "topic_id", "message_id", "reason", "revising")


def _approval(row: dict[str, Any]) -> Approval:
    values = {f: row[f] for f in _FIELDS}
    values["id"] = str(values["id"])
    return Approval(**values)


class PostgresApprovals:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def granted(self, session_id: str, tool: str) -> bool:
        row = self._conn.execute("SELECT 1 FROM tool_approval_grants WHERE session_id = %s AND tool = %s",
                                 (session_id, tool)).fetchone()
        return row is not None

    def create(self, session_id: str, project: str, tool: str, summary: str, topic_id: int | None,
               expires_at: datetime, status: str = "pending", decided_by: str | None = None) -> Approval:
        row = self._conn.execute(
            "INSERT INTO tool_approvals (session_id, project, tool, summary, topic_id, expires_at, status,"
            " decided_by, decided_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s,"
            " CASE WHEN %s = 'pending' THEN NULL ELSE now() END) RETURNING *",
            (session_id, project, tool, summary, topic_id, expires_at, status, decided_by, status)).fetchone()
        assert row is not None
        return _approval(row)

    def get(self, approval_id: str) -> Approval | None:
        row = self._conn.execute("SELECT * FROM tool_approvals WHERE id = %s", (approval_id,)).fetchone()
        return _approval(row) if row else None

    def posted(self, approval_id: str, chat_id: int, message_id: int) -> None:
        self._conn.execute("UPDATE tool_approvals SET chat_id = %s, message_id = %s WHERE id = %s",
                           (chat_id, message_id, approval_id))

    def settle(self, approval_id: str, status: str, *, by: str | None, always: bool = False,
               now: datetime | None = None, reason: str | None = None) -> Approval | None:
        """Move a pending approval to `status` (only while it has not expired, unless expiring it)."""
        row = self._conn.execute(
            "UPDATE tool_approvals SET status = %(s)s, always = %(always)s, decided_by = %(by)s,"
            " decided_at = coalesce(%(now)s, now()), reason = %(reason)s, revising = false"
            " WHERE id = %(id)s AND status = 'pending'"
            " AND (%(s)s = 'expired' OR expires_at > coalesce(%(now)s, now())) RETURNING *",
            {"s": status, "always": always, "by": by, "now": now, "id": approval_id,
             "reason": reason}).fetchone()
        if row is None:
            return None
        if always and status == "allowed":
            self._conn.execute(
                "INSERT INTO tool_approval_grants (session_id, tool, approval_id) VALUES (%s, %s, %s)"
                " ON CONFLICT (session_id, tool) DO NOTHING", (row["session_id"], row["tool"], row["id"]))
        return _approval(row)

    def revise(self, approval_id: str, *, by: str, now: datetime, expires_at: datetime) -> Approval | None:
        """Mark a pending plan approval as waiting for its reason, until `expires_at`."""
        row = self._conn.execute(
            "UPDATE tool_approvals SET revising = true, decided_by = %s,"
            " expires_at = greatest(expires_at, %s)"
            " WHERE id = %s AND status = 'pending' AND NOT revising AND expires_at > %s RETURNING *",
            (by, expires_at, approval_id, now)).fetchone()
        return _approval(row) if row else None

    def awaiting_reason(self, chat_id: int, topic_id: int, now: datetime) -> Approval | None:
        """The latest plan approval of this topic whose Revise waits for the person's words."""
        row = self._conn.execute(
            "SELECT * FROM tool_approvals WHERE chat_id = %s AND coalesce(topic_id, 0) = %s"
            " AND status = 'pending' AND revising AND expires_at > %s ORDER BY created_at DESC LIMIT 1",
            (chat_id, topic_id, now)).fetchone()
        return _approval(row) if row else None


def approval_units(db: Any) -> Callable[[], Any]:
    return postgres_units(db, approvals=PostgresApprovals)
