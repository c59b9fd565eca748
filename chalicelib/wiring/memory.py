"""The memory core and its lifecycle: search, recall, explain, import, eviction, snapshots."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring
from chalicelib.wiring.provide import ImportedOnUse, provide

if TYPE_CHECKING:
    from chalicelib.bootstrap import Container
    from chalicelib.kernel.settings import Settings
    from chalicelib.wiring.kits import memory as kit
else:
    kit = ImportedOnUse("chalicelib.wiring.kits.memory")


def search_weights(s: Settings) -> kit.SearchWeights:
    """The hybrid search's weights and re-rankings as the deployment's settings give them."""
    return kit.SearchWeights(s.search_vector_weight, s.search_text_weight, s.search_recency_weight,
                             s.search_recency_half_life_days, s.search_neighbours_weight,
                             s.search_dates_weight)


def _memory(c: Container) -> kit.MemoryService:
    s = c.settings
    return kit.MemoryService(c.memory_units, c.embedder, weights=search_weights(s),
                             query_timeout_s=s.embedding_timeout_s,
                             instructions=lambda: c.project_rules, namespaces=c.namespaces.scopes_of)


def _memory_recall(c: Container) -> kit.MemoryRecall:
    memory = c.memory

    def search(query: str, project: str, limit: int) -> list[kit.SearchHit]:
        return memory.search(query, project, limit=limit).hits

    return kit.MemoryRecall(c.memory_units, search)  # type: ignore[arg-type]  # it binds `recall`


def _lifecycle_units(c: Container) -> kit.LifecycleUnits:
    return c.memory_units  # type: ignore[return-value]  # the memory unit binds `lifecycle` too


def _memory_eviction(c: Container) -> kit.MemoryEviction:
    s = c.settings
    reducer = kit.LlmReducer(c.llm) if s.llm_enabled else kit.DeterministicReducer()
    return kit.MemoryEviction(c.lifecycle_units, reducer, budget=s.memory_budget,
                              batch_size=s.memory_eviction_batch)


class MemoryWiring(CoreWiring):
    memory_units: kit.MemoryUnits = provide(lambda c: kit.memory_units(c.db))
    memory: kit.MemoryService = provide(_memory)
    memory_recall: kit.MemoryRecall = provide(_memory_recall)
    # memory reads narrowed to a subagent run's scope
    scoped_reads: kit.ScopedReads = provide(lambda c: kit.ScopedReads(c.memory, c.memory_recall))
    search_explainer: kit.SearchExplainer = provide(lambda c: kit.SearchExplainer(
        c.memory_units, c.memory))  # type: ignore[arg-type]  # binds `explain`
    rule_import: kit.RuleImport = provide(lambda c: kit.RuleImport(
        c.memory_units, c.memory, instructions=c.project_rules))  # type: ignore[arg-type]  # binds `imports`
    memory_tool: kit.MemoryTool = provide(lambda c: kit.MemoryTool(c.memory_units, c.memory.store))
    # the review queue: untrusted memories and proposed rules a person keeps or drops
    memory_review: kit.MemoryReview = provide(lambda c: kit.MemoryReview(
        c.memory_units, c.memory))  # type: ignore[arg-type]  # binds `review`

    # Memory lifecycle: phased eviction, archive and restore, tags and listing (docs/memory.md).
    lifecycle_units: kit.LifecycleUnits = provide(_lifecycle_units)
    memory_lifecycle: kit.MemoryLifecycle = provide(lambda c: kit.MemoryLifecycle(
        c.lifecycle_units, budget=c.settings.memory_budget,
        enqueue=lambda body: c.queues.send("ingest", body)))
    memory_eviction: kit.MemoryEviction = provide(_memory_eviction)
    memory_integrity: kit.MemoryIntegrity = provide(
        lambda c: kit.MemoryIntegrity(c.lifecycle_units, c.embedder))
    memory_transfer: kit.MemoryTransfer = provide(lambda c: kit.MemoryTransfer(c.lifecycle_units, c.embedder))
    memory_snapshots: kit.MemorySnapshots = provide(lambda c: kit.MemorySnapshots(c.lifecycle_units))
    # The model's facts in search keys, off the write path (the `search-facts` schedule).
    search_facts: kit.SearchFacts = provide(lambda c: kit.SearchFacts(
        c.memory_units, c.llm, batch=c.settings.search_facts_batch,  # type: ignore[arg-type]  # binds `search_facts`
        per_call=c.settings.search_facts_per_call))
