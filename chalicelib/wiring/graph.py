"""Graph memory: entities, facts, instructions with scope, plans, edges (docs/graph.md)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from chalicelib.learning.domain.instruction import GLOBAL_PROJECT
from chalicelib.wiring.core import CoreWiring

if TYPE_CHECKING:
    from chalicelib.graph.domain.graph_model import Node
    from chalicelib.graph.services.graph_admin import GraphAdmin
    from chalicelib.graph.services.graph_retrieve import GraphRetrieve
    from chalicelib.graph.services.graph_store import GraphStore
    from chalicelib.graph.services.ports import GraphUnits


class GraphWiring(CoreWiring):
    # Graph memory: entities, facts, instructions with scope, plans, edges (docs/graph.md).
    @cached_property
    def graph_units(self) -> GraphUnits:
        from chalicelib.graph.adapters.graph_repository import graph_units

        return graph_units(self.db)

    @cached_property
    def graph_store(self) -> GraphStore:
        from chalicelib.graph.services.graph_store import GraphStore

        return GraphStore(self.graph_units, self.embedder, self.llm, self.llm,  # type: ignore[arg-type]
                          enqueue=lambda body, delay_s: self.queues.send("ingest", body, delay_s=delay_s),
                          on_contradiction=self._announce_contradiction,
                          on_instructions=self._absorb_instructions)

    def _absorb_instructions(self, project: str, nodes: Sequence[Node],
                             verdicts: Sequence[dict[str, Any]]) -> None:
        """A prompt's instructions into the one instruction store, which owns what is live, with the
        graph reconciler's verdicts on them."""
        from chalicelib.graph.domain.reconcile_rules import CONTRADICTION, SUPERSEDES
        from chalicelib.learning.domain.rule_reconciliation import StatedRule

        as_verdict: dict[str, Literal["supersede", "flag"]] = {SUPERSEDES: "supersede", CONTRADICTION: "flag"}
        judged = {str(v["new"]): (as_verdict[str(v["verdict"])], str(v["old_id"]), str(v.get("reason") or ""))
                  for v in verdicts if v.get("verdict") in as_verdict and v.get("new") and v.get("old_id")}
        self.project_rules.absorb_stated(project, [StatedRule(n.id, n.content, n.source, judged.get(n.id))
                                                   for n in nodes])

    def _announce_contradiction(self, contradiction: object) -> None:
        if self.telegram_enabled and self.settings.telegram_chat_id:
            from chalicelib.telegram.services.graph_contradictions import announce_contradiction

            announce_contradiction(self.telegram_gateway, self.settings.telegram_chat_id, contradiction)

    @cached_property
    def graph_retrieve(self) -> GraphRetrieve:
        from chalicelib.graph.services.graph_retrieve import GraphRetrieve

        return GraphRetrieve(self.graph_units, self.embedder, self.llm, self.llm,  # type: ignore[arg-type]
                             rules=self._live_rules)

    def _live_rules(self, project: str, embedding: Sequence[float],
                    shown: Sequence[str]) -> tuple[list[Node], dict[str, str | None]]:
        """The instruction store's live rules as the graph context's instruction nodes."""
        from chalicelib.graph.domain.graph_model import Node

        added, held = self.project_rules.for_context(project, embedding, shown)
        return [Node(r.id, r.project, "instruction", "rule", r.content, 1.0, r.confidence, "user",
                     1.0 if r.project == GLOBAL_PROJECT else 0.5, r.created_at, None, None,
                     {"rule": True, "times_reinforced": r.times_reinforced}, r.created_at, r.similarity)
                for r in added], held

    @cached_property
    def graph_admin(self) -> GraphAdmin:
        from chalicelib.graph.services.graph_admin import GraphAdmin

        return GraphAdmin(self.graph_units, self.embedder, on_resolved=self.rule_clashes.settle_stated)
