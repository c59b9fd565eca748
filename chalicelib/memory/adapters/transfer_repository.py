"""SQL of export and import: memories with their archived originals, exactly as stored.

Export pages by id, each row with its place among its project's memories stored at the same time
(`written`, for an import to keep the write order). Import upserts by id, every exported field as
given, and the search key and context a write would give it: a record equal to the row changes
nothing (no new row version), a new or changed text drops the vector so it is embedded again.
Links (`superseded_by`) are set once both ends exist; one whose target is not there yet is handed
back as deferred.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from chalicelib.memory.adapters.memory_rows import Conn, savepoint
from chalicelib.memory.domain.search_keys import search_key

FIELDS = ("project", "category", "content", "summary", "files", "metadata", "tags", "phase", "significance",
          "confidence", "times_reinforced", "created_at", "last_reinforced_at", "session_id", "source_ids",
          "content_hash", "source", "trusted", "valid_from", "valid_until")
_COLUMNS = ", ".join(FIELDS)
_CHANGED = " OR ".join(f"m.{f} IS DISTINCT FROM excluded.{f}" for f in FIELDS)
# The search key is derived from the text and its date (`search_keys`), so it is written, never compared;
# a changed row's key waits for the model's facts again.
_UPSERT = (
    f"INSERT INTO memories AS m (id, {_COLUMNS}, search_key, search_context)"
    f" VALUES (%(id)s, {', '.join(f'%({f})s' for f in FIELDS)}, %(search_key)s, %(search_context)s)"
    f" ON CONFLICT (id) DO UPDATE SET {', '.join(f'{f} = excluded.{f}' for f in FIELDS)},"
    " search_key = excluded.search_key, search_context = excluded.search_context,"
    " search_facts = '', search_facts_at = NULL, search_facts_tries = 0,"
    " embedding = CASE WHEN m.content = excluded.content AND m.summary = excluded.summary"
    "   AND m.content_hash = excluded.content_hash THEN m.embedding END,"
    " embedding_model = CASE WHEN m.content = excluded.content AND m.summary = excluded.summary"
    "   AND m.content_hash = excluded.content_hash THEN m.embedding_model END,"
    f" updated_at = now() WHERE {_CHANGED} RETURNING (xmax = 0) AS inserted")
_ARCHIVE = (
    "INSERT INTO memory_archive AS a (memory_id, project, category, content, summary, archived_at)"
    " VALUES (%(id)s, %(project)s, %(category)s, %(content)s, %(summary)s, %(archived_at)s)"
    " ON CONFLICT (memory_id) DO UPDATE SET project = excluded.project, category = excluded.category,"
    " content = excluded.content, summary = excluded.summary, archived_at = excluded.archived_at"
    " WHERE (a.project, a.category, a.content, a.summary, a.archived_at)"
    " IS DISTINCT FROM (excluded.project, excluded.category, excluded.content, excluded.summary,"
    " excluded.archived_at)")


# A page by id; each row's `written` numbered within its project's memories of the same time, over
# only the groups the page holds (a bulk-stored group is read once a page, not once a row).
_EXPORT_PAGE = f"""
WITH page AS (
  SELECT m.id, m.project, m.created_at FROM memories m
  WHERE (%(p)s::text IS NULL OR m.project = %(p)s) AND (%(after)s::uuid IS NULL OR m.id > %(after)s)
  ORDER BY m.id LIMIT %(n)s),
places AS (
  SELECT o.id, row_number() OVER (PARTITION BY o.project, o.created_at ORDER BY o.seq) - 1 AS written
  FROM memories o WHERE (o.project, o.created_at) IN (SELECT project, created_at FROM page))
SELECT m.id, m.superseded_by, {', '.join('m.' + f for f in FIELDS)}, pl.written,
  a.content AS a_content, a.summary AS a_summary, a.category AS a_category, a.archived_at AS a_archived_at
