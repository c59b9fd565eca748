"""The store pipeline with a model: classify, filter and extract instructions, the store tool
loop, force-store, reconciliation. Each model call is budgeted under its own purpose
(graph_classify, graph_filter, graph_store, graph_reconcile: `itachi usage` shows them).

`run` answers an `Extraction` for the caller to write when the model could not be used (the
heuristic fallback), or None when the pipeline stored what it found itself.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from chalicelib.graph.domain.heuristic_extractor import Extraction, Item, Mention, extract
from chalicelib.graph.domain.llm_prompts import (
    CLASSIFY_SCHEMA,
    CLASSIFY_SYSTEM,
    FILTER_SCHEMA,
    FILTER_SYSTEM,
    RECONCILE_SCHEMA,
    RECONCILE_SYSTEM,
    STORE_SYSTEM,
    STORE_TOOLS,
)
from chalicelib.graph.services.graph_service import Clock, GraphService
from chalicelib.graph.services.graph_tools import GraphTools
from chalicelib.graph.services.graph_writer import embed_all, write_extraction
from chalicelib.graph.services.ports import GraphUnits
from chalicelib.graph.services.reconciler import Reconciler
from chalicelib.graph.services.tool_loop import run_tool_loop
from chalicelib.llm.services.ports import LanguageModel, ToolModel
from chalicelib.memory.domain.provenance import is_trusted
from chalicelib.memory.services.ports import Embedder


class LlmStorePipeline(GraphService):
    _tools: ToolModel

    def __init__(self, units: GraphUnits, embedder: Embedder | None, llm: LanguageModel, tools: ToolModel,
                 clock: Clock) -> None:
        super().__init__(units, embedder, llm, tools, clock)
        self._reconciler = Reconciler(units, embedder)
        self.contradictions = self._reconciler.contradictions

    def run(self, project: str, text: str, source: str, trace: dict[str, Any]) -> Extraction | None:
        timings = trace.setdefault("timings", {})
        with _timed(timings, "classify"):
            classified = self._llm.complete_json(
                "graph_classify", CLASSIFY_SYSTEM, text, CLASSIFY_SCHEMA, max_tokens=800
            )
        trace["classification"] = classified
        if classified is None:
            return self._heuristic(text, trace, "classification failed")
        trace["pipeline"] = "llm"
        if not classified.get("store"):
            trace["stored"] = []
            return None
        today = self._clock().date().isoformat()
        with _timed(timings, "filter"):
            filtered = self._llm.complete_json(
                "graph_filter", FILTER_SYSTEM, f"Today is {today}.\n\n{text}", FILTER_SCHEMA, max_tokens=1200
            )
        trace["filter"] = filtered
        if filtered is None:
            return self._heuristic(text, trace, "storage filter failed")
        found = _as_extraction(classified, filtered)
        if not found.items:
            trace["stored"] = []
            return None
        tools = GraphTools(self._units, self._embedder, project, source)
        user = json.dumps({"message": text, "today": today, "items": [_item_json(i) for i in found.items]})
        with _timed(timings, "store"):
            trace["calls"] = run_tool_loop(self._tools, "graph_store", STORE_SYSTEM, user, STORE_TOOLS, tools)
        stored = list(tools.stored)
        if not stored:  # the loop stored nothing although there was something to store
            with self._units() as uow:
                written = write_extraction(uow.graph, self._embedder, project, found, source)
                uow.commit()
            trace["force_store"] = True
            stored = [n["id"] for n in written["nodes"]]
        trace["stored"] = stored
        trace["aliases"] = self._record_aliases(project, classified, source)
        with _timed(timings, "reconcile"):
            trace["reconciliation"] = self._reconcile(project, stored)
        return None

    def _heuristic(self, text: str, trace: dict[str, Any], reason: str) -> Extraction:
        """The heuristic extraction of `text`, when the model gave no usable answer."""
        trace["pipeline"] = "heuristic"
        trace["fallback"] = reason
        return extract(text, self._clock())

    def _record_aliases(
        self, project: str, classified: dict[str, Any], source: str
    ) -> dict[str, list[str]]:
        """The other names the classification gave the message's entities, on those entities."""
        named = [(str(e.get("name") or ""), str(e.get("type") or "concept"), _aliases(e))
                 for e in classified.get("entities", []) if isinstance(e, dict)]
        named = [(name, kind, aliases) for name, kind, aliases in named if name.strip() and aliases]
        if not named:
            return {}
        vectors = embed_all(self._embedder, [name for name, _, _ in named])
        recorded: dict[str, list[str]] = {}
        with self._units() as uow:
            for (name, kind, aliases), vector in zip(named, vectors, strict=False):
                entity = uow.graph.upsert_entity(project, name, kind, vector, aliases,
                                                 source=source, trusted=is_trusted(source))
                recorded[entity.id] = list(entity.attributes.get("aliases", []))
            uow.commit()
        return recorded

    def _reconcile(self, project: str, stored: list[str]) -> list[dict[str, Any]]:
        """Check each new instruction against similar live ones; apply SUPERSEDES, list CONTRADICTION.
        When the model gives no usable answer the wording decides (`reconcile_rules`)."""
        report: list[dict[str, Any]] = []
        nodes = self._reconciler.new_instructions(stored)
        for at, node in enumerate(nodes):
            candidates = self._reconciler.candidates(project, node, [n.id for n in nodes[at + 1 :]])
            if not candidates:
                continue
            listing = "\n".join(f"- id={c.id}: {c.content}" for c in candidates)
            answer = self._llm.complete_json(
                "graph_reconcile",
                RECONCILE_SYSTEM,
                f"New instruction: {node.content}\n\nExisting:\n{listing}",
                RECONCILE_SCHEMA,
                max_tokens=600,
            )
            if answer is None:
                report += self._reconciler.judge_by_wording(project, node, candidates)
                continue
            known = {c.id: c for c in candidates}
            for verdict in answer.get("verdicts", []):
                old = known.get(str(verdict.get("old_id")))
                if old is None:
                    continue  # an id the model made up
                report.append({"new": node.id, **verdict})
                self._reconciler.apply(
                    project, node, old, str(verdict.get("verdict")), str(verdict.get("reason") or "")
                )
        return report


