"""The prompt door of the one instruction store: a rule stated in a prompt (the prompt hook's search
with `graph=true`, the heuristic graph pipeline, no key) is a rule of `/api/rules`, reconciled with
the other doors', and the graph's context reads the store's live rules."""

from __future__ import annotations

from typing import Any

from chalicelib.kernel.queue_table import QUEUES
from infra.local.sqs_dispatcher import deliver_batch
from tests.conftest import RunningApi
from tests.integration.memory.conftest import call

INGEST = next(spec for spec in QUEUES if spec.key == "ingest")
PROJECT = "github.com/acme/web"


def prompt(api: RunningApi, text: str) -> dict[str, Any]:
    status, answer = call(api, "GET", "/api/memory/search", project=PROJECT, project_limit=3, global_limit=2,
                          mode="hybrid", graph="true", query=text)
    assert status == 200, answer
    assert deliver_batch(api.container.queues, INGEST, wait_s=5) == 1
    return dict(answer)


def rules(api: RunningApi, **query: Any) -> list[dict[str, Any]]:
    status, answer = call(api, "GET", "/api/rules", project=PROJECT, **query)
    assert status == 200, answer
    return list(answer["rules"])


def graph_instructions(api: RunningApi, query: str) -> list[str]:
    status, context = call(api, "GET", "/api/graph/context", project=PROJECT, query=query)
    assert status == 200, context
    return [i["content"] for i in context["instructions"]]


def test_a_rule_stated_in_a_prompt_is_listed_by_the_rules_api_pointing_to_its_graph_node(
        api: RunningApi) -> None:
    prompt(api, "From now on always use pnpm for package installs in this repo.")

    (rule,) = rules(api)
    assert "pnpm" in rule["text"] and rule["source"] == "prompt"
    status, node = call(api, "GET", f"/api/graph/entities/{rule['graph_node']}", project=PROJECT)
    assert status == 200 and "pnpm" in str(node), node


def test_a_learned_rule_supersedes_a_prompts_rule_and_the_graph_context_follows(api: RunningApi) -> None:
    prompt(api, "From now on always use pnpm for package installs in this repo.")
    (stated,) = rules(api)

    status, learned = call(api, "POST", "/api/project/rules",
                           {"project": PROJECT, "rule": "Never use pnpm for package installs, use yarn"})

    assert status in (200, 201), learned
    assert learned["outcome"] == "superseded" and learned["replaces"] == stated["id"]
    assert [r["text"] for r in rules(api)] == ["Never use pnpm for package installs, use yarn"]
    shown = graph_instructions(api, "Which tool do I use for package installs?")
    assert "Never use pnpm for package installs, use yarn" in shown
    assert not [s for s in shown if s.lower().startswith(("from now on always", "always use pnpm"))]


def test_a_prompt_restating_a_learned_rule_reinforces_it(api: RunningApi) -> None:
    taught = {"project": PROJECT, "rule": "Always run the linter before committing"}
    assert call(api, "POST", "/api/project/rules", taught)[0] in (200, 201)

    prompt(api, "Remember: always run the linter before committing.")

    (rule,) = rules(api)
    assert rule["times_reinforced"] == 2


def test_the_prompt_hooks_answer_carries_a_rule_once_though_both_the_memories_and_the_graph_know_it(
        api: RunningApi) -> None:
    taught = {"project": PROJECT, "rule": "Always run the linter before committing"}
    assert call(api, "POST", "/api/project/rules", taught)[0] in (200, 201)
    prompt(api, "Remember: always run the linter before committing.")  # reinforces it, stated in a prompt

    answer = prompt(api, "Should I run the linter before committing this change?")

    graph = (answer.get("graph") or {}).get("text", "")
    lines = [r["content"] for r in answer["results"]] + graph.splitlines()
    assert len([line for line in lines if "run the linter before committing" in line.lower()]) == 1, lines
