"""Dates a memory can carry: every write path keeps them within 1970-2200 with the same 400, and
search answers even over rows whose dates lie far outside that range (written into the table
directly, as a store filled before the range was kept can hold)."""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

import pytest

from tests.conftest import RunningApi
from tests.integration.memory.conftest import call

ANCIENT = {"created_at": "1241-06-22T19:09:30Z", "last_reinforced_at": "0187-10-02T01:56:57Z"}
MODERN = {"created_at": "2024-01-01T00:00:00Z", "last_reinforced_at": "2024-01-01T00:00:00Z"}
QUERY = "deploys tuesdays"


def _record(content: str, **fields: Any) -> dict[str, Any]:
    return {"id": str(uuid.uuid4()), "project": "_global", "category": "fact", "content": content,
            "content_hash": hashlib.sha256(content.encode()).hexdigest(), **MODERN, **fields}


def _stored(api: RunningApi, content: str, project: str = "_global") -> str:
    status, body = call(api, "POST", "/api/memory", {"project": project, "content": content})
    assert status == 201, body
    return str(body["id"])


def _redate(api: RunningApi, memory_id: str, created: str, reinforced: str) -> None:
    """Write a memory's dates straight into the table, past every check of the API."""
    with api.container.db.connection() as conn:
        conn.execute("UPDATE memories SET created_at = %s::timestamptz, last_reinforced_at = %s::timestamptz"
                     " WHERE id = %s", (created, reinforced, memory_id))


def test_an_imported_record_dated_in_1241_is_refused_and_search_keeps_answering(api: RunningApi) -> None:
    _stored(api, "Deploys go out on Tuesdays after the smoke tests.")

    status, body = call(api, "POST", "/api/memory/import",
                        {"records": [_record("Deploys are frozen in December.", **ANCIENT)], "embed": False})

    assert status == 400
    assert body["field"] == "records.0.created_at"
    assert "between 1970 and 2200" in body["message"]
    found = call(api, "GET", "/api/memory/search", query=QUERY, project="app")
    assert found[0] == 200 and found[1]["results"]


ARCHIVE = {"content": "The original text.", "category": "fact", "archived_at": "2999-01-01T00:00:00Z"}


@pytest.mark.parametrize(("path", "body", "field"), [
    ("/api/memory", {"project": "app", "content": "x", "created_at": "1241-06-22T19:09:30Z"}, "created_at"),
    ("/api/memory/batch",
     {"memories": [{"project": "app", "content": "x", "created_at": "2201-01-01T00:00:00Z"}]},
     "memories.0.created_at"),
    ("/api/memory/import", {"records": [_record("x", last_reinforced_at="0187-10-02T01:56:57Z")]},
     "records.0.last_reinforced_at"),
    ("/api/memory/import", {"records": [_record("x", archive=ARCHIVE)]}, "records.0.archive.archived_at"),
    ("/api/agents/cron", {"schedule": "0 9 * * *", "prompt": "p", "until": "9999-01-01T00:00:00Z"}, "until"),
])
def test_every_write_path_refuses_a_date_outside_1970_to_2200_with_the_same_message(
        api: RunningApi, path: str, body: dict[str, Any], field: str) -> None:
    status, answer = call(api, "POST", path, body)
    assert (status, answer["field"]) == (400, field)
    assert answer["message"] == f"{field}: Value error, must be between 1970 and 2200"


def test_search_answers_over_rows_whose_dates_were_written_outside_the_range(api: RunningApi) -> None:
    recent = _stored(api, "Deploys go out on Tuesdays after the smoke tests.", "app")
    odd = {
        _stored(api, "Deploys on Tuesdays need a second reviewer."): ANCIENT.values(),
        _stored(api, "Tuesdays deploys skip the canary stage."): ("-infinity", "infinity"),
        _stored(api, "Deploys on Tuesdays were announced by runner."): ("0187-10-02 BC", "0044-03-15 BC"),
    }
    for memory_id, (created, reinforced) in odd.items():
        _redate(api, memory_id, created, reinforced)

    for mode in ("hybrid", "text", "vector"):
        status, body = call(api, "GET", "/api/memory/search", query=QUERY, project="app", mode=mode, limit=10)
        assert status == 200, (mode, body)
        assert {r["id"] for r in body["results"]} == {recent, *odd}, mode
        assert all(0 <= r["score"] <= 1 for r in body["results"]), mode
        assert all("1970-01-01" <= r["created_at"][:10] <= "2200-12-31" for r in body["results"]), mode
    explained = call(api, "GET", "/api/memory/search", query=QUERY, project="app", explain="true")
    assert explained[0] == 200, explained[1]


def test_a_snapshot_holding_a_row_dated_outside_the_range_is_not_loaded(api: RunningApi) -> None:
    kept = _stored(api, "Deploys go out on Tuesdays after the smoke tests.", "app")
    _redate(api, _stored(api, "Deploys once went out on Fridays.", "app"), *ANCIENT.values())
    assert call(api, "POST", "/api/memory/snapshots", {"project": "app", "name": "before"})[0] == 201
    with api.container.db.connection() as conn:
        conn.execute("DELETE FROM memories WHERE project = 'app' AND id <> %s", (kept,))

    status, body = call(api, "POST", "/api/memory/snapshots/load",
                        {"project": "app", "name": "before", "yes": True})

    assert (status, body["field"]) == (400, "name")
    assert "not loaded" in body["message"] and "between 1970 and 2200" in body["message"]
    listed = call(api, "GET", "/api/memory", project="app")[1]["results"]
    assert [m["id"] for m in listed] == [kept]
    snapshots = call(api, "GET", "/api/memory/snapshots", project="app")[1]["snapshots"]
    assert [s["name"] for s in snapshots] == ["before"]


def test_a_memory_and_a_query_naming_a_time_thousands_of_years_ago_are_stored_and_answered(
        api: RunningApi) -> None:
    text = "The pyramids at Giza were finished about 4500 years ago, the guide said."
    status, body = call(api, "POST", "/api/memory/batch", {"memories": [
        {"project": "lme-ancient", "category": "conversation", "content": text}]})
    assert status == 201, body
    status, found = call(api, "GET", "/api/memory/search", project="lme-ancient",
                         query="built 4500 years ago")
    assert status == 200, found
    assert [r["id"] for r in found["results"]] == body["ids"]
