"""Postgres access to `brain_state` and `brain_proposals`, and the brain's unit of work."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from chalicelib.brain.adapters.observation_queries import ObservationQueries
from chalicelib.brain.domain.brain_state import BrainState
from chalicelib.brain.domain.proposals import NewProposal, Proposal
from chalicelib.brain.services.ports import BrainUnits
from chalicelib.kernel.unit_of_work import postgres_units

Conn = psycopg.Connection[Any]
_PROPOSAL_FIELDS = frozenset(Proposal.__dataclass_fields__) - {"id", "created_at", "dedup_key"}


class StateRepository:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def get(self, *, for_update: bool = False) -> BrainState:
        row = self._conn.execute(
            "SELECT * FROM brain_state WHERE id" + (" FOR UPDATE" if for_update else "")).fetchone()
        if row is None:  # the migration inserts it; a wiped row comes back with the defaults
            row = self._conn.execute(
                "INSERT INTO brain_state (id) VALUES (true) ON CONFLICT (id) DO UPDATE SET id = true"
                " RETURNING *").fetchone()
        assert row is not None
        return BrainState(row["enabled"], row["interval_s"], row["daily_llm_calls"], row["max_proposals"],
                          row["budget_day"], row["llm_calls_today"], row["last_cycle_at"], row["last_cycle"])

    def save(self, state: BrainState) -> None:
        self._conn.execute(
            "UPDATE brain_state SET enabled = %s, interval_s = %s, daily_llm_calls = %s, max_proposals = %s,"
            " updated_at = now() WHERE id",
            (state.enabled, state.interval_s, state.daily_llm_calls, state.max_proposals))

    def count_llm_call(self, today: date) -> None:
        self._conn.execute(
            "UPDATE brain_state SET llm_calls_today = CASE WHEN budget_day = %(d)s"
            " THEN llm_calls_today + 1 ELSE 1 END, budget_day = %(d)s WHERE id", {"d": today})

    def record_cycle(self, at: datetime, summary: dict[str, Any]) -> None:
        self._conn.execute("UPDATE brain_state SET last_cycle_at = %s, last_cycle = %s WHERE id",
                           (at, Jsonb(summary)))


class ProposalRepository:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def insert(self, proposal_id: str, new: NewProposal) -> Proposal | None:
        row = self._conn.execute(
            "INSERT INTO brain_proposals (id, dedup_key, project, title, rationale, priority, action,"
            " expires_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (dedup_key) WHERE status IN ('pending', 'approving') DO NOTHING RETURNING *",
            (proposal_id, new.dedup_key, new.project, new.title, new.rationale, new.priority,
             Jsonb(new.action), new.expires_at)).fetchone()
        return _proposal(row) if row else None

    def get(self, proposal_id: str, *, for_update: bool = False) -> Proposal | None:
        row = self._conn.execute("SELECT * FROM brain_proposals WHERE id = %s"
                                 + (" FOR UPDATE" if for_update else ""), (proposal_id,)).fetchone()
        return _proposal(row) if row else None

    def ids_with_prefix(self, prefix: str) -> list[str]:
        rows = self._conn.execute("SELECT id::text AS id FROM brain_proposals WHERE id::text LIKE %s LIMIT 2",
                                  (prefix.replace("%", "") + "%",)).fetchall()
        return [r["id"] for r in rows]

    def update(self, proposal_id: str, *, where_status: tuple[str, ...], **values: Any) -> Proposal | None:
        unknown = set(values) - _PROPOSAL_FIELDS
        if unknown:
            raise ValueError(f"not proposal fields: {sorted(unknown)}")
        sets = ", ".join(f"{k} = %({k})s" for k in values)
        row = self._conn.execute(
            f"UPDATE brain_proposals SET {sets} WHERE id = %(_id)s AND status = ANY(%(_st)s) RETURNING *",
            {**values, "_id": proposal_id, "_st": list(where_status)}).fetchone()
        return _proposal(row) if row else None

    def covered_keys(self, since: datetime) -> set[str]:
        rows = self._conn.execute(
            "SELECT DISTINCT dedup_key FROM brain_proposals WHERE status IN ('pending', 'approving')"
            " OR created_at >= %s", (since,)).fetchall()
        return {r["dedup_key"] for r in rows}

    def due_to_expire(self, now: datetime, limit: int = 100) -> list[Proposal]:
        rows = self._conn.execute(
            "SELECT * FROM brain_proposals WHERE status = 'pending' AND expires_at <= %s"
            " ORDER BY expires_at LIMIT %s FOR UPDATE SKIP LOCKED", (now, limit)).fetchall()
        return [_proposal(r) for r in rows]

    def recent(self, *, status: str | None, limit: int) -> list[Proposal]:
        rows = self._conn.execute(
            "SELECT * FROM brain_proposals WHERE (%(s)s::text IS NULL OR status = %(s)s)"
            " ORDER BY created_at DESC LIMIT %(n)s", {"s": status, "n": limit}).fetchall()
        return [_proposal(r) for r in rows]


def _proposal(row: dict[str, Any]) -> Proposal:
    stored = {name: row[name] for name in Proposal.__dataclass_fields__}
    return Proposal(**{**stored, "id": str(row["id"]), "action": dict(row["action"])})


def brain_units(db: Any) -> BrainUnits:
    return postgres_units(db, state=StateRepository, proposals=ProposalRepository,
                          observations=ObservationQueries)
