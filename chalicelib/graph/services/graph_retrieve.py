"""Reading the graph for a prompt: the fast path (no model, inside the prompt hook's deadline)
and the deep path (plan, retrieve tool loop, per-section verbatim curation).

Fast: entities named in the prompt, their 1-hop neighbours, and three safety nets (one SQL
statement): instruction pre-fetch (40 candidates through the instructions' own HNSW index,
near-identical templates collapsed, 15 kept), a broad vector search over every node type, and
global instructions (scope >= 0.8, similarity > 0.15, scored at least 0.6). Deep adds what the
model's searches found and keeps, per section, only what the model copies verbatim as relevant
(a section answered NO_RELEVANT_RECORDS is dropped). Both paths leave out nodes extracted from
untrusted text (`Node.trusted`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from chalicelib.graph.domain.context_assembly import SECTION_TITLES, Sections, assemble, render
from chalicelib.graph.domain.graph_model import Node, Relation
from chalicelib.graph.domain.llm_prompts import (
    CURATE_SYSTEM,
    NO_RELEVANT,
    PLAN_SCHEMA,
    PLAN_SYSTEM,
    RETRIEVE_SYSTEM,
    RETRIEVE_TOOLS,
)
from chalicelib.graph.domain.names import candidate_keys, template_key
from chalicelib.graph.services.graph_service import Clock, GraphService, utc_now
from chalicelib.graph.services.graph_tools import GraphTools
from chalicelib.graph.services.graph_writer import embed_all
from chalicelib.graph.services.ports import GraphUnits, LiveRules, Vector
from chalicelib.graph.services.tool_loop import run_tool_loop
from chalicelib.kernel.redaction import redact
from chalicelib.llm.services.ports import LanguageModel, ToolModel
from chalicelib.memory.services.ports import Embedder

NON_ENTITY = ("fact", "event", "opinion", "instruction", "plan")
# The instruction pre-fetch's candidates: as many as one HNSW scan at the default ef_search (40)
# returns. 150 (the seed's figure) needs ef_search >= 150: +6-10 ms at p50 with 10,000 nodes.
INSTRUCTION_CANDIDATES = 40
INSTRUCTION_KEEP = 15
BROAD = 20
GLOBAL_SCOPE, GLOBAL_MIN_SIMILARITY, GLOBAL_FLOOR = 0.8, 0.15, 0.6
NEIGHBOUR_SCORE = 0.5
MAX_QUERY_CHARS = 2_000  # as the memory search's


@dataclass(frozen=True)
class GraphContext:
    sections: Sections
    text: str
    deep: bool = False
    trace_id: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"text": self.text, "deep": self.deep, "trace_id": self.trace_id, **self.sections.as_json()}

    def without_rules(self, rule_ids: Collection[str]) -> GraphContext:
        """The fast context without the instructions that are the rules `rule_ids` (shown elsewhere
        in the same answer): a rule's own node, or a graph node it was stated as."""
        gone = set(rule_ids)
        kept = [n for n in self.sections.instructions
                if n.id not in gone and n.attributes.get("rule") not in gone]
        if len(kept) == len(self.sections.instructions):
            return self
        sections = replace(self.sections, instructions=kept)
        return replace(self, sections=sections, text=render(sections))


