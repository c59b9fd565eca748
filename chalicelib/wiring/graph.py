"""Graph memory: entities, facts, instructions with scope, plans, edges (docs/graph.md)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from chalicelib.learning.domain.instruction import GLOBAL_PROJECT
from chalicelib.wiring.core import CoreWiring
from chalicelib.wiring.provide import ImportedOnUse, provide

if TYPE_CHECKING:
    from chalicelib.bootstrap import Container
    from chalicelib.wiring.kits import graph as kit
else:
    kit = ImportedOnUse("chalicelib.wiring.kits.graph")


def _absorb_instructions(c: Container, project: str, nodes: Sequence[kit.Node],
                         verdicts: Sequence[dict[str, Any]]) -> None:
    """A prompt's instructions into the one instruction store, which owns what is live, with the
    graph reconciler's verdicts on them."""
    as_verdict: dict[str, Literal["supersede", "flag"]] = {kit.SUPERSEDES: "supersede",
                                                           kit.CONTRADICTION: "flag"}
    judged = {str(v["new"]): (as_verdict[str(v["verdict"])], str(v["old_id"]), str(v.get("reason") or ""))
              for v in verdicts if v.get("verdict") in as_verdict and v.get("new") and v.get("old_id")}
    c.project_rules.absorb_stated(project, [kit.StatedRule(n.id, n.content, n.source, judged.get(n.id))
                                            for n in nodes])


def announce_contradiction(c: Container, contradiction: object) -> None:
    """A contradiction the graph found, with its buttons, in the forum (when there is a bot and a forum)."""
    if c.telegram_enabled and c.settings.telegram_chat_id:
        from chalicelib.telegram.services import graph_contradictions

        chat_id = c.settings.telegram_chat_id
        graph_contradictions.announce_contradiction(c.telegram_gateway, chat_id, contradiction)


def _live_rules(c: Container, project: str, embedding: Sequence[float],
                shown: Sequence[str]) -> tuple[list[kit.Node], dict[str, str | None]]:
    """The instruction store's live rules as the graph context's instruction nodes."""
    added, held = c.project_rules.for_context(project, embedding, shown)
    return [kit.Node(r.id, r.project, "instruction", "rule", r.content, 1.0, r.confidence, "user",
                     1.0 if r.project == GLOBAL_PROJECT else 0.5, r.created_at, None, None,
                     {"rule": True, "times_reinforced": r.times_reinforced}, r.created_at, r.similarity)
            for r in added], held


class GraphWiring(CoreWiring):
    graph_units: kit.GraphUnits = provide(lambda c: kit.graph_units(c.db))
    graph_store: kit.GraphStore = provide(lambda c: kit.GraphStore(
        c.graph_units, c.embedder, c.llm, c.llm,  # type: ignore[arg-type]
        enqueue=lambda body, delay_s: c.queues.send("ingest", body, delay_s=delay_s),
        on_contradiction=partial(announce_contradiction, c),
        on_instructions=partial(_absorb_instructions, c)))
    graph_retrieve: kit.GraphRetrieve = provide(lambda c: kit.GraphRetrieve(
        c.graph_units, c.embedder, c.llm, c.llm,  # type: ignore[arg-type]
        rules=partial(_live_rules, c)))
    graph_admin: kit.GraphAdmin = provide(
        lambda c: kit.GraphAdmin(c.graph_units, c.embedder, on_resolved=c.rule_clashes.settle_stated))
