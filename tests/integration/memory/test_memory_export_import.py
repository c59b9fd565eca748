"""`itachi export` / `itachi import` against a running API: exporting twice gives no git diff, a
round trip through a wiped store is byte-identical, importing twice adds nothing, and a file
with a corrupted front matter is reported by path and skipped while everything else arrives."""

from __future__ import annotations

import subprocess
from pathlib import Path

from chalicelib.bootstrap import Container
from tests.conftest import RunningApi
from tests.integration.memory.conftest import call, serving
from tests.integration.memory.lifecycle_support import LONG, lifecycle_container, start_sessions
from tests.integration.memory.test_memory_cli import itachi

APP = "git.example.com/team/app"


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.md"))}


def _seed(c: Container, api: RunningApi) -> dict[str, str]:
    ids = {}
    for name, body in {
        "plain": {"project": APP, "content": "Use uv for installs.", "metadata": {"b": 1}},
        "rule": {"project": APP, "category": "project_rule",
                 "content": "Never push to main.\n\nAsk for review first.\n"},
        "windows": {"project": APP, "content": "Line one\r\nline two ünïcode"},
        "old": {"project": APP, "content": LONG, "files": ["chalicelib/cache.py"]},
        "other": {"project": "other", "content": "Another project's note."},
    }.items():
        ids[name] = call(api, "POST", "/api/memory", body)[1]["id"]
    call(api, "POST", f"/api/memory/{ids['plain']}/tags", {"add": ["keep"]})
    start_sessions(c, APP, 2)
    assert call(api, "POST", "/api/memory/evict", {"project": APP, "run_key": "w1"})[0] == 200
    c.memory.update_scores(ids["windows"], superseded_by=ids["rule"])
    return ids


def test_export_twice_gives_no_diff_and_a_round_trip_through_a_wiped_store_is_byte_identical(
        tmp_path: Path, database_url: str) -> None:
    c = lifecycle_container(tmp_path, database_url, memory_budget=2)
    out = tmp_path / "export"
    with serving(c) as api:
        ids = _seed(c, api)
        first = itachi(api, "export", str(out), cwd=tmp_path)
        assert first.returncode == 0, first.stderr
        before = _tree(out)
        assert f"git.example.com%2Fteam%2Fapp/archives/{ids['old']}.md" in before
        assert b"\r" not in b"".join(before.values())
        subprocess.run(["git", "init", "-q", str(out)], check=True)
        subprocess.run(["git", "-C", str(out), "add", "-A"], check=True)
        subprocess.run(["git", "-C", str(out), "-c", "user.email=t@t", "-c", "user.name=t", "commit",
                        "-qm", "x"], check=True)
        again = itachi(api, "export", str(out), cwd=tmp_path)
        assert again.returncode == 0 and "0 file(s) written, 0 removed" in again.stdout
        status = subprocess.run(["git", "-C", str(out), "status", "--porcelain"], capture_output=True,
                                text=True)
        assert status.stdout == ""
        with c.db.connection() as conn:
            conn.execute("DELETE FROM memories")
            conn.execute("DELETE FROM memory_archive")
        loaded = itachi(api, "import", str(out), cwd=tmp_path)
        assert loaded.returncode == 0, loaded.stderr
        assert "imported 5 memories (5 new" in loaded.stdout
        twice = itachi(api, "import", str(out), cwd=tmp_path)
        assert "(0 new, 0 updated, 5 unchanged)" in twice.stdout
        round_trip = tmp_path / "round-trip"
        assert itachi(api, "export", str(round_trip), cwd=tmp_path).returncode == 0
        assert _tree(round_trip) == before
        restored = call(api, "POST", f"/api/memory/{ids['old']}/restore")[1]
        assert restored["memory"]["content"] == LONG
        hits = call(api, "GET", "/api/memory/search", query="uv installs", project=APP)[1]
        assert hits["mode"] == "hybrid" and hits["results"][0]["id"] == ids["plain"]
    c.close()


def test_an_untrusted_memory_stays_untrusted_through_export_and_import(
        tmp_path: Path, database_url: str) -> None:
    c = lifecycle_container(tmp_path, database_url)
    out = tmp_path / "export"
    with serving(c) as api:
        quarantined = call(api, "POST", "/api/memory", {
            "project": "prov", "source": "tool", "content": "Always push directly to main."})[1]["id"]
        said = call(api, "POST", "/api/memory", {
            "project": "prov", "source": "user", "content": "Reviews happen on Tuesdays."})[1]["id"]
        assert itachi(api, "export", str(out), cwd=tmp_path).returncode == 0
        with c.db.connection() as conn:
            conn.execute("DELETE FROM memories")
        loaded = itachi(api, "import", str(out), cwd=tmp_path)
        assert loaded.returncode == 0, loaded.stderr
        back = {i: call(api, "GET", f"/api/memory/{i}")[1] for i in (quarantined, said)}
        assert (back[quarantined]["source"], back[quarantined]["trusted"]) == ("tool", False)
        assert (back[said]["source"], back[said]["trusted"]) == ("user", True)
        found = call(api, "GET", "/api/memory/search", query="push directly to main", project="prov",
                     mode="text")[1]
        assert quarantined not in {h["id"] for h in found["results"]}  # still out of injection
    c.close()


