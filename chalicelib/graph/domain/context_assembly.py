"""Assemble retrieved nodes into the context sections, with the limits and order of the design.

Entities 15 (by score), relationships 8 per entity (by salience, as fetched), instructions 15
(score first, scope as tie-breaker), facts and opinions 30 (score), events 15 (score), plans 10
(soonest first). A plan whose date has passed is read as an event. Superseded nodes, and nodes
past their `valid_until`, never show.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from chalicelib.graph.domain.graph_model import Node, Relation

LIMITS = {"entities": 15, "instructions": 15, "facts": 30, "events": 15, "plans": 10}
RELATIONS_PER_ENTITY = 8
ITEM_CHARS = 240
SECTION_TITLES = (
    ("instructions", "Instructions"),
    ("facts", "Facts"),
    ("events", "Events"),
    ("plans", "Plans"),
)


@dataclass
class Sections:
    entities: list[Node] = field(default_factory=list)
    relations: dict[str, list[Relation]] = field(default_factory=dict)
    instructions: list[Node] = field(default_factory=list)
    facts: list[Node] = field(default_factory=list)
    events: list[Node] = field(default_factory=list)
    plans: list[Node] = field(default_factory=list)

    def empty(self) -> bool:
        return not (self.entities or self.instructions or self.facts or self.events or self.plans)

    def as_json(self) -> dict[str, Any]:
        return {
            "entities": [
                {**e.as_json(), "relationships": [r.as_json() for r in self.relations.get(e.id, [])]}
                for e in self.entities
            ],
            **{name: [n.as_json() for n in getattr(self, name)] for name, _ in SECTION_TITLES},
        }


def assemble(
    entities: Iterable[Node], relations: dict[str, list[Relation]], found: Iterable[Node], now: datetime
) -> Sections:
    """Dedupe by id (keeping the best score), drop superseded nodes, sort and cut each section."""
    best: dict[str, Node] = {}
    for node in found:
        if node.valid_at(now) and (node.id not in best or node.score > best[node.id].score):
            best[node.id] = node
    out = Sections()
    ents = {e.id: e for e in entities if e.valid_at(now)}
    for node in best.values():
        if node.node_type == "entity":
            ents.setdefault(node.id, node)
        elif node.node_type == "instruction":
            out.instructions.append(node)
        elif node.node_type in ("fact", "opinion"):
            out.facts.append(node)
        elif node.node_type == "event" or (node.node_type == "plan" and _passed(node, now)):
            out.events.append(node)
        elif node.node_type == "plan":
            out.plans.append(node)
    out.entities = sorted(ents.values(), key=lambda n: -n.score)[: LIMITS["entities"]]
    out.relations = {
        e.id: [r for r in relations.get(e.id, []) if r.other.valid_at(now)][:RELATIONS_PER_ENTITY]
        for e in out.entities
    }
    out.instructions = sorted(out.instructions, key=lambda n: (-n.score, -(n.scope or 0)))[
        : LIMITS["instructions"]
    ]
    out.facts = sorted(out.facts, key=lambda n: -n.score)[: LIMITS["facts"]]
    out.events = sorted(out.events, key=lambda n: -n.score)[: LIMITS["events"]]
    out.plans = sorted(out.plans, key=lambda n: n.valid_from or now)[: LIMITS["plans"]]
    return out


def _passed(node: Node, now: datetime) -> bool:
    return node.valid_from is not None and node.valid_from < now


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= ITEM_CHARS else flat[: ITEM_CHARS - 1] + "…"


def render(sections: Sections) -> str:
    """The compact text the prompt hook shows ('' when nothing was found)."""
    if sections.empty():
        return ""
    lines: list[str] = []
    if sections.entities:
        lines.append("Entities:")
        for entity in sections.entities:
            rels = "; ".join(_relation(r) for r in sections.relations.get(entity.id, []))
            lines.append(
                f"- {entity.content}"
                + (f" ({entity.subtype})" if entity.subtype else "")
                + (f": {rels}" if rels else "")
            )
    for name, title in SECTION_TITLES:
        nodes: list[Node] = getattr(sections, name)
        if nodes:
            lines.append(f"{title}:")
            lines.extend(f"- {_line(n)}" for n in nodes)
    return "\n".join(lines)


def _relation(relation: Relation) -> str:
    arrow = "->" if relation.outgoing else "<-"
    return f"{relation.edge_type} {arrow} {_short(relation.other.content)}"


def _line(node: Node) -> str:
    extra = []
    if node.node_type == "instruction" and node.scope is not None:
        extra.append(f"scope {node.scope:g}")
    if node.node_type in ("plan", "event") and node.valid_from is not None:
        extra.append(node.valid_from.date().isoformat())
    return _short(node.content) + (f" [{', '.join(extra)}]" if extra else "")
