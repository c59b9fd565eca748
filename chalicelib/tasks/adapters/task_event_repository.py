"""Postgres access to `task_events` and `task_outcomes`."""

from __future__ import annotations

from collections.abc import Sequence

from psycopg.types.json import Jsonb

from chalicelib.kernel.postgres_repository import PostgresRepository
from chalicelib.tasks.domain.task_model import NewEvent, TaskEvent, TaskOutcome


class TaskEventRepository(PostgresRepository):
    """The `TaskEvents` port over one connection (bound by the unit of work)."""

    def append(self, task_id: str, attempt: int, events: Sequence[NewEvent]) -> list[TaskEvent]:
        """Append events with the next per-task sequence numbers (the task row is the counter)."""
        if not events:
            return []
        row = self._one(
            "UPDATE tasks SET event_seq = event_seq + %s WHERE id = %s RETURNING event_seq",
            (len(events), task_id))
        first = int(row["event_seq"]) - len(events) + 1
        params = [(task_id, first + i, attempt, e.kind, e.text, Jsonb(e.data)) for i, e in enumerate(events)]
        with self._conn.cursor() as cur:
            cur.executemany("INSERT INTO task_events (task_id, seq, attempt, kind, text, data)"
                            " VALUES (%s, %s, %s, %s, %s, %s)", params)
        return [TaskEvent(task_id, first + i, e.kind, e.text, dict(e.data), attempt)
                for i, e in enumerate(events)]

    def since(self, task_id: str, *, after: int, limit: int) -> list[TaskEvent]:
        rows = self._conn.execute(
            "SELECT * FROM task_events WHERE task_id = %s AND seq > %s ORDER BY seq LIMIT %s",
            (task_id, after, limit)).fetchall()
        return [TaskEvent(str(r["task_id"]), r["seq"], r["kind"], r["text"], r["data"], r["attempt"],
                          r["created_at"]) for r in rows]


class TaskOutcomeRepository(PostgresRepository):
    """The `TaskOutcomes` port: one `task_outcomes` row per attempt."""

    def record(self, outcome: TaskOutcome) -> bool:
        """Record one attempt's outcome; False if that attempt was already recorded."""
        row = self._conn.execute(
            "INSERT INTO task_outcomes (task_id, attempt, project, outcome, engine, summary, files_changed,"
            " cost_usd, duration_s) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT DO NOTHING RETURNING task_id",
            (outcome.task_id, outcome.attempt, outcome.project, outcome.outcome, outcome.engine,
             outcome.summary, list(outcome.files_changed), outcome.cost_usd, outcome.duration_s),
        ).fetchone()
        return row is not None
