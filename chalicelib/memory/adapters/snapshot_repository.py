"""SQL of snapshots: a consistent copy of one project's memory, restorable in place.

A snapshot is a row of `memory_snapshots` and JSON items per part, taken in one REPEATABLE READ
transaction. The parts are a table of (name, statement selecting the project's rows); a row is
kept as `to_jsonb` of it (`as_items`) and restores into its table through `jsonb_populate_record`
(`populated`), over the table's columns as the catalog lists them (`stored_columns`: generated
ones left out), so a column added later is carried without a change here. Export and import
(`transfer_repository`, `graph_transfer_repository`) read and write the graph's rows the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg import sql
from psycopg.types.json import Jsonb

from chalicelib.memory.adapters.memory_rows import Conn
from chalicelib.memory.domain.memory_model import MemoryDraft


@dataclass(frozen=True)
class Part:
    name: str
    table: str
    rows: str  # SELECT of the project's rows of `table`, aliased t, with %(p)s for the project
    clear: str  # DELETE of the project's rows, with %(p)s


PARTS: tuple[Part, ...] = (
    Part("memories", "memories", "SELECT t.* FROM memories t WHERE t.project = %(p)s",
         "DELETE FROM memories WHERE project = %(p)s"),
    Part("memory_archive", "memory_archive", "SELECT t.* FROM memory_archive t WHERE t.project = %(p)s",
         "DELETE FROM memory_archive WHERE project = %(p)s"),
    Part("memory_access", "memory_access",
         "SELECT t.* FROM memory_access t JOIN memories m ON m.id = t.memory_id WHERE m.project = %(p)s",
         "SELECT 1"),  # cascades with the memories
    Part("memory_chunks", "memory_chunks", "SELECT t.* FROM memory_chunks t WHERE t.project = %(p)s",
         "SELECT 1"),  # a long memory's windows (`memory_store.windows_of`); cascade with the memories
    Part("graph_nodes", "graph_nodes", "SELECT t.* FROM graph_nodes t WHERE t.project = %(p)s",
         "DELETE FROM graph_nodes WHERE project = %(p)s"),
    Part("graph_edges", "graph_edges",
         "SELECT t.* FROM graph_edges t JOIN graph_nodes n ON n.id = t.source_id WHERE n.project = %(p)s",
         "SELECT 1"),  # cascades with the nodes
    Part("graph_contradictions", "graph_contradictions",
         "SELECT t.* FROM graph_contradictions t WHERE t.project = %(p)s", "SELECT 1"),  # likewise
)


def as_items(rows: str) -> sql.Composed:
    """A SELECT of `item`, the `to_jsonb` of each row `rows` (a constant statement) selects."""
    return sql.SQL("SELECT to_jsonb(t) AS item FROM ({rows}) t").format(
        rows=sql.SQL(rows))  # type: ignore[arg-type]  # constant text of this package


def populated(table: str, item: sql.Composable) -> sql.Composed:
    """The row of `table` that the JSON `item` (a `to_jsonb` of such a row) holds."""
    return sql.SQL("jsonb_populate_record(NULL::{table}, {item})").format(table=sql.Identifier(table),
                                                                          item=item)


def stored_columns(conn: Conn, table: str, data_type: str | None = None) -> list[str]:
    """The table's stored columns in order (only those of `data_type` when given)."""
    rows = conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()"
        " AND table_name = %s AND is_generated = 'NEVER' AND (%s::text IS NULL OR data_type = %s)"
        " ORDER BY ordinal_position", (table, data_type, data_type)).fetchall()
    return [r["column_name"] for r in rows]


