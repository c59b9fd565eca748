"""The lifecycle API over real HTTP: listing with a cursor and filters, tags (free and automatic),
search by tag, an archived memory read by id with its phase, restore, and 4xx on bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.memory.conftest import call, serving
from tests.integration.memory.lifecycle_support import LONG, lifecycle_container, start_sessions


def test_listing_pages_with_a_cursor_and_filters_by_project_phase_tag_and_category(
        tmp_path: Path, database_url: str) -> None:
    c = lifecycle_container(tmp_path, database_url)
    with serving(c) as api:
        ids = [call(api, "POST", "/api/memory", {"project": "p", "content": f"Note {i} on the billing job.",
                                                  "category": "fact" if i % 2 else "decision"})[1]["id"]
               for i in range(7)]
        call(api, "POST", "/api/memory", {"project": "other", "content": "Not in p."})
        seen, cursor = [], None
        while True:
            status, page = call(api, "GET", "/api/memory", project="p", limit=3,
                                **({"cursor": cursor} if cursor else {}))
            assert status == 200
            seen += [m["id"] for m in page["results"]]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert sorted(seen) == sorted(ids) and len(seen) == len(set(seen))
        decisions = call(api, "GET", "/api/memory", project="p", category="decision")[1]["results"]
        assert len(decisions) == 4 and all(m["category"] == "decision" for m in decisions)
        tagged = call(api, "GET", "/api/memory", tag="category:fact")[1]["results"]
        assert {m["project"] for m in tagged} == {"p", "other"} and len(tagged) == 4
        assert call(api, "GET", "/api/memory", project="p", phase="archived")[1]["results"] == []
        assert len(call(api, "GET", "/api/memory", project="p", phase="full")[1]["results"]) == 7
    c.close()


def test_free_and_automatic_tags_are_stored_listed_and_narrow_a_search(
        tmp_path: Path, database_url: str) -> None:
    c = lifecycle_container(tmp_path, database_url)
    with serving(c) as api:
        first = call(api, "POST", "/api/memory", {
            "project": "p", "category": "code_change", "content": "Retry uploads in storage/S3Uploader.py.",
            "files": ["storage/S3Uploader.py"], "metadata": {"tags": ["flaky"]}})[1]["id"]
        second = call(api, "POST", "/api/memory", {"project": "p",
                                                   "content": "Retry uploads twice at most."})[1]["id"]
        stored = call(api, "GET", f"/api/memory/{first}")[1]
        assert {"flaky", "category:code_change", "file:s3uploader.py", "ext:py"} <= set(stored["tags"])
        status, tagged = call(api, "POST", f"/api/memory/{second}/tags", {"add": ["keep", "ops"]})
        assert status == 200 and {"keep", "ops"} <= set(tagged["tags"])
        status, untagged = call(api, "POST", f"/api/memory/{second}/tags", {"remove": ["ops"]})
        assert "ops" not in untagged["tags"] and "keep" in untagged["tags"]
        both = call(api, "GET", "/api/memory/search", query="retry uploads", project="p", mode="text")[1]
        assert {h["id"] for h in both["results"]} == {first, second}
        only = call(api, "GET", "/api/memory/search", query="retry uploads", project="p", mode="text",
                    tag="flaky")[1]
        assert [h["id"] for h in only["results"]] == [first]
        per_scope = call(api, "GET", "/api/memory/search", query="retry uploads", project="p", mode="text",
                         tag="keep", project_limit=5)[1]
        assert [h["id"] for h in per_scope["results"]] == [second]
    c.close()


def test_an_archived_memory_leaves_search_but_is_read_by_id_with_its_phase_and_restored(
        tmp_path: Path, database_url: str) -> None:
    c = lifecycle_container(tmp_path, database_url, memory_budget=1)
    with serving(c) as api:
        call(api, "POST", "/api/memory", {"project": "p", "content": "Deploys go through staging first.",
                                          "metadata": {"tags": ["keep"]}})
        old = call(api, "POST", "/api/memory", {"project": "p", "content": LONG})[1]["id"]
        for week in range(3):
            start_sessions(c, "p", 1, prefix=f"w{week}")
            assert call(api, "POST", "/api/memory/evict", {"run_key": f"w{week}", "project": "p"})[0] == 200
        found = call(api, "GET", "/api/memory/search", query="Redis memcached outage", project="p",
                     mode="text")
        assert old not in {h["id"] for h in found[1]["results"]}
        status, item = call(api, "GET", f"/api/memory/{old}")
        assert status == 200 and item["phase"] == 3 and item["content"] != LONG
        archived = call(api, "GET", "/api/memory", project="p", phase="archived")[1]["results"]
        assert [m["id"] for m in archived] == [old]
        assert call(api, "GET", "/api/memory/phases", project="p")[1]["phases"] == {
            "full": 1, "hint": 0, "abstract": 0, "archived": 1}
        status, restored = call(api, "POST", f"/api/memory/{old}/restore")
        assert status == 200 and restored["restored"] and restored["memory"]["content"] == LONG
        assert restored["memory"]["phase"] == 0
    c.close()


def test_forgetting_an_evicted_memory_removes_its_archived_original_too(
        tmp_path: Path, database_url: str) -> None:
    import psycopg

    c = lifecycle_container(tmp_path, database_url, memory_budget=1)
    with serving(c) as api:
        call(api, "POST", "/api/memory", {"project": "p", "content": "Deploys go through staging first.",
                                          "metadata": {"tags": ["keep"]}})
        old = call(api, "POST", "/api/memory", {"project": "p", "content": LONG})[1]["id"]
        start_sessions(c, "p", 1, prefix="f")
        assert call(api, "POST", "/api/memory/evict", {"run_key": "f", "project": "p"})[0] == 200
        with psycopg.connect(database_url) as conn:
            kept = conn.execute("SELECT content FROM memory_archive WHERE memory_id = %s", (old,)).fetchone()
        assert kept == (LONG,)  # evicted: the original waits in the archive

        assert call(api, "DELETE", f"/api/memory/{old}")[0] in (200, 204)
        with psycopg.connect(database_url) as conn:
            left = conn.execute("SELECT count(*) FROM memory_archive WHERE memory_id = %s", (old,)).fetchone()
        assert left == (0,)
        assert call(api, "POST", f"/api/memory/{old}/restore")[0] == 404
    c.close()


@pytest.mark.parametrize(("method", "path", "body", "query", "field"), [
    ("GET", "/api/memory", None, {"phase": "gone"}, "phase"),
    ("GET", "/api/memory", None, {"cursor": "bm9wZQ"}, "cursor"),
    ("GET", "/api/memory", None, {"limit": "0"}, "limit"),
    ("GET", "/api/memory", None, {"tag": "a\x01b"}, "tag"),
    ("GET", "/api/memory/search", None, {"query": "x", "project": "p", "tag": ""}, "tag"),
    ("POST", "/api/memory/00000000-0000-0000-0000-000000000000/tags", {"add": [""]}, {}, "add"),
    ("POST", "/api/memory/not-a-uuid/restore", None, {}, "id"),
    ("POST", "/api/memory/evict", {"run_key": "bad key!"}, {}, "run_key"),
    ("POST", "/api/memory/evict", {"max_steps": 0}, {}, "max_steps"),
])
def test_malformed_lifecycle_requests_answer_400_naming_the_field(
        tmp_path: Path, database_url: str, method: str, path: str, body: object, query: dict[str, Any],
        field: str) -> None:
    c = lifecycle_container(tmp_path, database_url)
    with serving(c) as api:
        status, answer = call(api, method, path, body, **query)
        assert status == 400 and answer["field"].startswith(field), answer
    c.close()


def test_restoring_or_tagging_an_unknown_memory_is_404(tmp_path: Path, database_url: str) -> None:
    c = lifecycle_container(tmp_path, database_url)
    with serving(c) as api:
        missing = "00000000-0000-0000-0000-000000000000"
        assert call(api, "POST", f"/api/memory/{missing}/restore")[0] == 404
        assert call(api, "POST", f"/api/memory/{missing}/tags", {"add": ["x"]})[0] == 404
    c.close()


def test_itachi_memory_lists_tags_evicts_and_restores_from_the_command_line(
        tmp_path: Path, database_url: str) -> None:
    from tests.integration.memory.test_memory_cli import itachi

    c = lifecycle_container(tmp_path, database_url, memory_budget=1)
    with serving(c) as api:
        kept = call(api, "POST", "/api/memory", {"project": "cli",
                                                 "content": "Deploys go through staging."})[1]
        old = call(api, "POST", "/api/memory", {"project": "cli", "content": LONG})[1]["id"]
        tagged = itachi(api, "memory", "tag", kept["id"], "keep", "ops", cwd=tmp_path)
        assert tagged.returncode == 0 and "keep" in tagged.stdout
        assert "ops" not in itachi(api, "memory", "tag", kept["id"], "--remove", "ops", cwd=tmp_path).stdout
        for week in range(3):
            ran = itachi(api, "memory", "evict", "--project", "cli", "--run-key", f"w{week}", cwd=tmp_path)
            assert ran.returncode == 0 and "advanced 1" in ran.stdout, ran.stdout + ran.stderr
        listed = itachi(api, "memory", "list", "--project", "cli", "--phase", "archived", cwd=tmp_path)
        assert old in listed.stdout and kept["id"] not in listed.stdout
        assert "archived 1" in itachi(api, "memory", "stats", "--project", "cli", cwd=tmp_path).stdout
        restored = itachi(api, "memory", "restore", old, cwd=tmp_path)
        assert restored.returncode == 0 and restored.stdout.startswith("restored: ")
        assert c.memory.get(old, record_access=False).content == LONG
        missing = itachi(api, "memory", "restore", "00000000-0000-0000-0000-000000000000", cwd=tmp_path)
        assert missing.returncode == 1 and "no memory" in missing.stderr
    c.close()
