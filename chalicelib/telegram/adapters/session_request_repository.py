"""Postgres: /session requests waiting for the engine-and-mode button press."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from chalicelib.kernel.database import Database


@dataclass(frozen=True)
class SessionRequestRow:
    id: str
    chat_id: int
    topic_id: int
    user_id: int
    machine: str
    prompt: str


class SessionRequestRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def create(self, chat_id: int, topic_id: int, user_id: int, machine: str, prompt: str) -> str:
        request_id = secrets.token_hex(5)
        with self._db.connection() as conn:
            conn.execute(
                "INSERT INTO telegram_session_requests (id, chat_id, topic_id, user_id, machine, prompt) "
                "VALUES (%s, %s, %s, %s, %s, %s)", (request_id, chat_id, topic_id, user_id, machine, prompt))
        return request_id

    def choose(self, request_id: str) -> SessionRequestRow | None:
        """Take the request once: a second press of any picker button gets None."""
        with self._db.connection() as conn:
            row = conn.execute(
                "UPDATE telegram_session_requests SET chosen_at = now() "
                "WHERE id = %s AND chosen_at IS NULL "
                "RETURNING id, chat_id, topic_id, user_id, machine, prompt", (request_id,)).fetchone()
        if row is None:
            return None
        return SessionRequestRow(row["id"], int(row["chat_id"]), int(row["topic_id"]), int(row["user_id"]),
                                 row["machine"], row["prompt"])

    def attach_session(self, request_id: str, session_id: str) -> None:
        with self._db.connection() as conn:
            conn.execute("UPDATE telegram_session_requests SET session_id = %s WHERE id = %s",
                         (session_id, request_id))
