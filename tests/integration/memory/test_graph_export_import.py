"""`itachi export` / `itachi import` carry the graph: a project of 10,000 memories and 2,000 graph
nodes with edges, a superseded instruction and an open contradiction, exported and imported into
an empty database, answers its rules, its graph context and its open contradictions as before;
importing twice adds nothing and exporting again is byte-identical."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import RunningApi, TestPostgres
from tests.integration.memory.conftest import call, serving
from tests.integration.memory.lifecycle_support import lifecycle_container
from tests.integration.memory.test_memory_cli import itachi
from tests.support.graph_seed import seed_graph, seed_memories

PROJECT = "git.example.com/team/big"
QUERY = "how do we keep the deploy queue of service_0 cache"


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _answers(api: RunningApi) -> dict[str, Any]:
    return {
        "rules": call(api, "GET", "/api/rules", project=PROJECT)[1],
        "rules_then": call(api, "GET", "/api/rules", project=PROJECT, as_of="2026-01-15T00:00:00Z")[1],
        "context": call(api, "GET", "/api/graph/context", project=PROJECT, query=QUERY)[1],
        "open": call(api, "GET", "/api/graph/contradictions", project=PROJECT)[1],
    }


def test_a_round_trip_into_an_empty_database_answers_rules_graph_context_and_contradictions_as_before(
        tmp_path: Path, postgres: TestPostgres) -> None:
    source = lifecycle_container(tmp_path / "a", postgres.new_database())
    seed_memories(source.db, PROJECT, 10_000)
    seeded = seed_graph(source.db, PROJECT, source.embedder, 2_000)
    out = tmp_path / "export"
    with serving(source) as api:
        before = _answers(api)
        exported = itachi(api, "export", str(out), cwd=tmp_path)
        assert exported.returncode == 0, exported.stderr
        assert "exported 10000 memories and 2000 graph nodes" in exported.stdout
    source.close()
    files = _tree(out)
    folder = "git.example.com%2Fteam%2Fbig/graph"
    assert len([f for f in files if f.startswith(f"{folder}/nodes/")]) == 2_000
    edges = files[f"{folder}/edges.jsonl"].decode().splitlines()
    edge_ids = [json.loads(line)["id"] for line in edges]
    assert len(edges) == seeded.edges and edge_ids == sorted(edge_ids)
    old = files[f"{folder}/nodes/{seeded.superseded}.md"].decode()
    assert f'superseded_by: "{seeded.replacement}"' in old and "valid_until: null" not in old
    (contradiction,) = files[f"{folder}/contradictions.jsonl"].decode().splitlines()
    assert json.loads(contradiction)["status"] == "open"
    assert before["rules"]["rules"] and before["context"]["instructions"] and before["open"]["contradictions"]
    assert "number 0 " not in json.dumps(before["rules"]) and "number 0 " in json.dumps(before["rules_then"])

    target = lifecycle_container(tmp_path / "b", postgres.new_database())
    with serving(target) as api:
        loaded = itachi(api, "import", str(out), "--defer-embeddings", cwd=tmp_path)
        assert loaded.returncode == 0, loaded.stderr
        assert "imported 10000 memories (10000 new" in loaded.stdout
        assert f"2000 nodes (2000 new, 0 updated, 0 unchanged), {seeded.edges} edges ({seeded.edges} new" \
            in loaded.stdout
        assert _answers(api) == before
        twice = itachi(api, "import", str(out), "--defer-embeddings", cwd=tmp_path)
        assert "(0 new, 0 updated, 10000 unchanged)" in twice.stdout
        assert "2000 nodes (0 new, 0 updated, 2000 unchanged)" in twice.stdout
        assert "1 contradictions (0 new, 0 updated, 1 unchanged)" in twice.stdout
        again = tmp_path / "again"
        assert itachi(api, "export", str(again), cwd=tmp_path).returncode == 0
        assert _tree(again) == files
    target.close()


def test_an_untrusted_node_stays_untrusted_and_a_node_dated_outside_1970_2200_is_refused_by_path(
        tmp_path: Path, postgres: TestPostgres) -> None:
    c = lifecycle_container(tmp_path, postgres.new_database())
    seeded = seed_graph(c.db, "trust", c.embedder, 20, entities=4)
    with c.db.connection() as conn:
        conn.execute("UPDATE graph_nodes SET trusted = false, source = 'tool' WHERE id = %s",
                     (seeded.replacement,))
    out = tmp_path / "export"
    with serving(c) as api:
        assert itachi(api, "export", str(out), cwd=tmp_path).returncode == 0
        dated = out / "trust" / "graph" / "nodes" / f"{seeded.superseded}.md"
        dated.write_text(dated.read_text().replace('created_at: "2026-', 'created_at: "1900-'))
        with c.db.connection() as conn:
            conn.execute("DELETE FROM graph_nodes")
        loaded = itachi(api, "import", str(out), cwd=tmp_path)
        assert loaded.returncode == 1
        assert f"skipped {dated}: refused by the API" in loaded.stderr and "1970 and 2200" in loaded.stderr
        assert "19 nodes (19 new" in loaded.stdout
        with c.db.connection() as conn:
            row = conn.execute("SELECT trusted, source FROM graph_nodes WHERE id = %s",
                               (seeded.replacement,)).fetchone()
            left = conn.execute("SELECT count(*) AS n FROM graph_nodes WHERE id = %s",
                                (seeded.superseded,)).fetchone()
        assert row is not None and (row["trusted"], row["source"]) == (False, "tool")
        assert left is not None and left["n"] == 0
    c.close()


def test_an_edited_node_file_is_imported_and_a_removed_node_loses_its_file_on_the_next_export(
        tmp_path: Path, postgres: TestPostgres) -> None:
    c = lifecycle_container(tmp_path, postgres.new_database())
    seeded = seed_graph(c.db, "small", c.embedder, 30, entities=5)
    out = tmp_path / "export"
    with serving(c) as api:
        assert itachi(api, "export", str(out), cwd=tmp_path).returncode == 0
        node = out / "small" / "graph" / "nodes" / f"{seeded.replacement}.md"
        node.write_text(node.read_text().replace("reviewed.", "reviewed twice."))
        edited = itachi(api, "import", str(out), cwd=tmp_path)
        assert edited.returncode == 0, edited.stderr
        assert "30 nodes (0 new, 1 updated, 29 unchanged)" in edited.stdout
        found = call(api, "GET", "/api/graph/context", project="small",
                     query="deploy queue reviewed twice")[1]
        assert any(n["content"].endswith("reviewed twice.") for n in found["instructions"])
        with c.db.connection() as conn:
            conn.execute("DELETE FROM graph_nodes WHERE id = %s", (seeded.superseded,))
        pruned = itachi(api, "export", str(out), cwd=tmp_path)
        assert pruned.returncode == 0 and "1 removed" in pruned.stdout
        assert not (out / "small" / "graph" / "nodes" / f"{seeded.superseded}.md").exists()
    c.close()
