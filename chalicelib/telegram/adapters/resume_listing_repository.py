"""Postgres: /continue's listings of terminal sessions (`telegram_resume_listings`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from psycopg.types.json import Jsonb

from chalicelib.kernel.postgres_repository import PostgresRepository
from chalicelib.telegram.domain.resume_choices import ResumeListing

_COLUMNS = "id, chat_id, topic_id, user_id, machine, path, sessions, status"


def _listing(row: dict[str, Any]) -> ResumeListing:
    return ResumeListing(row["id"], int(row["chat_id"]), int(row["topic_id"]), int(row["user_id"]),
                         row["machine"], row["path"], tuple(row["sessions"]), row["status"])


class ResumeListingRepository(PostgresRepository):
    def add(self, listing: ResumeListing) -> None:
        self._conn.execute(
            "INSERT INTO telegram_resume_listings (id, chat_id, topic_id, user_id, machine, path)"
            " VALUES (%s, %s, %s, %s, %s, %s)",
            (listing.id, listing.chat_id, listing.topic_id, listing.user_id, listing.machine, listing.path))

    def get(self, listing_id: str) -> ResumeListing | None:
        row = self._conn.execute(f"SELECT {_COLUMNS} FROM telegram_resume_listings WHERE id = %s FOR UPDATE",
                                 (listing_id,)).fetchone()
        return _listing(row) if row else None

    def listed(self, listing_id: str, path: str, sessions: Sequence[Mapping[str, Any]]) -> None:
        self._conn.execute(
            "UPDATE telegram_resume_listings SET path = %s, sessions = %s, status = 'listed',"
            " updated_at = now() WHERE id = %s AND status = 'asked'",
            (path, Jsonb([dict(s) for s in sessions]), listing_id))

    def chosen(self, listing_id: str) -> bool:
        """Mark the listing chosen, once: False if a session was already chosen from it."""
        row = self._conn.execute(
            "UPDATE telegram_resume_listings SET status = 'chosen', updated_at = now()"
            " WHERE id = %s AND status = 'listed' RETURNING id", (listing_id,)).fetchone()
        return row is not None