FROM page pg JOIN memories m ON m.id = pg.id JOIN places pl ON pl.id = pg.id
LEFT JOIN memory_archive a ON a.memory_id = m.id
ORDER BY m.id"""


def _params(record: dict[str, Any]) -> dict[str, Any]:
    """A record's statement parameters: its metadata as JSON, and the search key a write would give it
    (an imported memory is found by the same words as one written through the API); its context
    (`search_context`) as the caller computed it over the batch, or none."""
    written = record.get("created_at")
    if isinstance(written, str):
        written = datetime.fromisoformat(written)
    return {"search_context": "", **record, "metadata": Jsonb(record["metadata"]),
            "search_key": search_key(record["content"], written if isinstance(written, datetime) else None)}


class PostgresTransferRepository:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def export_page(self, project: str | None, after: str | None, limit: int) -> list[dict[str, Any]]:
        """Rows (every exported field, `superseded_by`, and `archive` or None) by id after `after`."""
        rows = self._conn.execute(_EXPORT_PAGE, {"p": project, "after": after, "n": limit},
                                  prepare=False).fetchall()
        out = []
        for r in rows:
            record = {f: r[f] for f in FIELDS}
            record["id"] = str(r["id"])
            record["superseded_by"] = str(r["superseded_by"]) if r["superseded_by"] else None
            record["written"] = int(r["written"])
            record["archive"] = None if r["a_content"] is None else {
                "content": r["a_content"], "summary": r["a_summary"], "category": r["a_category"],
                "archived_at": r["a_archived_at"]}
            out.append(record)
        return out

    def upsert(self, record: dict[str, Any]) -> str:
        """Store one record: "inserted", "updated", "unchanged", or "conflict" (another memory of
        the project has its content hash)."""
        params = _params(record)
        try:
            with savepoint(self._conn):
                row = self._conn.execute(_UPSERT, params).fetchone()
                archive = record.get("archive")
                if archive is not None:
                    values = {**archive, "id": record["id"], "project": record["project"]}
                    self._conn.execute(_ARCHIVE, values)
        except psycopg.errors.UniqueViolation:
            return "conflict"
        if row is None:
            return "unchanged"
        return "inserted" if row["inserted"] else "updated"

    def upsert_many(self, records: Sequence[dict[str, Any]]) -> list[str] | None:
        """Store records in one pipelined pass: an outcome each, or None (nothing stored) when one
        of them conflicts, for the caller to go record by record."""
        rows = [_params(r) for r in records]
        archives = [{**r["archive"], "id": r["id"], "project": r["project"]}
                    for r in records if r.get("archive")]
        try:
            with savepoint(self._conn), self._conn.cursor() as cur:
                cur.executemany(_UPSERT, rows, returning=True)
                outcomes = []
                while True:
                    found = cur.fetchone()
                    outcomes.append("unchanged" if found is None
                                    else "inserted" if found["inserted"] else "updated")
                    if not cur.nextset():
                        break
                if archives:
                    cur.executemany(_ARCHIVE, archives)
        except psycopg.errors.UniqueViolation:
            return None
        return outcomes

    def link(self, links: Sequence[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
        """Set superseded_by where both ends exist; return the links whose ends are missing."""
        return link_rows(self._conn, "memories", links)

    def unembedded(self, memory_ids: Sequence[str]) -> list[tuple[str, str, str]]:
        """(id, text, summary) of these memories without a vector (the archived original if any)."""
        rows = self._conn.execute(
            "SELECT m.id, coalesce(a.content, m.content) AS content,"
            " coalesce(a.summary, m.summary) AS summary"
            " FROM memories m LEFT JOIN memory_archive a ON a.memory_id = m.id"
            " WHERE m.id = ANY(%s::uuid[]) AND m.embedding IS NULL", (list(memory_ids),)).fetchall()
        return [(str(r["id"]), r["content"], r["summary"]) for r in rows]


Links = Sequence[tuple[str, str | None]]


def link_rows(conn: Conn, table: str, links: Links) -> list[tuple[str, str | None]]:
    """Set `superseded_by` of `table`'s rows where both ends exist; the links whose ends are missing."""
    if not links:
        return []
    ids, targets = [i for i, _ in links], [t for _, t in links]
    conn.execute(sql.SQL(
        "UPDATE {t} m SET superseded_by = u.t FROM unnest(%s::uuid[], %s::uuid[]) AS u(id, t)"
        " WHERE m.id = u.id AND m.superseded_by IS DISTINCT FROM u.t"
        " AND (u.t IS NULL OR EXISTS (SELECT 1 FROM {t} x WHERE x.id = u.t))").format(
        t=sql.Identifier(table)), (ids, targets))
    rows = conn.execute(sql.SQL(
        "SELECT u.id, u.t FROM unnest(%s::uuid[], %s::uuid[]) AS u(id, t)"
        " WHERE NOT EXISTS (SELECT 1 FROM {t} m WHERE m.id = u.id)"
        " OR (u.t IS NOT NULL AND NOT EXISTS (SELECT 1 FROM {t} x WHERE x.id = u.t))").format(
        t=sql.Identifier(table)), (ids, targets)).fetchall()
    return [(str(r["id"]), str(r["t"]) if r["t"] else None) for r in rows]
