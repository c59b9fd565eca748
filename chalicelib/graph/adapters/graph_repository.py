"""Postgres access to the graph: nodes, edges, contradictions and traces (every value a parameter).

Bound to one unit of work's connection. Cosine similarity is `1 - (embedding <=> query)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import psycopg
from pgvector import Vector
from psycopg.types.json import Jsonb

from chalicelib.graph.domain.aliases import alias_keys
from chalicelib.graph.domain.graph_model import Contradiction, Node, NodeDraft, Relation
from chalicelib.graph.domain.names import normalise_name
from chalicelib.graph.services.ports import GraphUnits, NodeNotFound, SupersedeRefused
from chalicelib.kernel.idempotency import claim
from chalicelib.kernel.unit_of_work import postgres_units

Conn = psycopg.Connection[Any]
COLS = (
    "n.id, n.project, n.node_type, n.subtype, n.content, n.salience, n.confidence, n.source, n.scope,"
    " n.valid_from, n.valid_until, n.superseded_by, n.attributes, n.created_at, n.trusted"
)
CONSUMER = "graph-store"
# The entity's attributes with `%(aliases)s` added to its alias list (no repeats, never its own key).
_MERGED_ALIASES = (
    "jsonb_set(n.attributes, '{aliases}', (SELECT coalesce(jsonb_agg(a ORDER BY a), '[]'::jsonb) FROM"
    " (SELECT jsonb_array_elements_text(coalesce(n.attributes -> 'aliases', '[]'::jsonb))"
    "  UNION SELECT unnest(%(aliases)s::text[])) AS known(a) WHERE a <> n.name_key))"
)


def to_node(r: dict[str, Any], score: float = 0.0) -> Node:
    return Node(
        id=str(r["id"]),
        project=r["project"],
        node_type=r["node_type"],
        subtype=r["subtype"],
        content=r["content"],
        salience=float(r["salience"]),
        confidence=float(r["confidence"]),
        source=r["source"],
        scope=None if r["scope"] is None else round(float(r["scope"]), 3),
        valid_from=r["valid_from"],
        valid_until=r["valid_until"],
        superseded_by=str(r["superseded_by"]) if r["superseded_by"] else None,
        attributes=dict(r["attributes"] or {}),
        created_at=r["created_at"],
        score=round(float(r.get("score") or score), 4),
        trusted=bool(r.get("trusted", True)),
    )


def _one(row: dict[str, Any] | None) -> dict[str, Any]:
    if row is None:  # RETURNING always answers a row; this keeps the type honest
        raise RuntimeError("the statement returned no row")
    return row


def _nearest(part: str) -> str:
    """One part of the fast path's vector statement: live nodes with their similarity to %(q)s."""
    return (
        f"SELECT '{part}' AS part, {COLS}, 1 - (n.embedding <=> %(q)s) AS score FROM graph_nodes n"
        f" WHERE n.project = %(project)s AND n.superseded_by IS NULL AND n.embedding IS NOT NULL"
    )


def _vec(embedding: Sequence[float] | None) -> Vector | None:
    return Vector(list(embedding)) if embedding is not None else None


