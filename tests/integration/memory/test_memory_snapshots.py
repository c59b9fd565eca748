"""Snapshots and profiles on real Postgres: a snapshot restores memories, archives and access
counts in place; loading over live data needs --yes and keeps an automatic snapshot first; the
noisy-large profile loads its 20,000 generated items and unloads."""

from __future__ import annotations

from pathlib import Path

from tests.integration.memory.conftest import call, serving
from tests.integration.memory.lifecycle_support import (
    LONG,
    lifecycle_container,
    phases,
    start_sessions,
    use,
)
from tests.integration.memory.test_memory_cli import itachi


def test_a_snapshot_restores_memories_archives_and_access_in_place_and_a_load_keeps_a_safety_copy(
        tmp_path: Path, database_url: str) -> None:
    c = lifecycle_container(tmp_path, database_url, memory_budget=1)
    with serving(c) as api:
        kept = call(api, "POST", "/api/memory", {"project": "p",
                                                 "content": "Deploys go through staging."})[1]
        old = call(api, "POST", "/api/memory", {"project": "p", "content": LONG})[1]["id"]
        use(c, kept["id"], 4)
        start_sessions(c, "p", 1)
        call(api, "POST", "/api/memory/evict", {"project": "p", "run_key": "w1"})
        before = phases(c, "p")
        made = itachi(api, "memory", "snapshot", "create", "before", "--project", "p", cwd=tmp_path)
        assert made.returncode == 0 and "2 memories" in made.stdout
        assert call(api, "POST", "/api/memory/snapshots", {"project": "p", "name": "before"})[0] == 409
        call(api, "POST", "/api/memory", {"project": "p", "content": "Written after the snapshot."})
        call(api, "POST", f"/api/memory/{old}/restore")
        refused = itachi(api, "memory", "snapshot", "load", "before", "--project", "p", cwd=tmp_path)
        assert refused.returncode == 1 and "--yes" in refused.stderr
        loaded = itachi(api, "memory", "snapshot", "load", "before", "--project", "p", "--yes", cwd=tmp_path)
        assert loaded.returncode == 0 and "the memories it replaced are in snapshot auto-" in loaded.stdout
        assert phases(c, "p") == before
        assert c.memory.get(kept["id"], record_access=False).access_count == 4
        assert call(api, "POST", f"/api/memory/{old}/restore")[1]["memory"]["content"] == LONG
        listed = call(api, "GET", "/api/memory/snapshots", project="p")[1]["snapshots"]
        assert {s["name"] for s in listed if not s["automatic"]} == {"before"}
        safety = next(s for s in listed if s["automatic"])
        assert safety["counts"]["memories"] == 3
        missing = {"project": "p", "name": "nope", "yes": True}
        assert call(api, "POST", "/api/memory/snapshots/load", missing)[0] == 404
    c.close()


def test_a_snapshot_carries_the_projects_graph_nodes_and_edges(tmp_path: Path, database_url: str) -> None:
    c = lifecycle_container(tmp_path, database_url)
    with serving(c) as api:
        call(api, "POST", "/api/memory", {"project": "g", "content": "Dana owns the billing service."})
        with c.db.connection() as conn:
            entity = ("INSERT INTO graph_nodes (project, node_type, content, name_key)"
                      " VALUES ('g', 'entity', %s, %s) RETURNING id")
            dana, billing = (conn.execute(entity, (name, name.lower())).fetchall()[0]["id"]
                             for name in ("Dana", "billing service"))
        assert call(api, "POST", "/api/graph/edges", {"project": "g", "source_id": str(dana),
                                                      "target_id": str(billing), "type": "owns"})[0] == 201
        made = call(api, "POST", "/api/memory/snapshots", {"project": "g", "name": "with-graph"})
        assert made[0] == 201
        assert (made[1]["counts"]["graph_nodes"], made[1]["counts"]["graph_edges"]) == (2, 1)
        with c.db.connection() as conn:
            conn.execute("DELETE FROM graph_nodes WHERE project = 'g'")
        assert call(api, "POST", "/api/memory/snapshots/load",
                    {"project": "g", "name": "with-graph", "yes": True})[0] == 200
        shown = call(api, "GET", f"/api/graph/entities/{dana}", project="g")
        assert shown[0] == 200 and "billing" in str(shown[1]).lower()
    c.close()


def test_a_snapshot_carries_a_long_memorys_windows(tmp_path: Path, database_url: str) -> None:
    c = lifecycle_container(tmp_path, database_url)

    def windows() -> int:
        with c.db.connection() as conn:
            row = conn.execute("SELECT count(*) AS n FROM memory_chunks WHERE project = 'w'").fetchone()
        return int(row["n"]) if row else 0

    with serving(c) as api:
        text = " ".join(f"Step {i} of the migration moved table t{i} to the new cluster." for i in range(80))
        call(api, "POST", "/api/memory", {"project": "w", "content": text})
        stored = windows()
        assert stored > 0  # a long memory is searched by its windows too
        assert call(api, "POST", "/api/memory/snapshots", {"project": "w", "name": "long"})[0] == 201
        with c.db.connection() as conn:
            conn.execute("DELETE FROM memories WHERE project = 'w'")
        assert windows() == 0
        load = {"project": "w", "name": "long", "yes": True}
        loaded = call(api, "POST", "/api/memory/snapshots/load", load)
        assert loaded[0] == 200
        assert windows() == stored
    c.close()


def test_the_noisy_large_profile_loads_twenty_thousand_items_and_unloads(
        tmp_path: Path, database_url: str) -> None:
    c = lifecycle_container(tmp_path, database_url)
    with serving(c) as api:
        listed = itachi(api, "memory", "profile", "list", "--project", "scale", cwd=tmp_path)
        assert "noisy-large      20000 items" in listed.stdout
        loaded = itachi(api, "memory", "profile", "load", "noisy-large", "--project", "scale", cwd=tmp_path)
        assert loaded.returncode == 0 and "20000 memories" in loaded.stdout, loaded.stderr
        active = itachi(api, "memory", "profile", "active", "--project", "scale", cwd=tmp_path)
        assert "profile noisy-large, 20000 memories" in active.stdout
        hits = call(api, "GET", "/api/memory/search", query="billing worker Redis", project="scale",
                    mode="text")
        assert hits[0] == 200 and len(hits[1]["results"]) == 10
        assert itachi(api, "memory", "profile", "unload", "--project", "scale", cwd=tmp_path).returncode == 1
        gone = itachi(api, "memory", "profile", "unload", "--project", "scale", "--yes", cwd=tmp_path)
        assert gone.returncode == 0 and "snapshot auto-" in gone.stdout
        assert call(api, "GET", "/api/memory/profiles", project="scale")[1]["memories"] == 0
        assert call(api, "POST", "/api/memory/profiles/load", {"project": "scale", "name": "nope"})[0] == 400
    c.close()
