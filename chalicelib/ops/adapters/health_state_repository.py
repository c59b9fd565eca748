"""The health monitor's memory in Postgres (it survives cold starts), with the local file as its
stand-in while the database is what is down; and the restarts it asked of each machine."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from chalicelib.kernel.logging import get_logger
from chalicelib.ops.domain.health_rules import CheckState

if TYPE_CHECKING:
    from chalicelib.kernel.database import Database
    from chalicelib.ops.services.health_monitor import HealthStateStore


class PostgresHealthState:
    def __init__(self, db: Database) -> None:
        self._db = db

    def load(self) -> tuple[dict[str, CheckState], float | None]:
        with self._db.connection() as conn:
            rows = conn.execute("SELECT name, failures, alerted, detail FROM health_checks").fetchall()
            ran = conn.execute("SELECT ran_at FROM health_monitor_runs WHERE id = 1").fetchone()
        states = {r["name"]: CheckState(r["failures"], r["alerted"], r["detail"]) for r in rows}
        return states, ran["ran_at"].timestamp() if ran else None

    def save(self, states: dict[str, CheckState], ran_at: float) -> None:
        with self._db.connection() as conn:
            for name, state in states.items():
                conn.execute(
                    "INSERT INTO health_checks (name, failures, alerted, detail) VALUES (%s, %s, %s, %s)"
                    " ON CONFLICT (name) DO UPDATE SET failures = EXCLUDED.failures,"
                    " alerted = EXCLUDED.alerted, detail = EXCLUDED.detail, updated_at = now()",
                    (name, state.failures, state.alerted, state.detail))
            conn.execute("INSERT INTO health_monitor_runs (id, ran_at) VALUES (1, %s)"
                         " ON CONFLICT (id) DO UPDATE SET ran_at = EXCLUDED.ran_at",
                         (datetime.fromtimestamp(ran_at, UTC),))


class DatabaseFirstHealthState:
    """Postgres, unless the local file is newer (the runs while the database was down wrote only
    the file); the file is written every run, so it carries the count through an outage."""

    def __init__(self, database: HealthStateStore, file: HealthStateStore) -> None:
        self._database, self._file = database, file

    def load(self) -> tuple[dict[str, CheckState], float | None]:
        local = self._file.load()
        try:
            stored = self._database.load()
        except Exception as exc:  # the database check reports the outage; count it from the file
            get_logger().warning("health state read from the local file",
                                 extra={"error_type": type(exc).__name__})
            return local
        newer_here = local[1] is not None and (stored[1] is None or local[1] > stored[1])
        return local if newer_here else stored

    def save(self, states: dict[str, CheckState], ran_at: float) -> None:
        self._file.save(states, ran_at)
        try:
            self._database.save(states, ran_at)
        except Exception as exc:
            get_logger().warning("health state saved to the local file only",
                                 extra={"error_type": type(exc).__name__})


class PostgresRestartLog:
    def __init__(self, db: Database) -> None:
        self._db = db

    def recent(self, machine_id: str, within_s: float) -> tuple[int, bool]:
        """(restarts asked of the machine, whether the cap was already reported) in the window."""
        with self._db.connection() as conn:
            row = conn.execute(
                "SELECT count(*) FILTER (WHERE NOT capped) AS restarts, bool_or(capped) AS capped"
                " FROM health_restarts WHERE machine_id = %s"
                " AND requested_at > now() - make_interval(secs => %s)", (machine_id, within_s)).fetchone()
        assert row is not None  # an aggregate always answers one row
        return int(row["restarts"]), bool(row["capped"])

    def record(self, machine_id: str, *, capped: bool) -> None:
        with self._db.connection() as conn:
            conn.execute("DELETE FROM health_restarts WHERE requested_at < now() - interval '1 day'")
            conn.execute("INSERT INTO health_restarts (machine_id, capped) VALUES (%s, %s)",
                         (machine_id, capped))
