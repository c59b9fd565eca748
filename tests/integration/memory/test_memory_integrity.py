"""`itachi memory check [--fix]` on real Postgres: every kind of trouble is counted, the safe ones
are repaired, and what cannot be repaired safely is left and said."""

from __future__ import annotations

from pathlib import Path

from tests.integration.memory.conftest import call, serving
from tests.integration.memory.lifecycle_support import LONG, lifecycle_container, store


def test_check_counts_each_kind_of_trouble_and_fix_repairs_what_is_safe(
        tmp_path: Path, database_url: str) -> None:
    c = lifecycle_container(tmp_path, database_url, memory_budget=1)
    healthy = store(c, "p", "A healthy memory.")
    bare = store(c, "p", "Stored while the embedder was down.")
    foreign = store(c, "p", "Embedded by another model.")
    first = store(c, "p", "Same text twice.", category="fact")
    second = store(c, "p", "Same text twice.", category="decision")
    a, b, d = (store(c, "p", f"Loop member {n}.") for n in "abd")
    reduced = store(c, "p", LONG)
    gone = store(c, "p", LONG + " (gone)")
    with c.db.connection() as conn:
        conn.execute("UPDATE memories SET embedding = NULL, embedding_model = NULL WHERE id = %s", (bare,))
        conn.execute("UPDATE memories SET embedding_model = 'old-model' WHERE id = %s", (foreign,))
        for src, dst in ((a, b), (b, d), (d, a)):
            conn.execute("UPDATE memories SET superseded_by = %s WHERE id = %s", (dst, src))
        conn.execute("UPDATE memories SET phase = 1, content = 'cut' WHERE id = %s", (reduced,))
        conn.execute("INSERT INTO memory_archive (memory_id, project, category, content)"
                     " SELECT id, project, category, content FROM memories WHERE id = %s", (gone,))
        conn.execute("DELETE FROM memories WHERE id = %s", (gone,))
        entity = ("INSERT INTO graph_nodes (project, node_type, content, name_key)"
                  " VALUES (%s, 'entity', %s, %s) RETURNING id")
        ours, theirs = (conn.execute(entity, (project, name, name.lower())).fetchall()[0]["id"]
                        for project, name in (("p", "Billing"), ("q", "Dana")))
        conn.execute("INSERT INTO graph_edges (source_id, target_id, edge_type) VALUES (%s, %s, 'owns')",
                     (ours, theirs))
    with serving(c) as api:
        status, report = call(api, "GET", "/api/memory/check", project="p")
        assert status == 200
        assert report["counts"] == {
            "missing_embeddings": 1, "foreign_model_vectors": 1, "duplicate_contents": 1,
            "superseded_loops": 3, "orphan_archives": 1, "reduced_without_archive": 1, "orphan_edges": 1}
        assert report["problems"] == 9
        status, fixed = call(api, "POST", "/api/memory/check/fix", {"project": "p"})
        assert status == 200 and fixed["fixed"]["vectors"] == 2 and fixed["fixed"]["duplicate_contents"] == 1
        assert fixed["fixed"]["superseded_loops"] == 1
        assert fixed["counts"]["missing_embeddings"] == fixed["counts"]["foreign_model_vectors"] == 0
        assert fixed["counts"]["superseded_loops"] == fixed["counts"]["duplicate_contents"] == 0
        assert set(fixed["left"]) == {"orphan_archives", "reduced_without_archive", "orphan_edges"}
        assert "only copy" in fixed["left"]["orphan_archives"]
    assert c.memory.get(second, record_access=False).superseded_by == first
    assert c.memory.get(healthy, record_access=False).superseded_by is None
    live = [m for m in (a, b, d) if c.memory.get(m, record_access=False).superseded_by is None]
    assert len(live) == 1
    c.close()


def test_itachi_memory_check_prints_the_counts_and_fix_says_what_it_left(
        tmp_path: Path, database_url: str) -> None:
    from tests.integration.memory.test_memory_cli import itachi

    c = lifecycle_container(tmp_path, database_url)
    store(c, "cli", "All good here.")
    with serving(c) as api:
        clean = itachi(api, "memory", "check", "--project", "cli", cwd=tmp_path)
        assert clean.returncode == 0 and "ok: no problems" in clean.stdout and "orphan_edges" in clean.stdout
        fixed = itachi(api, "memory", "check", "--fix", "--project", "cli", cwd=tmp_path)
        assert fixed.returncode == 0 and "fixed vectors: 0" in fixed.stdout
    c.close()