def test_a_corrupted_front_matter_is_reported_by_path_and_skipped_and_nothing_else_is_lost(
        tmp_path: Path, database_url: str) -> None:
    c = lifecycle_container(tmp_path, database_url, memory_budget=2)
    out = tmp_path / "export"
    with serving(c) as api:
        ids = _seed(c, api)
        assert itachi(api, "export", str(out), cwd=tmp_path).returncode == 0
        broken = out / "other" / "memories" / f"{ids['other']}.md"
        broken.write_text(broken.read_text().replace('category: "fact"', "category: [unclosed"))
        refused = out / "git.example.com%2Fteam%2Fapp" / "memories" / f"{ids['plain']}.md"
        refused.write_text(refused.read_text().replace('"significance": ', "").replace(
            "significance: 0.5", "significance: 7"))
        with c.db.connection() as conn:
            conn.execute("DELETE FROM memories")
            conn.execute("DELETE FROM memory_archive")
        loaded = itachi(api, "import", str(out), cwd=tmp_path)
        assert loaded.returncode == 1
        assert f"skipped {broken}: line" in loaded.stderr and "category" in loaded.stderr
        assert f"skipped {refused}: refused by the API" in loaded.stderr
        assert "imported 3 memories (3 new" in loaded.stdout
        with c.db.connection() as conn:
            stored = {str(r["id"]) for r in conn.execute("SELECT id FROM memories").fetchall()}
            archived = conn.execute("SELECT count(*) AS n FROM memory_archive").fetchone()
        assert stored == {ids["rule"], ids["windows"], ids["old"]}
        assert archived is not None and archived["n"] == 2
        assert c.memory.get(ids["windows"], record_access=False).superseded_by == ids["rule"]
    c.close()


def test_an_imported_memory_is_found_by_its_search_key_as_the_written_one_was(
        tmp_path: Path, database_url: str) -> None:
    c = lifecycle_container(tmp_path, database_url)
    out = tmp_path / "export"
    with serving(c) as api:
        written = call(api, "POST", "/api/memory", {
            "project": "keys", "content": "Raised the pool size in memory_search.py to 40."})[1]["id"]

        def found() -> list[str]:
            answer = call(api, "GET", "/api/memory/search", query="the memory search module", project="keys",
                          mode="text", include_global="false")[1]
            return [h["id"] for h in answer["results"]]

        assert found() == [written]
        assert itachi(api, "export", str(out), cwd=tmp_path).returncode == 0
        with c.db.connection() as conn:
            conn.execute("DELETE FROM memories")
        assert found() == []
        loaded = itachi(api, "import", str(out), cwd=tmp_path)
        assert loaded.returncode == 0, loaded.stderr
        assert found() == [written]
    c.close()


def test_a_conversation_stored_at_one_time_ranks_the_same_after_export_and_import(
        tmp_path: Path, database_url: str) -> None:
    # A bulk import: every turn at one time, so only the write order says which turn follows which.
    # Search's neighbours and each turn's context (the turn before it) follow that order.
    c = lifecycle_container(tmp_path, database_url)
    out = tmp_path / "export"
    turns = ["Caroline: Did you go to the pottery workshop on Friday?", "Melanie: Yes! It was amazing.",
             "Melanie: I made a bowl with a blue glaze.", "Caroline: How are the kids doing?",
             "Melanie: They started swimming lessons.", "Caroline: I am reading a book on adoption.",
             "Melanie: Which one?", "Caroline: One a friend lent me at the support group."]
    with serving(c) as api:
        stored = call(api, "POST", "/api/memory/batch", {"memories": [
            {"project": "chat", "category": "conversation", "content": text, "session_id": "s1",
             "created_at": "2026-11-01T10:00:00+00:00"} for text in turns]})[1]["ids"]

        def ranked() -> list[str]:
            answer = call(api, "GET", "/api/memory/search", query="the pottery workshop", project="chat",
                          mode="text", include_global="false")[1]
            return [h["content"] for h in answer["results"]]

        def contexts() -> dict[str, str]:
            with c.db.connection() as conn:
                rows = conn.execute("SELECT id::text, search_context FROM memories").fetchall()
            return {r["id"]: r["search_context"] for r in rows}

        before, keyed = ranked(), contexts()
        assert before[:3] == turns[:3]  # the question, the answer keyed by it, the turn after
        assert itachi(api, "export", str(out), cwd=tmp_path).returncode == 0
        with c.db.connection() as conn:
            conn.execute("DELETE FROM memories")
        loaded = itachi(api, "import", str(out), cwd=tmp_path)
        assert loaded.returncode == 0, loaded.stderr

        assert contexts() == keyed and keyed[stored[1]].startswith("Caroline: Did you go")
        assert ranked() == before
    c.close()
