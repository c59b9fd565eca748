"""SQL of the graph's export and import: nodes, edges and contradictions, exactly as stored.

Rows travel as snapshots keep them (`snapshot_repository`: `to_jsonb` of the row out,
`jsonb_populate_record` over the table's stored columns in), without the node's vector, which
import computes again. Export pages nodes by id; a page carries the nodes' outgoing edges and the
contradictions they raised. Import upserts by id: a row equal to the stored one writes nothing, a
node whose text changes loses its vector. A row whose other key is already taken by another id
(an entity's name, an edge's ends and type, a contradiction's pair) is a conflict and left alone;
an edge or contradiction whose nodes are not there is missing. `superseded_by` links between
nodes are set once both ends exist, like the memories' (`transfer_repository.link`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from chalicelib.memory.adapters.memory_rows import Conn, savepoint
from chalicelib.memory.adapters.snapshot_repository import as_items, populated, stored_columns
from chalicelib.memory.adapters.transfer_repository import link_rows

# Per table: the columns it ends on (must name live nodes) and what import leaves to others.
_ENDS = {"graph_nodes": (), "graph_edges": ("source_id", "target_id"),
         "graph_contradictions": ("new_id", "old_id")}
_NOT_UPSERTED = frozenset({"id", "embedding", "superseded_by"})


class PostgresGraphTransferRepository:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def export_page(self, project: str | None, after: str | None, limit: int
                    ) -> dict[str, list[dict[str, Any]]]:
        """Nodes by id after `after` (without vectors), their outgoing edges and their contradictions."""
        nodes = self._items(
            "SELECT t.* FROM graph_nodes t WHERE (%(p)s::text IS NULL OR t.project = %(p)s)"
            " AND (%(after)s::uuid IS NULL OR t.id > %(after)s) ORDER BY t.id LIMIT %(n)s",
            {"p": project, "after": after, "n": limit})
        ids = [n["id"] for n in nodes]
        for node in nodes:
            node.pop("embedding", None)
        return {"nodes": nodes,
                "edges": self._items("SELECT t.* FROM graph_edges t WHERE t.source_id = ANY(%(ids)s::uuid[])"
                                     " ORDER BY t.id", {"ids": ids}),
                "contradictions": self._items("SELECT t.* FROM graph_contradictions t"
                                              " WHERE t.new_id = ANY(%(ids)s::uuid[]) ORDER BY t.id",
                                              {"ids": ids})}

    def _items(self, rows: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        found = self._conn.execute(as_items(rows), params, prepare=False).fetchall()
        return [dict(r["item"]) for r in found]

    def upsert(self, table: str, records: Sequence[dict[str, Any]]) -> dict[str, str]:
        """Store rows of `table` ("graph_nodes", "graph_edges" or "graph_contradictions") by id:
        each id's outcome, "inserted", "updated", "unchanged", "conflict" or "missing"."""
        if not records:
            return {}
        try:
            with savepoint(self._conn):
                return self._upsert(table, records)
        except (psycopg.errors.UniqueViolation, psycopg.errors.ForeignKeyViolation):
            pass  # one of them collides on a changed key: record by record, so the rest still goes in
        outcomes: dict[str, str] = {}
        for record in records:
            try:
                with savepoint(self._conn):
                    outcomes.update(self._upsert(table, [record]))
            except (psycopg.errors.UniqueViolation, psycopg.errors.ForeignKeyViolation):
                outcomes[str(record["id"])] = "conflict"
        return outcomes

    def _upsert(self, table: str, records: Sequence[dict[str, Any]]) -> dict[str, str]:
        given = set().union(*(r.keys() for r in records))
        columns = [c for c in stored_columns(self._conn, table) if c in given and c not in _NOT_UPSERTED]
        ident = [sql.Identifier(c) for c in columns]
        ends = sql.SQL("").join(
            sql.SQL(" AND EXISTS (SELECT 1 FROM graph_nodes x WHERE x.id = r.{})").format(sql.Identifier(c))
            for c in _ENDS[table])
        keep_vector = (sql.SQL(", embedding = CASE WHEN g.content = r.content THEN g.embedding END")
                       if table == "graph_nodes" else sql.SQL(""))
        statement = sql.SQL(
            "WITH r AS (SELECT p.* FROM jsonb_array_elements(%s) AS i(item), {populated} p),"
            " ins AS (INSERT INTO {table} (id, {cols}) SELECT r.id, {picked} FROM r WHERE true{ends}"
            "   ON CONFLICT DO NOTHING RETURNING id),"
            " upd AS (UPDATE {table} g SET {assign}{keep_vector} FROM r WHERE g.id = r.id{ends}"
            "   AND ({current}) IS DISTINCT FROM ({picked}) RETURNING g.id)"
            " SELECT r.id, r.id IN (SELECT id FROM ins) AS inserted, r.id IN (SELECT id FROM upd) AS updated,"
            " EXISTS (SELECT 1 FROM {table} x WHERE x.id = r.id) AS present,"
            " true{ends} AS whole FROM r").format(
            populated=populated(table, sql.SQL("i.item")), table=sql.Identifier(table),
            cols=sql.SQL(", ").join(ident), picked=sql.SQL(", ").join(sql.SQL("r.") + c for c in ident),
            current=sql.SQL(", ").join(sql.SQL("g.") + c for c in ident), ends=ends, keep_vector=keep_vector,
            assign=sql.SQL(", ").join(sql.SQL("{c} = r.{c}").format(c=c) for c in ident))
        rows = self._conn.execute(statement, (Jsonb(list(records)),)).fetchall()
        return {str(r["id"]): "inserted" if r["inserted"] else "updated" if r["updated"]
                else "missing" if not r["whole"] else "unchanged" if r["present"] else "conflict"
                for r in rows}

    def link(self, links: Sequence[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
        """Set nodes' superseded_by where both ends exist; return the links whose ends are missing."""
        return link_rows(self._conn, "graph_nodes", links)

    def unembedded(self, node_ids: Sequence[str]) -> list[tuple[str, str]]:
        """(id, text) of these nodes without a vector."""
        rows = self._conn.execute("SELECT id, content FROM graph_nodes WHERE id = ANY(%s::uuid[])"
                                  " AND embedding IS NULL", (list(node_ids),)).fetchall()
        return [(str(r["id"]), r["content"]) for r in rows]

    def set_vectors(self, vectors: Sequence[tuple[str, Sequence[float]]]) -> None:
        from pgvector import Vector

        with self._conn.cursor() as cur:
            cur.executemany("UPDATE graph_nodes SET embedding = %s WHERE id = %s",
                            [(Vector(list(v)), i) for i, v in vectors])
