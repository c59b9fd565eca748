"""Postgres access to `agent_messages`, `agent_cron` and `agent_lessons`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from chalicelib.agents.domain.records import AgentMessage, CronJob, ProfileLesson
from chalicelib.kernel.postgres_repository import PostgresRepository


def _ids(row: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {**row, **{k: str(row[k]) if row.get(k) else None for k in keys}}


class MessageRepository(PostgresRepository):
    def append(self, run_id: str, sender: str, body: str) -> AgentMessage:
        # The run row's lock numbers messages gaplessly even when two senders race.
        self._conn.execute("SELECT 1 FROM agent_runs WHERE id = %s FOR UPDATE", (run_id,))
        row = self._one(
            "INSERT INTO agent_messages (run_id, seq, sender, body) VALUES (%(r)s,"
            " (SELECT coalesce(max(seq), 0) + 1 FROM agent_messages WHERE run_id = %(r)s), %(s)s, %(b)s)"
            " RETURNING *", {"r": run_id, "s": sender, "b": body})
        return AgentMessage(**_ids(row, "run_id", "follow_up_run_id"))

    def for_run(self, run_id: str) -> list[AgentMessage]:
        rows = self._conn.execute("SELECT * FROM agent_messages WHERE run_id = %s ORDER BY seq", (run_id,))
        return [AgentMessage(**_ids(r, "run_id", "follow_up_run_id")) for r in rows]

    def mark(self, run_id: str, seqs: Sequence[int], status: str,
             follow_up_run_id: str | None = None) -> None:
        self._conn.execute(
            "UPDATE agent_messages SET status = %s, follow_up_run_id = coalesce(%s, follow_up_run_id),"
            " delivered_at = CASE WHEN %s = 'delivered' THEN now() ELSE delivered_at END"
            " WHERE run_id = %s AND seq = ANY(%s) AND status = 'pending'",
            (status, follow_up_run_id, status, run_id, list(seqs)))


class CronRepository(PostgresRepository):
    def insert(self, job: CronJob) -> CronJob:
        row = self._one(
            "INSERT INTO agent_cron (id, profile, project, schedule, prompt, until_at, created_by_run,"
            " next_fire_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING *",
            (job.id, job.profile, job.project, job.schedule, job.prompt, job.until_at, job.created_by_run,
             job.next_fire_at))
        return CronJob(**_ids(row, "id", "created_by_run"))

    def jobs(self, profile: str | None) -> list[CronJob]:
        rows = self._conn.execute("SELECT * FROM agent_cron WHERE (%(p)s::text IS NULL OR profile = %(p)s)"
                                  " ORDER BY created_at", {"p": profile})
        return [CronJob(**_ids(r, "id", "created_by_run")) for r in rows]

    def delete(self, job_id: str) -> bool:
        return self._conn.execute("DELETE FROM agent_cron WHERE id = %s", (job_id,)).rowcount > 0

    def claim_due(self, now: datetime, limit: int) -> list[CronJob]:
        rows = self._conn.execute(
            "SELECT * FROM agent_cron WHERE enabled AND next_fire_at <= %s ORDER BY next_fire_at"
            " LIMIT %s FOR UPDATE SKIP LOCKED", (now, limit)).fetchall()
        return [CronJob(**_ids(r, "id", "created_by_run")) for r in rows]

    def fired(self, job_id: str, fired_at: datetime, next_fire_at: datetime | None) -> None:
        self._conn.execute(
            "UPDATE agent_cron SET last_fired_at = %s, next_fire_at = %s, fire_count = fire_count + 1,"
            " enabled = %s WHERE id = %s", (fired_at, next_fire_at, next_fire_at is not None, job_id))


class LessonRepository(PostgresRepository):
    def top(self, profile: str, limit: int) -> list[ProfileLesson]:
        rows = self._conn.execute("SELECT * FROM agent_lessons WHERE profile = %s"
                                  " ORDER BY confidence DESC, updated_at DESC LIMIT %s", (profile, limit))
        return [ProfileLesson(**_ids(r, "id", "source_run")) for r in rows]

    def upsert(self, lesson_id: str, profile: str, content: str, kind: str, confidence: float,
               source_run: str | None) -> ProfileLesson:
        """A lesson learned again keeps its confidence and is freshened (its source is the latest run)."""
        row = self._one(
            "INSERT INTO agent_lessons (id, profile, content, kind, confidence, source_run)"
            " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (profile, content) DO UPDATE"
            " SET updated_at = now(), source_run = EXCLUDED.source_run RETURNING *",
            (lesson_id, profile, content[:4000], kind, confidence, source_run))
        return ProfileLesson(**_ids(row, "id", "source_run"))

    def get(self, lesson_id: str, *, for_update: bool = False) -> ProfileLesson | None:
        lock = " FOR UPDATE" if for_update else ""
        row = self._conn.execute(f"SELECT * FROM agent_lessons WHERE id = %s{lock}", (lesson_id,)).fetchone()
        return ProfileLesson(**_ids(row, "id", "source_run")) if row else None

    def set_confidence(self, lesson_id: str, confidence: float) -> None:
        self._conn.execute("UPDATE agent_lessons SET confidence = %s, updated_at = now() WHERE id = %s",
                           (confidence, lesson_id))