class PostgresSnapshotRepository:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def consistent(self) -> None:
        """Make the unit's transaction one REPEATABLE READ view (call before anything else)."""
        self._conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")

    def create(self, project: str, name: str, *, automatic: bool) -> dict[str, int] | None:
        """Copy the project's parts under `name`; its counts, or None if the name is taken."""
        row = self._conn.execute(
            "INSERT INTO memory_snapshots (project, name, automatic) VALUES (%s, %s, %s)"
            " ON CONFLICT (project, name) DO NOTHING RETURNING id", (project, name, automatic)).fetchone()
        if row is None:
            return None
        counts = {}
        for part in PARTS:
            statement = sql.SQL("INSERT INTO memory_snapshot_items (snapshot_id, part, item) SELECT %(s)s,"
                                " %(part)s, item FROM ({items}) i").format(items=as_items(part.rows))
            counts[part.name] = self._conn.execute(
                statement, {"s": row["id"], "part": part.name, "p": project}).rowcount
        self._conn.execute("UPDATE memory_snapshots SET counts = %s WHERE id = %s",
                           (Jsonb(counts), row["id"]))
        return counts

    def listing(self, project: str) -> list[dict[str, Any]]:
        rows = self._conn.execute(
            "SELECT name, automatic, counts, created_at FROM memory_snapshots WHERE project = %s"
            " ORDER BY created_at DESC, name", (project,)).fetchall()
        return [dict(r) for r in rows]

    def live_count(self, project: str) -> int:
        row = self._conn.execute("SELECT count(*) AS n FROM memories WHERE project = %s",
                                 (project,)).fetchone()
        return int(row["n"]) if row else 0

    def clear(self, project: str) -> None:
        for part in reversed(PARTS):
            self._conn.execute(part.clear, {"p": project})  # type: ignore[call-overload]

    def restore(self, project: str, name: str) -> dict[str, int] | None:
        """Replace the project's parts by the snapshot's; its counts, or None if there is none."""
        found = self._conn.execute("SELECT id FROM memory_snapshots WHERE project = %s AND name = %s",
                                   (project, name)).fetchone()
        if found is None:
            return None
        self.clear(project)
        counts = {}
        for part in PARTS:
            columns = [sql.Identifier(c) for c in stored_columns(self._conn, part.table)]
            counts[part.name] = self._conn.execute(
                sql.SQL("INSERT INTO {table} ({cols}) SELECT {picked} FROM memory_snapshot_items i,"
                        " {populated} r WHERE i.snapshot_id = %s AND i.part = %s").format(
                    table=sql.Identifier(part.table), cols=sql.SQL(", ").join(columns),
                    populated=populated(part.table, sql.SQL("i.item")),
                    picked=sql.SQL(", ").join(sql.SQL("r.") + c for c in columns)),
                (found["id"], part.name)).rowcount
        return counts

    def dated_outside(self, project: str, name: str, earliest: datetime, latest: datetime) -> str | None:
        """The first part of the snapshot holding a time outside [earliest, latest], or None."""
        found = self._conn.execute("SELECT id FROM memory_snapshots WHERE project = %s AND name = %s",
                                   (project, name)).fetchone()
        if found is None:
            return None
        for part in PARTS:
            times = [sql.Identifier(c)
                     for c in stored_columns(self._conn, part.table, "timestamp with time zone")]
            if not times:
                continue
            outside = sql.SQL(" OR ").join(sql.SQL("r.{} NOT BETWEEN %(lo)s AND %(hi)s").format(c)
                                           for c in times)
            row = self._conn.execute(
                sql.SQL("SELECT 1 FROM memory_snapshot_items i, {populated} r"
                        " WHERE i.snapshot_id = %(s)s AND i.part = %(part)s AND ({outside}) LIMIT 1").format(
                    populated=populated(part.table, sql.SQL("i.item")), outside=outside),
                {"s": found["id"], "part": part.name, "lo": earliest, "hi": latest}).fetchone()
            if row is not None:
                return part.name
        return None

    def load_drafts(self, project: str, drafts: Iterable[MemoryDraft]) -> int:
        """COPY generated drafts into the project (a profile's items); return how many."""
        count = 0
        with self._conn.cursor().copy(
            "COPY memories (project, category, content, summary, metadata, content_hash, created_at,"
            " last_reinforced_at, tags, session_id) FROM STDIN"
        ) as copy:
            for d in drafts:
                copy.write_row((project, d.category, d.content, d.summary, Jsonb(d.metadata), d.content_hash,
                                d.created_at, d.created_at, list(d.tags), d.session_id))
                count += 1
        return count

    def active_profile(self, project: str) -> str | None:
        row = self._conn.execute("SELECT profile FROM memory_profile_state WHERE project = %s",
                                 (project,)).fetchone()
        return str(row["profile"]) if row else None

    def set_active_profile(self, project: str, profile: str | None) -> None:
        if profile is None:
            self._conn.execute("DELETE FROM memory_profile_state WHERE project = %s", (project,))
            return
        self._conn.execute("INSERT INTO memory_profile_state (project, profile) VALUES (%s, %s)"
                           " ON CONFLICT (project) DO UPDATE SET profile = excluded.profile,"
                           " loaded_at = now()",
                           (project, profile))