def _as_extraction(classified: dict[str, Any], filtered: dict[str, Any]) -> Extraction:
    entities = [e for e in classified.get("entities", []) if isinstance(e, dict)]
    kinds = {str(e.get("name")): str(e.get("type") or "concept") for e in entities}
    other_names = {str(e.get("name")): _aliases(e) for e in entities}
    items: list[Item] = []
    for raw in filtered.get("items", []):
        items.append(
            Item(
                str(raw.get("type")),
                str(raw.get("content")),
                raw.get("subtype"),
                0.3 if raw.get("type") == "plan" else None,
                _date(raw.get("valid_from")),
                tuple(str(e) for e in raw.get("entities", [])),
            )
        )
    for raw in filtered.get("instructions", []):
        items.append(
            Item(
                "instruction",
                str(raw.get("content")),
                "instruction",
                float(raw.get("scope", 0.5)),
                None,
                tuple(str(e) for e in raw.get("entities", [])),
                str(raw.get("pattern") or ""),
            )
        )
    mentions = [
        Mention(name, kinds.get(name, "concept"), other_names.get(name, ()))
        for item in items
        for name in item.entities
    ]
    return Extraction(entities=mentions, items=[i for i in items if i.content.strip()])


def _aliases(entity: dict[str, Any]) -> tuple[str, ...]:
    raw = entity.get("aliases")
    return tuple(str(a) for a in raw if str(a).strip()) if isinstance(raw, list) else ()


def _item_json(item: Item) -> dict[str, Any]:
    return {
        "type": item.node_type,
        "subtype": item.subtype,
        "content": item.content,
        "scope": item.scope,
        "valid_from": item.valid_from.date().isoformat() if item.valid_from else None,
        "entities": list(item.entities),
    }


def _date(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value)).replace(tzinfo=UTC) if value else None
    except ValueError:
        return None


@contextmanager
def _timed(timings: dict[str, int], step: str) -> Iterator[None]:
    """Record the block's wall time as `timings["<step>_ms"]` when it finishes without an error."""
    started = time.monotonic()
    yield
    timings[f"{step}_ms"] = round((time.monotonic() - started) * 1000)
