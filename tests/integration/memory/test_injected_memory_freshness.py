"""What reaches a prompt is live and dated: a superseded memory is never in the prompt hook's
block nor the briefing's recent memories, a graph node superseded or no longer valid is never in
the graph's block, and each injected line carries its age ("possibly stale" past the horizon
until a restatement confirms it). Real API, real Postgres, the hook's own requests and renderer."""

from __future__ import annotations

from typing import Any

from chalicelib.contracts.prompt_context import GLOBAL_LIMIT, PROJECT_LIMIT, search_context
from chalicelib.kernel.queue_table import QUEUES
from infra.local.sqs_dispatcher import deliver_batch
from tests.conftest import RunningApi
from tests.integration.test_learning_loop_api import call

INGEST = next(spec for spec in QUEUES if spec.key == "ingest")
PROMPT = "Which Postgres version does the staging database run these days?"


def _hook_answer(api: RunningApi, project: str, prompt: str = PROMPT) -> dict[str, Any]:
    status, body = call(api, "GET", "/api/memory/search", query=prompt, project=project,
                        project_limit=PROJECT_LIMIT, global_limit=GLOBAL_LIMIT, mode="hybrid", graph="true")
    assert status == 200, body
    return dict(body)


def _remember(api: RunningApi, project: str, content: str) -> str:
    body = {"project": project, "category": "fact", "content": content}
    status, body = call(api, "POST", "/api/memory", body)
    assert status in (200, 201), body
    return str(body["id"])


def test_a_superseded_memory_reaches_neither_the_prompt_nor_the_briefing(api: RunningApi) -> None:
    old = _remember(api, "fresh", "The staging database runs Postgres 15.")
    new = _remember(api, "fresh", "The staging database runs Postgres 16 since the upgrade.")
    api.container.memory.update_scores(old, superseded_by=new)

    block = search_context(_hook_answer(api, "fresh"), "fresh")
    assert "Postgres 16" in block and "Postgres 15." not in block
    recent = call(api, "GET", "/api/memory/recent", project="fresh", limit=10)[1]
    assert [r["id"] for r in recent["results"]] == [new]


def test_a_decision_no_longer_valid_or_archived_is_left_out_of_the_briefing(api: RunningApi) -> None:
    ids = {}
    for name, text in {"retired": "We decided to deploy from the release branch.",
                       "archived": "We decided to keep a changelog per package.",
                       "live": "We decided to deploy from main with a tag."}.items():
        body = {"project": "brief", "category": "decision", "content": text}
        status, answer = call(api, "POST", "/api/memory", body)
        assert status in (200, 201), answer
        ids[name] = answer["id"]
    with api.container.db.connection() as conn:
        conn.execute("UPDATE memories SET valid_until = now() - interval '1 hour' WHERE id = %s",
                     (ids["retired"],))
        conn.execute("UPDATE memories SET phase = 3 WHERE id = %s", (ids["archived"],))

    briefing = call(api, "GET", "/api/session/briefing", project="brief")[1]
    assert briefing["recent_decisions"] == ["We decided to deploy from main with a tag."]


def test_an_old_unconfirmed_memory_reads_possibly_stale_until_it_is_restated(api: RunningApi) -> None:
    said = "The staging database runs Postgres 16 on a db.t4g.large."
    memory_id = _remember(api, "dated", said)
    with api.container.db.connection() as conn:
        conn.execute("UPDATE memories SET created_at = now() - interval '250 days',"
                     " last_reinforced_at = now() - interval '250 days' WHERE id = %s", (memory_id,))

    line = next(x for x in search_context(_hook_answer(api, "dated"), "dated").splitlines() if "t4g" in x)
    assert line.endswith("(8 months ago, possibly stale)")
    _remember(api, "dated", said)  # restated: reinforced now
    line = next(x for x in search_context(_hook_answer(api, "dated"), "dated").splitlines() if "t4g" in x)
    assert line.endswith("(8 months ago)")


def test_a_graph_node_superseded_or_no_longer_valid_never_reaches_the_prompt(api: RunningApi) -> None:
    for text in ("Deploys of the billing service happen on Fridays.",
                 "The billing service deploy checklist lives in the wiki."):
        body = {"project": "valid", "text": text, "source": "user"}
        status, body = call(api, "POST", "/api/graph/ingest", body)
        assert status == 202, body
        assert deliver_batch(api.container.queues, INGEST, wait_s=5) == 1
    prompt = "When do deploys of the billing service happen, and where is the deploy checklist?"
    block = str(_hook_answer(api, "valid", prompt).get("graph") or {})
    assert "Fridays" in block and "checklist" in block
    with api.container.db.connection() as conn:
        conn.execute("UPDATE graph_nodes SET valid_until = now() - interval '1 day'"
                     " WHERE project = 'valid' AND content LIKE '%%checklist%%'")
        friday = conn.execute("SELECT id FROM graph_nodes WHERE project = 'valid' AND node_type = 'fact'"
                              " AND content LIKE '%%Fridays%%'").fetchone()
    assert friday is not None
    status, body = call(api, "POST", "/api/graph/supersede", {
        "project": "valid", "old_id": str(friday["id"]),
        "new_content": "Deploys of the billing service happen on Thursdays."})
    assert status == 201, body
    block = str(_hook_answer(api, "valid", prompt).get("graph") or {})
    assert "happen on Thursdays" in block and "happen on Fridays" not in block
    assert "checklist lives" not in block
