"""Reconciling new instructions with the live ones: the candidates to compare, the verdicts
applied (SUPERSEDES supersedes the old one; CONTRADICTION is listed for review, both kept) and
the heuristic verdicts used without a model (`domain/reconcile_rules.py`). Only instructions
from trusted text take part."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chalicelib.graph.domain.graph_model import Contradiction, Node
from chalicelib.graph.domain.reconcile_rules import CONTRADICTION, NO_CONFLICT, SUPERSEDES, judge
from chalicelib.graph.services.graph_writer import embed_all
from chalicelib.graph.services.ports import GraphUnits, SupersedeRefused
from chalicelib.memory.services.ports import Embedder

CANDIDATES = 6
MIN_SCORE = 0.35
PER_NODE_EDGES = 20


class Reconciler:
    def __init__(self, units: GraphUnits, embedder: Embedder | None) -> None:
        self._units = units
        self._embedder = embedder
        self.contradictions: list[Contradiction] = []

    def new_instructions(self, stored: Sequence[str]) -> list[Node]:
        with self._units() as uow:
            nodes = [uow.graph.get_node(node_id) for node_id in stored]
        # Instructions from untrusted text (tool output, the web, other agents) never replace or
        # contest the user's: they are not reconciled at all.
        return [n for n in nodes if n is not None and n.node_type == "instruction" and n.live and n.trusted]

    def candidates(self, project: str, node: Node, later: Sequence[str] = ()) -> list[Node]:
        """Live instructions near `node` (by vector), best first, `node` itself left out, and the
        ones of the same batch stored after it (each pair is judged once, newer against older)."""
        vector = embed_all(self._embedder, [node.content])[0]
        if vector is None:
            return []
        with self._units() as uow:
            similar = uow.graph.similar(project, vector, ("instruction",), CANDIDATES + 1 + len(later))
        skip = {node.id, *later}
        return [c for c in similar if c.id not in skip and c.trusted and c.score >= MIN_SCORE][:CANDIDATES]

    def apply(self, project: str, new: Node, old: Node, verdict: str, reason: str) -> None:
        with self._units() as uow:
            if verdict == SUPERSEDES:
                try:
                    uow.graph.supersede(old.id, new.id)
                except SupersedeRefused:
                    return
            elif verdict == CONTRADICTION:
                ident = uow.graph.add_contradiction(project, new.id, old.id, reason)
                found = uow.graph.get_contradiction(ident) if ident else None
                if found is not None:
                    self.contradictions.append(found)
            uow.commit()

    def heuristic(self, project: str, stored: Sequence[str]) -> list[dict[str, Any]]:
        """Judge each new instruction against its candidates by wording; apply the verdicts."""
        report: list[dict[str, Any]] = []
        nodes = self.new_instructions(stored)
        for at, node in enumerate(nodes):
            later = [n.id for n in nodes[at + 1 :]]
            report += self.judge_by_wording(project, node, self.candidates(project, node, later))
        return report

    def judge_by_wording(self, project: str, node: Node, candidates: Sequence[Node]) -> list[dict[str, Any]]:
        report: list[dict[str, Any]] = []
        if not candidates:
            return report
        with self._units() as uow:
            linked = uow.graph.relations([node.id, *(c.id for c in candidates)], PER_NODE_EDGES)
        entities = {
            anchor: {r.other.content for r in rels if r.other.node_type == "entity"}
            for anchor, rels in linked.items()
        }
        for old in candidates:
            shared = entities.get(node.id, set()) & entities.get(old.id, set())
            verdict = judge(node.content, old.content, shared)
            report.append(
                {
                    "new": node.id,
                    "old_id": old.id,
                    "verdict": verdict.verdict,
                    "reason": verdict.reason,
                    "by": "heuristic",
                }
            )
            if verdict.verdict != NO_CONFLICT:
                self.apply(project, node, old, verdict.verdict, verdict.reason)
        return report
