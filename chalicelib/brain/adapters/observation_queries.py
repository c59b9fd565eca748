"""The brain's observations, read from the tables of tasks, machines, memories and lessons.

Read-only queries, bounded by time windows and limits; each row becomes an `Observation` with
the key that deduplicates its proposals and the action Approve would run.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import psycopg

from chalicelib.brain.domain.proposals import Observation

Conn = psycopg.Connection[Any]
REPEAT_THRESHOLD = 3  # failures of one task (same project and description) in a day
STALE_QUEUED_MIN, STALE_DISPATCHED_MIN = 30, 15
QUIET_AFTER_S = 90  # a machine without a heartbeat this long (and no clean stop) has gone quiet

_FAILURES = """
WITH failures AS (
    SELECT e.task_id, e.attempt, e.created_at FROM task_events e
     WHERE e.kind IN ('failed', 'timed_out') AND e.created_at > %(now)s - interval '24 hours'
    UNION
    SELECT o.task_id, o.attempt, o.recorded_at FROM task_outcomes o
     WHERE o.outcome = 'failure' AND o.recorded_at > %(now)s - interval '24 hours'
), grouped AS (
    SELECT t.project, t.description, md5(t.description) AS digest,
           count(DISTINCT (f.task_id, f.attempt)) AS failures, max(f.created_at) AS last_failure,
           (array_agg(t.id::text ORDER BY f.created_at DESC))[1] AS last_task,
           (array_agg(t.error ORDER BY f.created_at DESC) FILTER (WHERE t.error IS NOT NULL))[1] AS error
      FROM failures f JOIN tasks t ON t.id = f.task_id
     GROUP BY t.project, t.description
)
SELECT g.* FROM grouped g
 WHERE g.failures >= %(threshold)s
   AND NOT EXISTS (SELECT 1 FROM tasks n WHERE n.project = g.project AND n.description = g.description
                    AND (n.created_at > g.last_failure
                         OR n.status IN ('queued', 'dispatched', 'running')))
 ORDER BY g.failures DESC LIMIT 20
"""
_STALE = """
SELECT id::text AS id, project, description, status,
       extract(epoch FROM %(now)s - coalesce(dispatched_at, created_at)) / 60 AS minutes
  FROM tasks
 WHERE (status = 'queued' AND created_at < %(now)s - make_interval(mins => %(queued)s))
    OR (status = 'dispatched' AND dispatched_at < %(now)s - make_interval(mins => %(dispatched)s))
 ORDER BY created_at LIMIT 20
"""
_QUIET = """
SELECT m.id, extract(epoch FROM %(now)s - m.last_heartbeat_at) AS age,
       (SELECT count(*) FROM tasks t WHERE t.machine_id = m.id AND t.status IN ('dispatched', 'running'))
           AS assigned
  FROM machines m
 WHERE m.status <> 'offline' AND m.last_heartbeat_at < %(now)s - make_interval(secs => %(quiet)s)
   AND m.last_heartbeat_at > %(now)s - interval '7 days'
 ORDER BY m.id LIMIT 20
"""
_ERRORS = """
SELECT project, left(lower(regexp_replace(split_part(content, E'\\n', 1), '[0-9]+', 'N', 'g')), 120)
           AS pattern, sum(times_reinforced) AS hits, min(content) AS sample
  FROM memories
 WHERE created_at > %(now)s - interval '24 hours' AND phase = 0
   AND content ~* '(error|exception|traceback|failed)'
 GROUP BY 1, 2 HAVING sum(times_reinforced) >= %(threshold)s
 ORDER BY hits DESC LIMIT 10
"""
_LESSONS = """
SELECT m.id::text AS id, m.project, left(m.content, 160) AS content, m.confidence,
       sum(e.confidence_before - e.confidence_after) AS drop
  FROM lesson_events e JOIN memories m ON m.id = e.lesson_id
 WHERE e.created_at > %(now)s - interval '7 days'
 GROUP BY m.id HAVING sum(e.confidence_before - e.confidence_after) >= 0.2 AND m.confidence < 0.4
 ORDER BY drop DESC LIMIT 10
"""


class ObservationQueries:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def _rows(self, sql: str, now: datetime, **params: Any) -> list[dict[str, Any]]:
        return self._conn.execute(sql, {"now": now, **params}).fetchall()  # type: ignore[no-any-return]

    def observe(self, now: datetime) -> list[Observation]:
        out: list[Observation] = []
        for r in self._rows(_FAILURES, now, threshold=REPEAT_THRESHOLD):
            why = f": {r['error'][:200]}" if r["error"] else ""
            out.append(Observation(
                "repeated_failure", f"failing:{r['project']}:{r['digest'][:16]}", r["project"],
                f"Task failed {r['failures']} times in 24 h: {r['description'][:160]}{why}", 1,
                {"kind": "retry_task", "task_id": r["last_task"]}, {"count": r["failures"]}))
        for r in self._rows(_STALE, now, queued=STALE_QUEUED_MIN, dispatched=STALE_DISPATCHED_MIN):
            out.append(Observation(
                "stale_task", f"stale:{r['id']}", r["project"],
                f"Task {r['id'][:8]} has been {r['status']} for {r['minutes']:.0f} min: "
                f"{r['description'][:160]}",
                2, {"kind": "retry_task", "task_id": r["id"]}))
        for r in self._rows(_QUIET, now, quiet=QUIET_AFTER_S):
            busy = f" with {r['assigned']} task(s) assigned" if r["assigned"] else ""
            out.append(Observation(
                "machine_quiet", f"quiet:{r['id']}", None,
                f"Machine {r['id']} sent no heartbeat for {r['age'] / 60:.0f} min{busy}",
                2 if r["assigned"] else 3, {"kind": "pause_machine", "machine_id": r["id"]}))
        for r in self._rows(_ERRORS, now, threshold=REPEAT_THRESHOLD):
            out.append(Observation(
                "error_pattern", f"errors:{r['project']}:{r['pattern'][:60]}", r["project"],
                f"The same error was remembered {r['hits']} times today: {r['sample'][:200]}", 3,
                {"kind": "create_task", "project": r["project"],
                 "description": f"Investigate the recurring error: {r['sample'][:300]}"},
                {"count": r["hits"]}))
        for r in self._rows(_LESSONS, now):
            out.append(Observation(
                "lesson_decline", f"lesson:{r['id']}", r["project"],
                f"Lesson confidence fell by {r['drop']:.2f} to {r['confidence']:.2f} this week: "
                f"{r['content']}",
                4, {"kind": "create_task", "project": r["project"],
                    "description": f"Review the lesson that keeps failing: {r['content']}"}))
        return out
