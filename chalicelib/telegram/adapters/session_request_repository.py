"""Postgres: /session requests waiting for the engine-and-mode button press."""

from __future__ import annotations

from chalicelib.kernel.postgres_repository import PostgresRepository
from chalicelib.telegram.domain.telegram_records import SessionRequestRow


class SessionRequestRepository(PostgresRepository):
    def add(self, request: SessionRequestRow) -> None:
        self._conn.execute(
            "INSERT INTO telegram_session_requests (id, chat_id, topic_id, user_id, machine, prompt) "
            "VALUES (%s, %s, %s, %s, %s, %s)",
            (request.id, request.chat_id, request.topic_id, request.user_id, request.machine, request.prompt))

    def choose(self, request_id: str) -> SessionRequestRow | None:
        row = self._conn.execute(
            "UPDATE telegram_session_requests SET chosen_at = now() "
            "WHERE id = %s AND chosen_at IS NULL "
            "RETURNING id, chat_id, topic_id, user_id, machine, prompt", (request_id,)).fetchone()
        if row is None:
            return None
        return SessionRequestRow(row["id"], int(row["chat_id"]), int(row["topic_id"]), int(row["user_id"]),
                                 row["machine"], row["prompt"])

    def attach_session(self, request_id: str, session_id: str) -> None:
        self._conn.execute("UPDATE telegram_session_requests SET session_id = %s WHERE id = %s",
                           (session_id, request_id))
