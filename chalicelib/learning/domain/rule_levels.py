"""A project's rules and its namespaces' as one list: which applies when both speak of one thing.

A project rule overrides a namespace rule when the two are about the same thing (near-identical
by embedding, as the reconciler judges sameness): the project's own wording applies, the
namespace's rule is left out of the project's list, and the project rule names what it
overrides (`overrides`: the rule's id, namespace and wording), so the injected text can say so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Rule = dict[str, Any]


@dataclass(frozen=True)
class Override:
    """The namespace rule `rule_id` (of `namespace`, saying `text`) is overridden by the project rule `by`."""

    rule_id: str
    by: str
    namespace: str
    text: str


def layered(rules: Sequence[Rule], overrides: Sequence[Override], limit: int) -> list[Rule]:
    """`rules` (one list, strongest first) without the namespace rules the project overrides, each
    overriding rule naming what it overrides and each namespace rule its namespace; at most `limit`."""
    left_out = {o.rule_id for o in overrides}
    named: dict[str, list[Rule]] = {}
    for o in overrides:
        named.setdefault(o.by, []).append({"id": o.rule_id, "namespace": o.namespace, "rule": o.text})
    kept: list[Rule] = []
    for rule in rules:
        if rule["id"] in left_out:
            continue
        scope = str(rule.get("scope") or "")
        if scope.startswith("namespace:"):
            rule = {**rule, "namespace": scope.removeprefix("namespace:")}
        if rule["id"] in named:
            rule = {**rule, "overrides": named[rule["id"]]}
        kept.append(rule)
    return kept[:limit]
