"""The memory API contract over real HTTP: shapes, status codes, and 4xx for every malformed request."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.conftest import RunningApi
from tests.integration.memory.conftest import call

RESULT_KEYS = {"id", "project", "category", "content", "summary", "score", "created_at", "metadata"}


def test_a_stored_memory_is_found_read_counted_and_forgotten(api: RunningApi) -> None:
    status, stored = call(api, "POST", "/api/memory", {
        "project": "p1", "category": "decision", "content": "We chose Postgres with pgvector for memories.",
        "summary": "database choice", "files": ["docs/architecture.md"], "metadata": {"source": "test"},
    })
    assert status == 201 and stored["deduplicated"] is False
    status, found = call(api, "GET", "/api/memory/search", query="which database stores memories",
                         project="p1", limit=3)
    assert status == 200 and found["mode"] == "hybrid"
    assert found["results"][0]["id"] == stored["id"]
    assert set(found["results"][0]) >= RESULT_KEYS
    assert 0.0 < found["results"][0]["score"] <= 1.0
    status, item = call(api, "GET", f"/api/memory/{stored['id']}")
    assert status == 200 and item["files"] == ["docs/architecture.md"] and item["access_count"] >= 1
    status, stats = call(api, "GET", "/api/memory/stats", project="p1")
    assert stats["total"] == 1 and stats["by_category"] == {"decision": 1} and stats["with_embedding"] == 1
    assert call(api, "DELETE", f"/api/memory/{stored['id']}") == (200, {"id": stored["id"], "deleted": True})
    assert call(api, "GET", f"/api/memory/{stored['id']}")[0] == 404
    assert call(api, "DELETE", f"/api/memory/{stored['id']}")[0] == 404


def test_storing_the_same_memory_twice_returns_the_same_id_marked_deduplicated(api: RunningApi) -> None:
    body = {"project": "p1", "category": "fact", "content": "The CI runs on two cores."}
    first = call(api, "POST", "/api/memory", body)[1]
    status, second = call(api, "POST", "/api/memory", {**body, "content": "the CI  runs on two cores."})
    assert status == 201 and second == {"id": first["id"], "deduplicated": True, "trusted": True}
    assert call(api, "GET", f"/api/memory/{first['id']}")[1]["times_reinforced"] == 2


def test_a_batch_keeps_input_order_and_created_at(api: RunningApi) -> None:
    memories = [{"project": "hist", "category": "conversation", "metadata": {"turn": i},
                 "content": f"Turn {i}: we talked about item {i}.",
                 "created_at": f"2023-05-0{i + 1}T10:00:00Z"}
                for i in range(5)]
    status, answer = call(api, "POST", "/api/memory/batch", {"memories": memories})
    assert status == 201 and len(answer["ids"]) == 5 and not any(answer["deduplicated"])
    status, recent = call(api, "GET", "/api/memory/recent", project="hist", limit=2)
    assert [r["metadata"]["turn"] for r in recent["results"]] == [4, 3]
    assert recent["results"][0]["created_at"].startswith("2023-05-05")


def test_recent_filters_by_category(api: RunningApi) -> None:
    for category in ("fact", "project_rule", "fact"):
        call(api, "POST", "/api/memory", {"project": "p2", "category": category,
                                          "content": f"{category} {uuid.uuid4()}"})
    status, answer = call(api, "GET", "/api/memory/recent", project="p2", category="project_rule")
    assert status == 200 and [r["category"] for r in answer["results"]] == ["project_rule"]


def test_search_filters_by_category_and_respects_the_limit(api: RunningApi) -> None:
    for i in range(6):
        call(api, "POST", "/api/memory", {"project": "p3", "category": "fact" if i % 2 else "pattern",
                                          "content": f"Retry logic detail number {i} for the uploader."})
    status, answer = call(api, "GET", "/api/memory/search", query="uploader retry", project="p3",
                          category="pattern", limit=2)
    assert status == 200 and len(answer["results"]) == 2
    assert {r["category"] for r in answer["results"]} == {"pattern"}
    scores = [r["score"] for r in answer["results"]]
    assert scores == sorted(scores, reverse=True)


def test_a_code_change_is_stored_with_its_file(api: RunningApi) -> None:
    status, stored = call(api, "POST", "/api/memory/code-change", {
        "project": "p4", "file": "app/main.py", "summary": "Added a retry around the upload call",
        "diff": "+    for attempt in range(3):", "metadata": {"session_id": "s1"}})
    assert status == 201
    item = call(api, "GET", f"/api/memory/{stored['id']}")[1]
    assert item["category"] == "code_change" and item["files"] == ["app/main.py"]
    assert item["content"].startswith("app/main.py: Added a retry") and "attempt" in item["content"]
    assert item["metadata"] == {"session_id": "s1", "file": "app/main.py"}


def test_a_code_changes_neighbours_come_from_its_own_session_when_two_terminals_edit_at_once(
        api: RunningApi) -> None:
    # Two Claude Code terminals on one project: the PostToolUse hook posts each edit with its session.
    edits = [("s1", "kit/lantern.py", "Decided the quartz lantern ships in the camping kit"),
             ("s2", "billing/cron.py", "Renamed the billing cron to nightly-invoices"),
             ("s1", "kit/packing.py", "Moved the packing list into its own module"),
             ("s2", "billing/retry.py", "Billing retries now back off exponentially")]
    for session, file, summary in edits:
        status, _ = call(api, "POST", "/api/memory/code-change", {
            "project": "p4s", "file": file, "summary": summary, "session_id": session,
            "metadata": {"session_id": session}})
        assert status == 201

    status, answer = call(api, "GET", SEARCH, query="quartz lantern", project="p4s", mode="text")

    assert status == 200
    # The hit's session's next edit joins it; the other terminal's, written in between, does not.
    assert [r["files"] for r in answer["results"]] == [["kit/lantern.py"], ["kit/packing.py"]]


def test_text_and_vector_modes_say_which_mode_ran(api: RunningApi) -> None:
    call(api, "POST", MEM, {"project": "p5", "category": "fact", "content": "Deploys go out on Tuesdays."})
    for mode in ("text", "vector", "hybrid"):
        status, answer = call(api, "GET", SEARCH, query="when are deploys", project="p5", mode=mode)
        assert status == 200 and answer["mode"] == mode and "degraded" not in answer
        assert len(answer["results"]) == 1


OK = {"project": "p", "content": "x"}
MEM, BATCH, SEARCH = "/api/memory", "/api/memory/batch", "/api/memory/search"
MALFORMED: list[tuple[str, str, Any, bytes | None, dict[str, Any], str | None]] = [
    ("POST", MEM, None, b"", {}, None),
    ("POST", MEM, None, b"{not json", {}, None),
    ("POST", MEM, {"category": "fact", "content": "x"}, None, {}, "project"),
    ("POST", MEM, {"project": "p", "category": "fact"}, None, {}, "content"),
    ("POST", MEM, {**OK, "content": ""}, None, {}, "content"),
    ("POST", MEM, {**OK, "category": "bad category!"}, None, {}, "category"),
    ("POST", MEM, {**OK, "files": "a.py"}, None, {}, "files"),
    ("POST", MEM, {**OK, "metadata": []}, None, {}, "metadata"),
    ("POST", MEM, {**OK, "created_at": "yesterday"}, None, {}, "created_at"),
    ("POST", MEM, {**OK, "confidence": 2}, None, {}, "confidence"),
    ("POST", MEM, {**OK, "metadata": {"b": "y" * 20000}}, None, {}, "metadata"),
    ("POST", MEM, {**OK, "content": "<private>all of it</private>"}, None, {}, "content"),
    ("POST", MEM, [1, 2], None, {}, None),
    ("POST", BATCH, {"memories": []}, None, {}, "memories"),
    ("POST", BATCH, {"memories": [OK] * 501}, None, {}, "memories"),
    ("POST", BATCH, {"memories": [OK, {"project": "p"}]}, None, {}, "memories.1.content"),
    ("POST", BATCH, {"memories": [OK, {**OK, "content": "<private>x</private>"}]}, None, {},
     "memories.1.content"),
    ("POST", "/api/memory/code-change", {"project": "p", "summary": "s"}, None, {}, "file"),
    ("POST", "/api/memory/index", {"project": "p", "path": "a.md"}, None, {}, "text"),
    ("GET", SEARCH, None, None, {"project": "p"}, "query"),
    ("GET", SEARCH, None, None, {"query": "q"}, "project"),
    ("GET", SEARCH, None, None, {"query": "", "project": "p"}, "query"),
    ("GET", SEARCH, None, None, {"query": "q", "project": "p", "limit": "0"}, "limit"),
    ("GET", SEARCH, None, None, {"query": "q", "project": "p", "limit": "ten"}, "limit"),
    ("GET", SEARCH, None, None, {"query": "q", "project": "p", "limit": "101"}, "limit"),
    ("GET", SEARCH, None, None, {"query": "q", "project": "p", "mode": "fuzzy"}, "mode"),
    ("GET", SEARCH, None, None, {"query": "q", "project": "p", "include_global": "maybe"}, "include_global"),
    ("GET", SEARCH, None, None, {"query": "q", "project": "p", "project_limit": "-1"}, "project_limit"),
    ("GET", SEARCH, None, None, {"query": "q", "project": "p", "global_limit": "101"}, "global_limit"),
    ("GET", SEARCH, None, None, {"query": "q", "project": "p", "project_limit": "0", "global_limit": "0"},
     "project_limit"),
    ("GET", SEARCH, None, None, {"query": "q", "project": "p", "project_limit": "3", "limit": "5"}, "limit"),
    ("GET", SEARCH, None, None, {"query": "q", "project": "p", "global_limit": "2",
                                 "include_global": "false"}, "include_global"),
    ("GET", "/api/memory/recent", None, None, {"limit": "-1"}, "limit"),
    ("GET", "/api/memory/recent", None, None, {"category": "no spaces allowed"}, "category"),
    ("GET", "/api/memory/not-a-uuid", None, None, {}, "id"),
    ("DELETE", "/api/memory/123", None, None, {}, "id"),
]


def test_every_malformed_request_is_a_400_naming_the_field(api: RunningApi) -> None:
    wrong = []
    for method, path, body, raw, query, field in MALFORMED:
        status, answer = call(api, method, path, body, raw, **query)
        named = field is None or (isinstance(answer, dict) and answer.get("field") == field)
        if status != 400 or answer.get("error") != "invalid_input" or not named:
            wrong.append((method, path, body if raw is None else raw, query, status, answer))
    assert wrong == []


def test_memory_routes_need_the_api_key(api: RunningApi) -> None:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(api.url + "/api/memory/stats")
    with pytest.raises(urllib.error.HTTPError) as error:
        urllib.request.urlopen(request, timeout=10)
    assert error.value.code == 401


def test_a_batch_holding_the_same_text_twice_stores_it_once_and_reinforces_it(api: RunningApi) -> None:
    same = {"project": "twice", "category": "fact", "content": "The nightly build runs at 02:00 UTC."}
    other = {"project": "twice", "category": "fact", "content": "Releases are cut on Thursdays."}
    status, answer = call(api, "POST", "/api/memory/batch", {"memories": [same, other, same, same]})
    assert status == 201, answer
    assert answer["ids"][0] == answer["ids"][2] == answer["ids"][3] != answer["ids"][1]
    assert answer["deduplicated"] == [False, False, True, True]
    again = call(api, "POST", "/api/memory/batch", {"memories": [other, other]})
    assert again[0] == 201 and again[1]["ids"] == [answer["ids"][1]] * 2 and all(again[1]["deduplicated"])
