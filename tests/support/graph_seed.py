"""A large project for export tests and benchmarks: memories bulk-loaded, and a graph of entities
and items with edges, one instruction superseded and one open contradiction.

Memories are COPYed without vectors (the round trip never reads them); graph nodes carry the
given embedder's vectors so graph context answers from them. Everything is deterministic.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from chalicelib.graph.adapters.graph_repository import PostgresGraphRepository
from chalicelib.graph.domain.graph_model import NodeDraft
from chalicelib.graph.domain.names import normalise_name
from chalicelib.kernel.database import Database
from chalicelib.memory.adapters.memory_bulk_load import bulk_load
from chalicelib.memory.adapters.memory_rows import vector
from chalicelib.memory.domain.memory_model import MemoryDraft
from chalicelib.memory.services.ports import Embedder

WORDS = ("cache", "deploy", "queue", "worker", "retry", "index", "schema", "billing", "upload",
         "token", "session", "limit", "export", "migration", "rollback", "feature", "flag",
         "timeout", "latency", "replica", "shard", "backup", "alert")
BASE = datetime(2026, 1, 1, tzinfo=UTC)
ITEM_TYPES = ("fact", "instruction", "event", "opinion", "fact", "plan")


@dataclass(frozen=True)
class SeededGraph:
    nodes: int
    edges: int
    superseded: str
    replacement: str
    contradiction: str


def memory_drafts(project: str, rows: int, rules: int = 20) -> Iterator[MemoryDraft]:
    """`rows` memories of `project`, the first `rules` of them project rules."""
    rng = random.Random(7)
    for i in range(rows):
        text = (f"Note {i}: the {rng.choice(WORDS)} {rng.choice(WORDS)} of service_{i % 97} "
                f"{' '.join(rng.choices(WORDS, k=rng.randint(6, 20)))}.")
        category = "project_rule" if i < rules else ("fact", "decision", "code_change")[i % 3]
        if i < rules:
            text = f"Always run the {WORDS[i % len(WORDS)]} check number {i} before a merge."
        yield MemoryDraft(project=project, category=category, content=text,
                          created_at=BASE + timedelta(seconds=rng.randrange(31_536_000)))


RULE_SUPERSEDED_AT = datetime(2026, 6, 1, tzinfo=UTC)


def seed_memories(db: Database, project: str, rows: int) -> int:
    """Bulk-load the memories; the rules carry their history: each valid from when it was stated,
    and the first one superseded by the second on RULE_SUPERSEDED_AT."""
    count = bulk_load(db, memory_drafts(project, rows), rebuild_index=False)
    with db.connection() as conn:
        conn.execute("UPDATE memories SET valid_from = created_at WHERE project = %s"
                     " AND category = 'project_rule'", (project,))
        first, second = (conn.execute(
            "SELECT id FROM memories WHERE project = %s AND content LIKE %s", (project, f"% number {n} %")
        ).fetchone() for n in (0, 1))
        assert first is not None and second is not None
        conn.execute("UPDATE memories SET created_at = %s, valid_from = %s, superseded_by = %s,"
                     " valid_until = %s WHERE id = %s",
                     (BASE, BASE, second["id"], RULE_SUPERSEDED_AT, first["id"]))
    return count


def seed_graph(db: Database, project: str, embedder: Embedder, nodes: int,
               entities: int = 200) -> SeededGraph:
    """`nodes` graph nodes of `project` (`entities` of them entities), each item `about` one entity and
    entities linked in a ring; then one instruction superseded and one contradiction left open."""
    rng = random.Random(11)
    names = [f"service_{i} {WORDS[i % len(WORDS)]}" for i in range(entities)]
    items = []
    for i in range(nodes - entities - 1):
        kind = ITEM_TYPES[i % len(ITEM_TYPES)]
        words = " ".join(rng.choices(WORDS, k=rng.randint(4, 10)))
        text = (f"Always keep the {words} of {names[i % entities]} in step {i}." if kind == "instruction"
                else f"The {words} of {names[i % entities]} changed in step {i}.")
        items.append((kind, text, i % entities))
    vectors = embedder.embed(names + [text for _, text, _ in items])
    ids = [_uuid(rng) for _ in names]
    item_ids = [_uuid(rng) for _ in items]
    with db.connection() as conn:
        with conn.cursor().copy(
            "COPY graph_nodes (id, project, node_type, subtype, content, name_key, embedding, created_at,"
            " attributes, source, valid_from, scope, can_summarize) FROM STDIN"
        ) as copy:
            for i, name in enumerate(names):
                copy.write_row((ids[i], project, "entity", "tool", name, normalise_name(name),
                                vector(vectors[i]), BASE + timedelta(minutes=i), '{"aliases": []}', "user",
                                None, None, True))
            for n, (kind, text, _) in enumerate(items):
                # Distinct creation times: items sharing one would rank in no set order.
                draft = NodeDraft(project, kind, text, valid_from=BASE + timedelta(days=n % 300),
                                  attributes={"step": n}).checked()
                copy.write_row((item_ids[n], project, kind, draft.subtype, draft.content, None,
                                vector(vectors[len(names) + n]), BASE + timedelta(minutes=n),
                                json.dumps(draft.attributes), draft.source, draft.valid_from, draft.scope,
                                draft.can_summarize))
        with conn.cursor().copy("COPY graph_edges (source_id, target_id, edge_type) FROM STDIN") as copy:
            for n, (_, _, entity) in enumerate(items):
                copy.write_row((item_ids[n], ids[entity], "about"))
            for i in range(entities):
                copy.write_row((ids[i], ids[(i + 1) % entities], "depends_on"))
        repo = PostgresGraphRepository(conn)
        old = next(i for i, (kind, _, _) in zip(item_ids, items, strict=True) if kind == "instruction")
        text = "Always keep the deploy queue of service_0 cache in step zero, reviewed."
        new = repo.insert_node(NodeDraft(project, "instruction", text).checked(), embedder.embed([text])[0])
        repo.supersede(old, new.id)
        clashing = [i for i, (kind, _, _) in zip(item_ids, items, strict=True) if kind == "instruction"][1:3]
        contradiction = repo.add_contradiction(project, clashing[1], clashing[0], "they disagree")
        count = conn.execute("SELECT count(*) AS n FROM graph_edges").fetchone()
        conn.commit()
    assert contradiction is not None and count is not None
    return SeededGraph(nodes=nodes, edges=int(count["n"]), superseded=old, replacement=new.id,
                       contradiction=contradiction)


def _uuid(rng: random.Random) -> str:
    import uuid

    return str(uuid.UUID(int=rng.getrandbits(128), version=4))
