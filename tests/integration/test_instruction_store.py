"""The one instruction store over real HTTP and Postgres: every door writes through one reconciler,
`/api/rules` lists the live rules (and, `as_of`, the rules live at a past time), imported rules stay
tied to their file, and MEMORY.md shows only live rules."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio

from tests.conftest import RunningApi
from tests.integration.mcp.mcp_clients import http_client, text
from tests.integration.memory.conftest import call
from tests.integration.test_learning_loop_api import session_start

PROJECT = "github.com/acme/web"


def rules(api: RunningApi, **query: Any) -> list[dict[str, Any]]:
    status, answer = call(api, "GET", "/api/rules", project=PROJECT, **query)
    assert status == 200, answer
    return list(answer["rules"])


def texts(api: RunningApi, **query: Any) -> list[str]:
    return [r["text"] for r in rules(api, **query)]


def teach(api: RunningApi, rule: str) -> dict[str, Any]:
    status, answer = call(api, "POST", "/api/project/rules", {"project": PROJECT, "rule": rule})
    assert status in (200, 201), answer
    return dict(answer)


def import_file(api: RunningApi, path: str, lines: list[tuple[str, str]]) -> dict[str, Any]:
    items = [{"category": category, "content": content, "path": path, "tool": "claude", "line": n}
             for n, (category, content) in enumerate(lines, 1)]
    status, answer = call(api, "POST", "/api/memory/import-rules", {"project": PROJECT, "items": items})
    assert status == 200, answer
    return dict(answer)


def moment() -> str:
    time.sleep(0.05)
    now = datetime.now(UTC).isoformat()
    time.sleep(0.05)
    return now


def test_a_cursorrules_paragraph_is_listed_by_the_rules_api_and_mcp_rules_list(api: RunningApi) -> None:
    items = [{"category": "guideline", "content": "Always write type hints on public functions.",
              "path": ".cursorrules", "tool": "cursor", "line": 3}]
    assert call(api, "POST", "/api/memory/import-rules", {"project": PROJECT, "items": items})[0] == 200

    (rule,) = rules(api)
    assert rule["text"] == "Always write type hints on public functions."
    assert (rule["scope"], rule["source"], rule["file"]) == ("project", "import",
                                                            {"path": ".cursorrules", "line": 3})
    assert {"id", "valid_from", "valid_until", "times_reinforced", "superseded_by"} <= rule.keys()

    async def listed_by_mcp() -> str:
        async with http_client(api, PROJECT) as client:
            return text(await client.call_tool("rules_list", {}))
    assert "Always write type hints on public functions." in anyio.run(listed_by_mcp)


def test_as_of_answers_which_version_of_a_rule_superseded_twice_was_live(api: RunningApi) -> None:
    before = moment()
    first = teach(api, "Run the tests with -n 4")
    after_first = moment()
    second = teach(api, "Run the tests with -n 8")
    after_second = moment()
    third = teach(api, "Run the tests with -n 16")
    after_third = moment()

    assert (second["outcome"], second["replaces"]) == ("superseded", first["id"])
    assert (third["outcome"], third["replaces"]) == ("superseded", second["id"])
    assert texts(api, as_of=before) == []
    assert texts(api, as_of=after_first) == ["Run the tests with -n 4"]
    assert texts(api, as_of=after_second) == ["Run the tests with -n 8"]
    assert texts(api, as_of=after_third) == texts(api) == ["Run the tests with -n 16"]
    (then,) = rules(api, as_of=after_first)
    (middle,) = rules(api, as_of=after_second)
    assert then["superseded_by"] == second["id"] and then["valid_until"] == middle["valid_from"]
    assert middle["superseded_by"] == third["id"] and middle["valid_until"] is not None


def test_an_invalid_as_of_is_a_400(api: RunningApi) -> None:
    status, answer = call(api, "GET", "/api/rules", project=PROJECT, as_of="last tuesday")

    assert status == 400, answer


def test_importing_an_edited_file_again_retires_the_rules_it_no_longer_holds(api: RunningApi) -> None:
    first = import_file(api, "CLAUDE.md", [("project_rule", "Run make lint before every commit"),
                                           ("project_rule", "Keep migrations additive and numbered")])
    assert first["added"] == 2

    again = import_file(api, "CLAUDE.md", [("project_rule", "Run make lint before every commit"),
                                           ("project_rule", "Write a changelog entry for each release")])

    assert sorted(texts(api)) == ["Run make lint before every commit",
                                  "Write a changelog entry for each release"]
    assert [r["content"] for r in again["retired"]] == ["Keep migrations additive and numbered"]
    assert [i["status"] for i in again["items"]] == ["exists", "new"]
    lint = next(r for r in rules(api) if r["text"].startswith("Run make lint"))
    assert lint["times_reinforced"] == 1 and lint["file"] == {"path": "CLAUDE.md", "line": 1}


def test_a_file_rule_contradicting_a_learned_rule_is_flagged_not_live_beside_it(api: RunningApi) -> None:
    learned = teach(api, "Always use yarn for package installs")

    imported = import_file(api, "AGENTS.md", [("project_rule", "Always use npm for package installs")])

    (flagged,) = imported["flagged"]
    assert flagged["replaces"] == learned["id"]
    assert texts(api) == ["Always use yarn for package installs"]


def test_a_rule_remembered_twice_through_the_memory_api_is_one_reinforced_rule(api: RunningApi) -> None:
    body = {"project": PROJECT, "category": "project_rule", "content": "Squash commits before merging."}
    first = call(api, "POST", "/api/memory", body)
    again = call(api, "POST", "/api/memory", body)

    assert first[0] == again[0] == 201 and first[1]["id"] == again[1]["id"]
    (rule,) = rules(api)
    assert (rule["text"], rule["times_reinforced"]) == ("Squash commits before merging.", 2)


def test_a_remembered_rule_contradicting_a_taught_one_supersedes_it_with_history(api: RunningApi) -> None:
    old = teach(api, "Always squash commits before merging")
    body = {"project": PROJECT, "category": "project_rule", "content": "Never squash commits before merging"}

    status, stored = call(api, "POST", "/api/memory", body)

    assert status == 201
    assert texts(api) == ["Never squash commits before merging"]
    (gone,) = [r for r in rules(api, as_of=datetime.fromisoformat(old["last_reinforced"]).isoformat())]
    assert gone["id"] == old["id"] and gone["superseded_by"] == stored["id"]


def test_memory_md_shows_only_the_live_rules(api: RunningApi, tmp_path: Path) -> None:
    teach(api, "Run the tests with -n 4")
    teach(api, "Run the tests with -n 8")
    import_file(api, "CLAUDE.md", [("project_rule", "Keep migrations additive and numbered")])
    import_file(api, "CLAUDE.md", [("project_rule", "Write a changelog entry for each release")])

    _, memory_md = session_start(api, tmp_path)

    text_md = memory_md.read_text()
    assert "- Run the tests with -n 8" in text_md and "Write a changelog entry" in text_md
    assert "-n 4" not in text_md and "migrations additive" not in text_md


def test_a_revived_rule_was_not_live_in_the_gap_before_it_was_stated_again(api: RunningApi) -> None:
    first = teach(api, "Run the tests with -n 4")
    while_first = moment()
    teach(api, "Run the tests with -n 8")
    in_the_gap = moment()
    again = teach(api, "Run the tests with -n 4")
    after = moment()

    assert again["id"] == first["id"]
    assert texts(api, as_of=while_first) == ["Run the tests with -n 4"]
    assert texts(api, as_of=in_the_gap) == ["Run the tests with -n 8"]
    assert texts(api, as_of=after) == texts(api) == ["Run the tests with -n 4"]
    (then,) = rules(api, as_of=while_first)
    (now,) = rules(api)
    assert then["valid_until"] is not None and now["valid_until"] is None
    assert then["valid_from"] < then["valid_until"] <= now["valid_from"]
