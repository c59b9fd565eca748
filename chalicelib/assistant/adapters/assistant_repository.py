"""Postgres storage of the assistant: messages seen, the extractor's place per chat, task offers."""

from __future__ import annotations

from typing import Any

import psycopg

from chalicelib.assistant.domain.offers import Offer
from chalicelib.assistant.services.ports import AssistantUnits
from chalicelib.kernel.unit_of_work import postgres_units

Conn = psycopg.Connection[Any]
KEEP_MESSAGES = 200  # per chat: the extractor reads only the unread ones


class PostgresAssistantRepository:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def add_message(self, chat_id: int, speaker: str, text: str) -> int:
        row = self._conn.execute(
            "INSERT INTO assistant_messages (chat_id, speaker, text) VALUES (%s, %s, %s) RETURNING id",
            (chat_id, speaker, text),
        ).fetchone()
        assert row is not None
        self._conn.execute(
            "DELETE FROM assistant_messages WHERE chat_id = %s AND id <= %s",
            (chat_id, int(row["id"]) - KEEP_MESSAGES),
        )
        return int(row["id"])

    def unread(self, chat_id: int, limit: int) -> list[tuple[int, str]]:
        """Messages after the extractor's mark, oldest first (the chat row is locked until commit)."""
        self._conn.execute(
            "INSERT INTO assistant_chats (chat_id) VALUES (%s) ON CONFLICT DO NOTHING", (chat_id,)
        )
        mark = self._conn.execute(
            "SELECT extracted_through FROM assistant_chats WHERE chat_id = %s FOR UPDATE", (chat_id,)
        ).fetchone()
        rows = self._conn.execute(
            "SELECT id, text FROM assistant_messages WHERE chat_id = %s AND id > %s ORDER BY id LIMIT %s",
            (chat_id, int(mark["extracted_through"]) if mark else 0, limit),
        ).fetchall()
        return [(int(r["id"]), r["text"]) for r in rows]

    def mark_read(self, chat_id: int, through: int) -> None:
        self._conn.execute(
            "UPDATE assistant_chats SET extracted_through = %s, updated_at = now() WHERE chat_id = %s",
            (through, chat_id),
        )

    def add_offer(self, offer: Offer) -> Offer:
        row = self._conn.execute(
            "INSERT INTO assistant_offers (chat_id, topic_id, user_id, project, machine, prompt)"
            " VALUES (%s, %s, %s, %s, %s, %s) RETURNING *",
            (offer.chat_id, offer.topic_id, offer.user_id, offer.project, offer.machine, offer.prompt),
        ).fetchone()
        return _offer(row)

    def offer(self, offer_id: str) -> Offer | None:
        row = self._conn.execute("SELECT * FROM assistant_offers WHERE id::text = %s", (offer_id,)).fetchone()
        return _offer(row) if row else None

    def decide(self, offer_id: str, status: str) -> bool:
        """Move an offer from 'offered' to `status`; False when it was decided before."""
        row = self._conn.execute(
            "UPDATE assistant_offers SET status = %s, decided_at = now() WHERE id::text = %s"
            " AND status = 'offered' RETURNING id",
            (status, offer_id),
        ).fetchone()
        return row is not None

    def set_task(self, offer_id: str, task_id: str) -> None:
        self._conn.execute(
            "UPDATE assistant_offers SET task_id = %s WHERE id::text = %s", (task_id, offer_id)
        )

    def reopen(self, offer_id: str) -> None:
        self._conn.execute(
            "UPDATE assistant_offers SET status = 'offered', decided_at = NULL"
            " WHERE id::text = %s AND task_id IS NULL",
            (offer_id,),
        )

    def deploy(self, project: str) -> tuple[str, str | None] | None:
        """The project's deploy command and machine (None: any machine with the project)."""
        row = self._conn.execute("SELECT command, machine FROM project_deploys WHERE project = %s",
                                 (project,)).fetchone()
        return (row["command"], row["machine"]) if row else None

    def set_deploy(self, project: str, command: str, machine: str | None) -> None:
        self._conn.execute(
            "INSERT INTO project_deploys (project, command, machine) VALUES (%s, %s, %s)"
            " ON CONFLICT (project) DO UPDATE SET command = EXCLUDED.command, machine = EXCLUDED.machine,"
            " updated_at = now()", (project, command, machine))


def _offer(row: Any) -> Offer:
    return Offer(
        id=str(row["id"]),
        chat_id=int(row["chat_id"]),
        topic_id=int(row["topic_id"]),
        user_id=row["user_id"],
        project=row["project"],
        machine=row["machine"],
        prompt=row["prompt"],
        status=row["status"],
        task_id=row["task_id"],
    )


def assistant_units(db: Any) -> AssistantUnits:
    return postgres_units(db, assistant=PostgresAssistantRepository)
