"""Graph memory: entities, facts, instructions with scope, plans, edges (docs/graph.md)."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring

if TYPE_CHECKING:
    from chalicelib.graph.services.graph_admin import GraphAdmin
    from chalicelib.graph.services.graph_retrieve import GraphRetrieve
    from chalicelib.graph.services.graph_store import GraphStore
    from chalicelib.graph.services.ports import GraphUnits
    from chalicelib.telegram.adapters.telegram_gateway import TelegramGateway


class GraphWiring(CoreWiring):
    if TYPE_CHECKING:  # built by the other capabilities' wiring
        @property
        def telegram_enabled(self) -> bool: ...
        @property
        def telegram_gateway(self) -> TelegramGateway: ...

    # Graph memory: entities, facts, instructions with scope, plans, edges (docs/graph.md).
    @cached_property
    def graph_units(self) -> GraphUnits:
        from chalicelib.graph.adapters.graph_unit_of_work import graph_units

        return graph_units(self.db)

    @cached_property
    def graph_store(self) -> GraphStore:
        from chalicelib.graph.services.graph_store import GraphStore

        return GraphStore(self.graph_units, self.embedder, self.llm, self.llm,  # type: ignore[arg-type]
                          enqueue=lambda body, delay_s: self.queues.send("ingest", body, delay_s=delay_s),
                          on_contradiction=self._announce_contradiction)

    def _announce_contradiction(self, contradiction: object) -> None:
        if self.telegram_enabled and self.settings.telegram_chat_id:
            from chalicelib.telegram.services.graph_contradictions import announce_contradiction

            announce_contradiction(self.telegram_gateway, self.settings.telegram_chat_id, contradiction)

    @cached_property
    def graph_retrieve(self) -> GraphRetrieve:
        from chalicelib.graph.services.graph_retrieve import GraphRetrieve

        return GraphRetrieve(self.graph_units, self.embedder, self.llm, self.llm)  # type: ignore[arg-type]

    @cached_property
    def graph_admin(self) -> GraphAdmin:
        from chalicelib.graph.services.graph_admin import GraphAdmin

        return GraphAdmin(self.graph_units, self.embedder)
