"""The heuristic extractor, dates and context assembly of the graph memory (pure domain code)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from chalicelib.graph.domain.context_assembly import assemble, render
from chalicelib.graph.domain.dates import date_in
from chalicelib.graph.domain.graph_model import GraphInputError, Node, NodeDraft, check_edge
from chalicelib.graph.domain.heuristic_extractor import extract
from chalicelib.graph.domain.names import candidate_keys, normalise_name

NOW = datetime(2026, 1, 10, 9, 30, tzinfo=UTC)  # a Saturday


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("The migration is planned for 3 March.", datetime(2026, 3, 3, tzinfo=UTC)),
        ("Release on March 3rd, 2027 at noon", datetime(2027, 3, 3, tzinfo=UTC)),
        ("Cutover on 2026-02-01", datetime(2026, 2, 1, tzinfo=UTC)),
        ("The audit was on 5 January", datetime(2027, 1, 5, tzinfo=UTC)),
        ("We ship next Friday", datetime(2026, 1, 16, tzinfo=UTC)),
        ("Demo in 2 weeks", datetime(2026, 1, 24, tzinfo=UTC)),
        ("No date here", None),
    ],
)
def test_dates_are_read_relative_to_now(sentence: str, expected: datetime | None) -> None:
    assert date_in(sentence, NOW) == expected


@pytest.mark.parametrize(
    ("text", "pattern", "scope"),
    [
        ("From now on our team never deploys on Fridays.", "ban", 0.5),
        ("Always write tests before merging anything.", "process", 1.0),
        ("Bill the Acme account quarterly unless Dana objects.", "exception", 0.2),
        ("Keep every response under 200 ms at most.", "threshold", 1.0),
    ],
)
def test_instructions_get_their_pattern_and_a_scope(text: str, pattern: str, scope: float) -> None:
    (item,) = extract(text, NOW).items
    assert (item.node_type, item.pattern, item.scope) == ("instruction", pattern, scope)


def test_questions_store_nothing_and_statements_link_their_entities() -> None:
    assert extract("Who owns the billing service?", NOW).asking
    found = extract("Dana owns the billing service. We replaced Celery with SQS last week.", NOW)
    assert [(i.node_type, i.subtype) for i in found.items] == [("fact", None), ("event", "decision")]
    assert next((link.source, link.target, link.edge_type) for link in found.links) == (
        "Dana",
        "billing service",
        "owns",
    )


def test_names_are_normalised_and_found_in_any_run_of_words() -> None:
    assert normalise_name("  The Billing   Service ") == "billing service"
    assert {"billing service", "dana"} <= set(candidate_keys("Can Dana deploy the billing service?"))


def test_a_self_edge_and_an_unknown_type_are_refused() -> None:
    with pytest.raises(GraphInputError):
        check_edge("a", "a", "about")
    with pytest.raises(GraphInputError):
        NodeDraft("p", "rumour", "x").checked()
    assert NodeDraft("p", "plan", "ship it").checked().scope == 0.3


def node(
    ident: str, kind: str, score: float, when: datetime | None = None, superseded: str | None = None
) -> Node:
    return Node(
        ident,
        "p",
        kind,
        None,
        f"{kind} {ident}",
        1.0,
        1.0,
        "user",
        None,
        when,
        None,
        superseded,
        {},
        NOW,
        score,
    )


def test_assembly_moves_passed_plans_to_events_and_hides_superseded_nodes() -> None:
    found = [
        node("1", "plan", 0.9, NOW - timedelta(days=1)),
        node("2", "plan", 0.5, NOW + timedelta(days=3)),
        node("3", "fact", 0.8, superseded="9"),
        node("4", "fact", 0.7),
    ]
    sections = assemble([], {}, found, NOW)
    assert (
        [n.id for n in sections.events],
        [n.id for n in sections.plans],
        [n.id for n in sections.facts],
    ) == (["1"], ["2"], ["4"])
    assert "fact 3" not in render(sections)