class GraphRetrieve(GraphService):
    def __init__(self, units: GraphUnits, embedder: Embedder | None, llm: LanguageModel,
                 tools: ToolModel | None, *, clock: Clock = utc_now, rules: LiveRules | None = None) -> None:
        super().__init__(units, embedder, llm, tools, clock)
        self._rules = rules

    def fast(self, project: str, query: str, extra: Sequence[Node] = ()) -> GraphContext:
        sections = self._sections(project, query, extra)
        return GraphContext(sections, render(sections))

    def _sections(self, project: str, query: str, extra: Sequence[Node] = ()) -> Sections:
        # The memory search's exact query text: its vector is then in the embedder's LRU already.
        vector = embed_all(self._embedder, [redact(query).strip()[:MAX_QUERY_CHARS]])[0]
        with self._units() as uow:
            entities = [
                replace(e, score=1.0) for e in uow.graph.find_entities(project, candidate_keys(query), 15)
            ]
            relations = uow.graph.relations([e.id for e in entities], 16)
            found: list[Node] = list(extra)
            if vector is not None:
                near = uow.graph.fast_candidates(
                    project, vector, instructions=INSTRUCTION_CANDIDATES, broad_types=NON_ENTITY,
                    broad=BROAD, global_scope=GLOBAL_SCOPE, global_limit=INSTRUCTION_KEEP,
                )
                found += _dedupe_templates(near["instructions"], [e.content.lower() for e in entities])
                found += near["broad"]
                found += [
                    replace(n, score=max(n.score, GLOBAL_FLOOR))
                    for n in near["global"]
                    if n.score > GLOBAL_MIN_SIMILARITY
                ]
        # Nodes extracted from untrusted text (tool output, the web, other agents) never reach a model.
        entities = [e for e in entities if e.trusted]
        found = [n for n in found if n.trusted]
        relations = {a: [r for r in rels if r.other.trusted] for a, rels in relations.items()}
        between: dict[str, list[Relation]] = {}
        for anchor, rels in relations.items():
            between[anchor] = [r for r in rels if r.other.node_type == "entity"]
            found += [
                replace(r.other, score=max(r.other.score, NEIGHBOUR_SCORE))
                for r in rels
                if r.other.node_type != "entity"
            ]
        if self._rules is not None and vector is not None:
            found = self._with_rules(project, vector, found)
        return assemble(entities, between, found, self._clock())

    def _with_rules(self, project: str, vector: Vector, found: list[Node]) -> list[Node]:
        """The instruction store owns which instructions are live: a graph instruction it retired or
        flagged is left out, and its live rules near the query (a `/learn`, a rule file) come in."""
        assert self._rules is not None
        shown = [n.id for n in found if n.node_type == "instruction"]
        added, held = self._rules(project, vector, shown)
        kept = [n if n.id not in held else replace(n, attributes={**n.attributes, "rule": held[n.id]})
                for n in found if n.id not in held or held[n.id] is not None]
        return kept + added

    def deep(self, project: str, query: str) -> GraphContext:
        """The deep path; without a model it is the fast path."""
        if not self._llm.enabled or self._tools is None or not self._tools.enabled:
            return self.fast(project, query)
        trace: dict[str, Any] = {"query": query[:2000], "timings": {}}
        started = time.monotonic()
        trace["plan"] = self._llm.complete_json("graph_plan", PLAN_SYSTEM, query, PLAN_SCHEMA, max_tokens=400)
        runner = GraphTools(self._units, self._embedder, project)
        user = json.dumps({"message": query, "plan": trace["plan"]})
        trace["calls"] = run_tool_loop(
            self._tools, "graph_retrieve", RETRIEVE_SYSTEM, user, RETRIEVE_TOOLS, runner
        )
        trace["timings"]["loop_ms"] = round((time.monotonic() - started) * 1000)
        sections = self._sections(project, query, list(runner.seen.values()))
        started = time.monotonic()
        text = self._curate(query, sections, trace)
        trace["timings"]["curate_ms"] = round((time.monotonic() - started) * 1000)
        trace["context"] = text
        with self._units() as uow:
            trace_id = uow.graph.add_trace(project, "retrieve", trace, 7)
            uow.commit()
        return GraphContext(sections, text, deep=True, trace_id=trace_id)

    def _curate(self, query: str, sections: Sections, trace: dict[str, Any]) -> str:
        """Each section's verbatim relevant lines, curated in parallel; dropped sections vanish."""
        rendered = render(sections)
        blocks = _blocks(rendered)
        if not blocks:
            return ""

        def curate(block: tuple[str, str]) -> tuple[str, str | None]:
            title, body = block
            answer = self._llm.complete_text(
                "graph_curate",
                CURATE_SYSTEM,
                f"Message: {query}\n\nSection {title}:\n{body}",
                max_tokens=800,
                temperature=0.0,
            )
            return title, body if answer is None else answer  # a failed curation keeps the section

        with ThreadPoolExecutor(max_workers=4) as pool:
            curated = list(pool.map(curate, blocks))
        trace["curation"] = {title: text for title, text in curated}
        kept = [f"{title}:\n{text.strip()}" for title, text in curated if text and NO_RELEVANT not in text]
        return "\n".join(kept)


def _blocks(rendered: str) -> list[tuple[str, str]]:
    titles = {"Entities", *(title for _, title in SECTION_TITLES)}
    blocks: list[tuple[str, list[str]]] = []
    for line in rendered.splitlines():
        if line.endswith(":") and line[:-1] in titles:
            blocks.append((line[:-1], []))
        elif blocks:
            blocks[-1][1].append(line)
    return [(title, "\n".join(lines)) for title, lines in blocks if lines]


def _dedupe_templates(nodes: list[Node], names: list[str]) -> list[Node]:
    """Instruction pre-fetch: the best of each entity-normalised template, INSTRUCTION_KEEP kept."""
    kept: dict[str, Node] = {}
    for node in nodes:
        kept.setdefault(template_key(node.content, names), node)
        if len(kept) >= INSTRUCTION_KEEP:
            break
    return list(kept.values())