class PostgresGraphRepository:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def claim(self, key: str) -> bool:
        return claim(self._conn, CONSUMER, key)

    def upsert_entity(
        self,
        project: str,
        name: str,
        subtype: str | None,
        embedding: Sequence[float] | None,
        aliases: Sequence[str] = (),
        *,
        source: str = "user",
        trusted: bool = True,
    ) -> Node:
        """The entity named `name` (or answering to it as an alias), created if none; `aliases`
        and the name's other spellings are added to its `attributes.aliases`. It keeps the source
        that first named it; named by trusted text once, it is trusted."""
        key = normalise_name(name)
        params = {"project": project, "key": key, "subtype": subtype, "vec": _vec(embedding),
                  "aliases": alias_keys(name, aliases), "name": name.strip()[:200],
                  "source": source, "trusted": trusted}
        row = self._conn.execute(
            f"UPDATE graph_nodes AS n SET subtype = coalesce(n.subtype, %(subtype)s),"
            f"   embedding = coalesce(n.embedding, %(vec)s), attributes = {_MERGED_ALIASES},"
            f"   trusted = n.trusted OR %(trusted)s"
            f" WHERE n.id = (SELECT id FROM graph_nodes WHERE project = %(project)s AND node_type = 'entity'"
            f"   AND (name_key = %(key)s OR (superseded_by IS NULL AND (attributes -> 'aliases') ? %(key)s))"
            f"   ORDER BY name_key = %(key)s DESC, salience DESC, created_at LIMIT 1)"
            f" RETURNING {COLS}",
            params,
        ).fetchone()
        if row is None:
            row = self._conn.execute(
                f"INSERT INTO graph_nodes AS n (project, node_type, subtype, content, name_key, embedding,"
                f"   attributes, source, trusted)"
                f" VALUES (%(project)s, 'entity', %(subtype)s, %(name)s, %(key)s, %(vec)s,"
                f"   jsonb_build_object('aliases', to_jsonb(%(aliases)s::text[])), %(source)s, %(trusted)s)"
                f" ON CONFLICT (project, name_key) WHERE node_type = 'entity'"
                f" DO UPDATE SET subtype = coalesce(n.subtype, EXCLUDED.subtype),"
                f"   embedding = coalesce(n.embedding, EXCLUDED.embedding), attributes = {_MERGED_ALIASES},"
                f"   trusted = n.trusted OR EXCLUDED.trusted"
                f" RETURNING {COLS}",
                params,
            ).fetchone()
        return to_node(_one(row))

    def insert_node(self, draft: NodeDraft, embedding: Sequence[float] | None) -> Node:
        name_key = normalise_name(draft.content) if draft.node_type == "entity" else None
        row = self._conn.execute(
            f"INSERT INTO graph_nodes AS n (project, node_type, subtype, content, name_key, salience,"
            f" confidence,"
            f" source, valid_from, scope, attributes, can_summarize, embedding, trusted)"
            f" VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING {COLS}",
            (
                draft.project,
                draft.node_type,
                draft.subtype,
                draft.content,
                name_key,
                draft.salience,
                draft.confidence,
                draft.source,
                draft.valid_from,
                draft.scope,
                Jsonb(draft.attributes),
                draft.can_summarize,
                _vec(embedding),
                draft.trusted is not False,
            ),
        ).fetchone()
        return to_node(_one(row))

    def get_node(self, node_id: str) -> Node | None:
        row = self._conn.execute(f"SELECT {COLS} FROM graph_nodes n WHERE n.id = %s", (node_id,)).fetchone()
        return to_node(row) if row else None

    def add_edge(
        self, source_id: str, target_id: str, edge_type: str, attributes: dict[str, Any] | None = None
    ) -> bool:
        row = self._conn.execute(
            "INSERT INTO graph_edges (source_id, target_id, edge_type, attributes) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT (source_id, target_id, edge_type) DO NOTHING RETURNING id",
            (source_id, target_id, edge_type, Jsonb(attributes or {})),
        ).fetchone()
        return row is not None

    def supersede(self, old_id: str, new_id: str) -> None:
        rows = {
            str(r["id"]): r
            for r in self._conn.execute(
                "SELECT id, project, superseded_by FROM graph_nodes WHERE id = ANY(%s::uuid[]) FOR UPDATE",
                ([old_id, new_id],),
            ).fetchall()
        }
        if old_id == new_id:
            raise SupersedeRefused("a node cannot supersede itself")
        if old_id not in rows or new_id not in rows:
            raise NodeNotFound(f"no node {old_id if old_id not in rows else new_id}")
        old, new = rows[old_id], rows[new_id]
        if old["project"] != new["project"]:
            raise SupersedeRefused("both nodes must belong to the same project")
        if old["superseded_by"] is not None:
            raise SupersedeRefused(f"node {old_id} is already superseded by {old['superseded_by']}")
        if new["superseded_by"] is not None:
            raise SupersedeRefused(f"node {new_id} is itself superseded (by {new['superseded_by']})")
        # Each version is valid from when it was stated until the next one was: the replacement's
        # time is its own, never the old node's.
        self._conn.execute(
            "UPDATE graph_nodes SET superseded_by = %s, valid_until = now(),"
            " valid_from = coalesce(valid_from, created_at) WHERE id = %s", (new_id, old_id)
        )
        self._conn.execute(
            "UPDATE graph_nodes SET valid_from = coalesce(valid_from, created_at) WHERE id = %s", (new_id,)
        )
        self._conn.execute(
            "INSERT INTO graph_edges (source_id, target_id, edge_type, attributes)"
            " SELECT CASE WHEN source_id = %(old)s THEN %(new)s::uuid ELSE source_id END,"
            "        CASE WHEN target_id = %(old)s THEN %(new)s::uuid ELSE target_id END,"
            "        edge_type, attributes"
            " FROM graph_edges WHERE (source_id = %(old)s OR target_id = %(old)s)"
            "   AND source_id <> %(new)s AND target_id <> %(new)s"
            " ON CONFLICT (source_id, target_id, edge_type) DO NOTHING",
            {"old": old_id, "new": new_id},
        )

    def find_entities(self, project: str, keys: Sequence[str], limit: int) -> list[Node]:
        if not keys:
            return []
        rows = self._conn.execute(
            f"SELECT {COLS} FROM graph_nodes n WHERE n.project = %s AND n.node_type = 'entity'"
            f" AND n.superseded_by IS NULL AND (n.name_key = ANY(%s) OR (n.attributes -> 'aliases') ?| %s)"
            f" ORDER BY n.salience DESC, length(n.name_key) DESC LIMIT %s",
            (project, list(keys), list(keys), limit),
        ).fetchall()
        return [to_node(r) for r in rows]

    def list_entities(self, project: str, limit: int, prefix: str | None = None) -> list[Node]:
        rows = self._conn.execute(
            f"SELECT {COLS} FROM graph_nodes n WHERE n.project = %s AND n.node_type = 'entity'"
            f" AND n.superseded_by IS NULL AND (%s::text IS NULL OR n.name_key LIKE %s)"
            f" ORDER BY n.name_key LIMIT %s",
            (
                project,
                prefix,
                (normalise_name(prefix or "").replace("%", r"\%").replace("_", r"\_")) + "%",
                limit,
            ),
        ).fetchall()
        return [to_node(r) for r in rows]

    def relations(self, node_ids: Sequence[str], per_node: int) -> dict[str, list[Relation]]:
        if not node_ids:
            return {}
        rows = self._conn.execute(
            f"SELECT * FROM (SELECT e.edge_type, (e.source_id = a.id) AS outgoing, a.id AS anchor, {COLS},"
            f"  row_number() OVER (PARTITION BY a.id ORDER BY n.salience DESC, n.created_at DESC) AS rank"
            f" FROM unnest(%s::uuid[]) AS a(id)"
            f" JOIN graph_edges e ON e.source_id = a.id OR e.target_id = a.id"
            f" JOIN graph_nodes n"
            f"   ON n.id = CASE WHEN e.source_id = a.id THEN e.target_id ELSE e.source_id END"
            f" WHERE n.superseded_by IS NULL) ranked WHERE rank <= %s",
            (list(node_ids), per_node),
        ).fetchall()
        found: dict[str, list[Relation]] = {}
        for r in rows:
            found.setdefault(str(r["anchor"]), []).append(Relation(r["edge_type"], r["outgoing"], to_node(r)))
        return found

    def similar(
        self,
        project: str,
        embedding: Sequence[float],
        types: Sequence[str],
        limit: int,
        *,
        min_scope: float | None = None,
        entity_id: str | None = None,
        since: datetime | None = None,
    ) -> list[Node]:
        rows = self._conn.execute(
            f"SELECT {COLS}, 1 - (n.embedding <=> %(q)s) AS score FROM graph_nodes n"
            f" WHERE n.project = %(project)s AND n.node_type = ANY(%(types)s) AND n.superseded_by IS NULL"
            f"   AND n.embedding IS NOT NULL AND (%(scope)s::real IS NULL OR n.scope >= %(scope)s)"
            f"   AND (%(since)s::timestamptz IS NULL OR n.created_at >= %(since)s)"
            f"   AND (%(entity)s::uuid IS NULL OR EXISTS (SELECT 1 FROM graph_edges e WHERE"
            f"     (e.source_id = n.id AND e.target_id = %(entity)s)"
            f"     OR (e.target_id = n.id AND e.source_id = %(entity)s)))"
            f" ORDER BY n.embedding <=> %(q)s LIMIT %(limit)s",
            {
                "q": Vector(list(embedding)),
                "project": project,
                "types": list(types),
                "scope": min_scope,
                "entity": entity_id,
                "since": since,
                "limit": limit,
            },
        ).fetchall()
        return [to_node(r) for r in rows]

    def fast_candidates(
        self,
        project: str,
        embedding: Sequence[float],
        *,
        instructions: int,
        broad_types: Sequence[str],
        broad: int,
        global_scope: float,
        global_limit: int,
    ) -> dict[str, list[Node]]:
        """The fast path's three vector searches in one statement: the live instructions nearest
        the query (through their own partial HNSW index: the literal predicate lets the planner
        pick it), the nearest live nodes of `broad_types`, and the nearest instructions of scope
        >= `global_scope` (a btree range, then exact distances)."""
        rows = self._conn.execute(
            f"({_nearest('instructions')} AND n.node_type = 'instruction'"
            f"   ORDER BY n.embedding <=> %(q)s LIMIT %(instructions)s)"
            f" UNION ALL ({_nearest('broad')} AND n.node_type = ANY(%(types)s)"
            f"   ORDER BY n.embedding <=> %(q)s LIMIT %(broad)s)"
            f" UNION ALL ({_nearest('global')} AND n.node_type = 'instruction' AND n.scope >= %(scope)s"
            f"   ORDER BY n.embedding <=> %(q)s LIMIT %(global)s)",
            {"q": Vector(list(embedding)), "project": project, "types": list(broad_types),
             "instructions": instructions, "broad": broad, "scope": global_scope, "global": global_limit},
        ).fetchall()
        found: dict[str, list[Node]] = {"instructions": [], "broad": [], "global": []}
        for r in rows:
            found[r["part"]].append(to_node(r))
        return found

    def matching(self, project: str, words: str, types: Sequence[str], limit: int) -> list[Node]:
        rows = self._conn.execute(
            f"SELECT {COLS} FROM graph_nodes n WHERE n.project = %s AND n.node_type = ANY(%s)"
            f" AND n.superseded_by IS NULL"
            f" AND to_tsvector('english', n.content) @@ plainto_tsquery('english', %s)"
            f" ORDER BY n.created_at DESC LIMIT %s",
            (project, list(types), words, limit),
        ).fetchall()
        return [to_node(r) for r in rows]

    def add_contradiction(self, project: str, new_id: str, old_id: str, reason: str) -> str | None:
        row = self._conn.execute(
            "INSERT INTO graph_contradictions (project, new_id, old_id, reason) VALUES (%s, %s, %s, %s)"
            " ON CONFLICT (new_id, old_id) DO NOTHING RETURNING id",
            (project, new_id, old_id, reason[:1000]),
        ).fetchone()
        return str(row["id"]) if row else None

    def contradictions(self, project: str | None, status: str, limit: int) -> list[Contradiction]:
        rows = self._conn.execute(
            "SELECT id FROM graph_contradictions WHERE (%s::text IS NULL OR project = %s) AND status = %s"
            " ORDER BY created_at DESC LIMIT %s",
            (project, project, status, limit),
        ).fetchall()
        return [c for r in rows if (c := self.get_contradiction(str(r["id"]))) is not None]

    def get_contradiction(self, contradiction_id: str) -> Contradiction | None:
        row = self._conn.execute(
            "SELECT * FROM graph_contradictions WHERE id = %s", (contradiction_id,)
        ).fetchone()
        if row is None:
            return None
        new, old = self.get_node(str(row["new_id"])), self.get_node(str(row["old_id"]))
        if new is None or old is None:
            return None
        return Contradiction(
            str(row["id"]), row["project"], new, old, row["reason"], row["status"], row["created_at"]
        )

    def close_contradiction(self, contradiction_id: str, status: str) -> None:
        self._conn.execute(
            "UPDATE graph_contradictions SET status = %s, resolved_at = now() WHERE id = %s",
            (status, contradiction_id),
        )

    def add_trace(self, project: str, kind: str, trace: dict[str, Any], keep_days: int) -> str:
        self._conn.execute(
            "DELETE FROM graph_traces WHERE created_at < now() - make_interval(days => %s)", (keep_days,)
        )
        row = self._conn.execute(
            "INSERT INTO graph_traces (project, kind, trace) VALUES (%s, %s, %s) RETURNING id",
            (project, kind, Jsonb(trace)),
        ).fetchone()
        return str(_one(row)["id"])

    def get_trace(self, trace_id: str) -> dict[str, Any] | None:
        row = self._conn.execute(
            "SELECT id, project, kind, trace, created_at FROM graph_traces WHERE id = %s"
            " AND created_at >= now() - interval '7 days'",
            (trace_id,),
        ).fetchone()
        if row is None:
            return None
        return {
            "id": str(row["id"]),
            "project": row["project"],
            "kind": row["kind"],
            "trace": row["trace"],
            "created_at": row["created_at"].isoformat(),
        }

    def count(self, project: str) -> dict[str, int]:
        rows = self._conn.execute(
            "SELECT node_type, count(*) AS n FROM graph_nodes WHERE project = %s AND superseded_by IS NULL"
            " GROUP BY node_type",
            (project,),
        ).fetchall()
        counts = {r["node_type"]: int(r["n"]) for r in rows}
        edges = self._conn.execute(
            "SELECT count(*) AS n FROM graph_edges e JOIN graph_nodes n ON n.id = e.source_id"
            " WHERE n.project = %s",
            (project,),
        ).fetchone()
        return {**counts, "edges": int(_one(edges)["n"])}


def graph_units(db: Any) -> GraphUnits:
    return postgres_units(db, graph=PostgresGraphRepository)
