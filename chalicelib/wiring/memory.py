"""The memory core and its lifecycle: search, recall, explain, import, eviction, snapshots."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring

if TYPE_CHECKING:
    from chalicelib.memory.domain.memory_model import SearchHit
    from chalicelib.memory.services.lifecycle_ports import LifecycleUnits
    from chalicelib.memory.services.memory_eviction import MemoryEviction
    from chalicelib.memory.services.memory_integrity import MemoryIntegrity
    from chalicelib.memory.services.memory_lifecycle import MemoryLifecycle
    from chalicelib.memory.services.memory_recall import MemoryRecall
    from chalicelib.memory.services.memory_review import MemoryReview
    from chalicelib.memory.services.memory_service import MemoryService
    from chalicelib.memory.services.memory_snapshots import MemorySnapshots
    from chalicelib.memory.services.memory_tool import MemoryTool
    from chalicelib.memory.services.memory_transfer import MemoryTransfer
    from chalicelib.memory.services.ports import MemoryUnits
    from chalicelib.memory.services.rule_import import RuleImport
    from chalicelib.memory.services.scoped_reads import ScopedReads
    from chalicelib.memory.services.search_explain import SearchExplainer


class MemoryWiring(CoreWiring):
    @cached_property
    def memory_units(self) -> MemoryUnits:
        from chalicelib.memory.adapters.memory_unit_of_work import memory_units

        return memory_units(self.db)

    @cached_property
    def memory(self) -> MemoryService:
        from chalicelib.memory.domain.search_scoring import SearchWeights
        from chalicelib.memory.services.memory_service import MemoryService

        s = self.settings
        weights = SearchWeights(s.search_vector_weight, s.search_text_weight, s.search_recency_weight,
                                s.search_recency_half_life_days, s.search_neighbours_weight,
                                s.search_dates_weight)
        return MemoryService(self.memory_units, self.embedder, weights=weights,
                             query_timeout_s=s.embedding_timeout_s,
                             instructions=lambda: self.project_rules, namespaces=self.namespaces.scopes_of)

    @cached_property
    def scoped_reads(self) -> ScopedReads:
        """Memory reads narrowed to a subagent run's scope."""
        from chalicelib.memory.services.scoped_reads import ScopedReads

        return ScopedReads(self.memory, self.memory_recall)

    @cached_property
    def memory_recall(self) -> MemoryRecall:
        from chalicelib.memory.services.memory_recall import MemoryRecall

        memory = self.memory

        def search(query: str, project: str, limit: int) -> list[SearchHit]:
            return memory.search(query, project, limit=limit).hits

        return MemoryRecall(self.memory_units, search)  # type: ignore[arg-type]  # it binds `recall`

    @cached_property
    def search_explainer(self) -> SearchExplainer:
        from chalicelib.memory.services.search_explain import SearchExplainer

        return SearchExplainer(self.memory_units, self.memory)  # type: ignore[arg-type]  # binds `explain`

    @cached_property
    def rule_import(self) -> RuleImport:
        from chalicelib.memory.services.rule_import import RuleImport

        return RuleImport(self.memory_units, self.memory,  # type: ignore[arg-type]  # binds `imports`
                          instructions=self.project_rules)

    @cached_property
    def memory_tool(self) -> MemoryTool:
        from chalicelib.memory.services.memory_tool import MemoryTool

        return MemoryTool(self.memory_units, self.memory.store)

    @cached_property
    def memory_review(self) -> MemoryReview:
        """The review queue: untrusted memories and proposed rules a person keeps or drops."""
        from chalicelib.memory.services.memory_review import MemoryReview

        return MemoryReview(self.memory_units, self.memory)  # type: ignore[arg-type]  # binds `review`

    # Memory lifecycle: phased eviction, archive and restore, tags and listing (docs/memory.md).
    @cached_property
    def lifecycle_units(self) -> LifecycleUnits:
        return self.memory_units  # type: ignore[return-value]  # the memory unit binds `lifecycle`

    @cached_property
    def memory_lifecycle(self) -> MemoryLifecycle:
        from chalicelib.memory.services.memory_lifecycle import MemoryLifecycle

        return MemoryLifecycle(self.lifecycle_units, budget=self.settings.memory_budget,
                               enqueue=lambda body: self.queues.send("ingest", body))

    @cached_property
    def memory_eviction(self) -> MemoryEviction:
        from chalicelib.memory.services.memory_eviction import MemoryEviction
        from chalicelib.memory.services.memory_reducers import DeterministicReducer, LlmReducer

        reducer = LlmReducer(self.llm) if self.settings.llm_enabled else DeterministicReducer()
        return MemoryEviction(self.lifecycle_units, reducer, budget=self.settings.memory_budget,
                              batch_size=self.settings.memory_eviction_batch)

    @cached_property
    def memory_integrity(self) -> MemoryIntegrity:
        from chalicelib.memory.services.memory_integrity import MemoryIntegrity

        return MemoryIntegrity(self.lifecycle_units, self.embedder)

    @cached_property
    def memory_transfer(self) -> MemoryTransfer:
        from chalicelib.memory.services.memory_transfer import MemoryTransfer

        return MemoryTransfer(self.lifecycle_units, self.embedder)

    @cached_property
    def memory_snapshots(self) -> MemorySnapshots:
        from chalicelib.memory.services.memory_snapshots import MemorySnapshots

        return MemorySnapshots(self.lifecycle_units)
