"""Postgres: the session picker's folder walks (`telegram_folder_walks`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from psycopg.types.json import Jsonb

from chalicelib.kernel.postgres_repository import PostgresRepository
from chalicelib.telegram.domain.folder_walk import FolderWalk

_COLUMNS = ("request_id, chat_id, topic_id, machine, engine, label, prompt, title, listing_id, path, parent,"
            " entries, total, \"offset\", status")


def _walk(row: dict[str, Any]) -> FolderWalk:
    return FolderWalk(
        row["request_id"], int(row["chat_id"]), int(row["topic_id"]), row["machine"], row["engine"],
        row["label"], row["prompt"], row["title"], row["listing_id"], row["path"], row["parent"],
        tuple(row["entries"]), int(row["total"]), int(row["offset"]), row["status"])


class FolderWalkRepository(PostgresRepository):
    def add(self, walk: FolderWalk) -> None:
        self._conn.execute(
            "INSERT INTO telegram_folder_walks (request_id, chat_id, topic_id, machine, engine, label,"
            " prompt, title, listing_id) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (walk.request_id, walk.chat_id, walk.topic_id, walk.machine, walk.engine, walk.label, walk.prompt,
             walk.title, walk.listing_id))

    def by_thread(self, chat_id: int, topic_id: int) -> FolderWalk | None:
        row = self._conn.execute(
            f"SELECT {_COLUMNS} FROM telegram_folder_walks WHERE chat_id = %s AND topic_id = %s"
            " AND status = 'walking' ORDER BY created_at DESC LIMIT 1 FOR UPDATE",
            (chat_id, topic_id)).fetchone()
        return _walk(row) if row else None

    def by_listing(self, listing_id: str) -> FolderWalk | None:
        row = self._conn.execute(f"SELECT {_COLUMNS} FROM telegram_folder_walks WHERE listing_id = %s"
                                 " FOR UPDATE", (listing_id,)).fetchone()
        return _walk(row) if row else None

    def asked(self, request_id: str, listing_id: str) -> None:
        self._conn.execute("UPDATE telegram_folder_walks SET listing_id = %s, updated_at = now()"
                           " WHERE request_id = %s", (listing_id, request_id))

    def listed(self, request_id: str, path: str, parent: str | None, entries: Sequence[Mapping[str, Any]],
               total: int, offset: int) -> None:
        self._conn.execute(
            "UPDATE telegram_folder_walks SET path = %s, parent = %s, entries = %s, total = %s,"
            " \"offset\" = %s, updated_at = now() WHERE request_id = %s",
            (path, parent, Jsonb([dict(e) for e in entries]), total, offset, request_id))

    def started(self, request_id: str) -> bool:
        """Mark the walk done, once: False if it already was."""
        row = self._conn.execute("UPDATE telegram_folder_walks SET status = 'started', updated_at = now()"
                                 " WHERE request_id = %s AND status = 'walking' RETURNING request_id",
                                 (request_id,)).fetchone()
        return row is not None
