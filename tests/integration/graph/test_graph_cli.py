"""`itachi graph ...` and `itachi recall` as a user runs them, against the running API."""

from __future__ import annotations

import json

from tests.conftest import RunningApi
from tests.integration.memory.test_memory_cli import itachi
from tests.integration.test_learning_loop_api import call

PROJECT = "billing"


def test_the_graph_verbs_list_show_recall_and_trace(api: RunningApi) -> None:
    result = api.container.graph_store.run({"project": PROJECT, "text": "Dana owns the billing service."})

    listed = itachi(api, "graph", "entities", "--project", PROJECT)
    assert listed.returncode == 0, listed.stderr
    dana = next(line.split()[0] for line in listed.stdout.splitlines() if line.endswith("Dana (person)"))
    shown = itachi(api, "graph", "show", dana)
    assert shown.stdout.splitlines() == [
        "Dana [entity]",
        "  owns -> billing service",
        "  about <- Dana owns the billing service.",
    ]
    recalled = itachi(api, "recall", "who", "owns", "the", "billing", "service?", "--project", PROJECT)
    assert "Dana owns the billing service." in recalled.stdout
    traced = itachi(api, "graph", "trace", result["trace_id"], "--json")
    assert json.loads(traced.stdout)["trace"]["pipeline"] == "heuristic"
    assert "No open contradictions." in itachi(api, "graph", "contradictions", "--project", PROJECT).stdout


def test_resolving_a_contradiction_from_the_cli(api: RunningApi) -> None:
    container = api.container
    container.graph_store.run(
        {"project": PROJECT, "text": "Always deploy on Fridays. Never deploy on Fridays."}
    )
    (found,) = call(api, "GET", "/api/graph/contradictions", project=PROJECT)[1]["contradictions"]
    ident = found["id"]  # the two rules of one text, reconciled by their wording
    listed = itachi(api, "graph", "contradictions", "--project", PROJECT)
    assert str(ident) in listed.stdout and "Never deploy on Fridays." in listed.stdout
    done = itachi(api, "graph", "resolve", str(ident), "keep_both")
    assert (done.returncode, done.stdout.strip()) == (0, "Resolved: keep_both")
    again = itachi(api, "graph", "resolve", str(ident), "keep_new")
    assert again.returncode == 1 and "already resolved" in again.stdout
