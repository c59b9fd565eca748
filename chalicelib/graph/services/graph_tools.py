"""The tools the store and retrieve loops give the model, run against the graph.

Every call runs in its own short unit of work (the model thinks between calls; no transaction
waits on it). A tool answers a JSON-able dict; bad arguments answer {"error": ...} so the model
can correct itself. Nodes a tool returned are collected in `seen` for context assembly.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from chalicelib.graph.domain.aliases import spellings
from chalicelib.graph.domain.graph_model import GraphInputError, Node, NodeDraft, check_edge
from chalicelib.graph.domain.names import normalise_name
from chalicelib.graph.services.graph_writer import embed_all
from chalicelib.graph.services.ports import GraphUnits, NodeNotFound, SupersedeRefused
from chalicelib.memory.domain.provenance import is_trusted
from chalicelib.memory.services.ports import Embedder

FACT_TYPES = ("fact", "opinion")


class GraphTools:
    def __init__(
        self, units: GraphUnits, embedder: Embedder | None, project: str, source: str = "user"
    ) -> None:
        self._units = units
        self._embedder = embedder
        self.project = project
        self.source = source
        self.seen: dict[str, Node] = {}
        self.stored: list[str] = []
        self.relations: dict[str, list[Any]] = {}

    def call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        handler = getattr(self, f"_tool_{name}", None)
        if handler is None:
            return {"error": f"unknown tool {name!r}"}
        try:
            return dict(handler(**{k: v for k, v in args.items() if v not in (None, "")}))
        except TypeError as exc:
            return {"error": f"bad arguments: {exc}"}
        except (GraphInputError, NodeNotFound, SupersedeRefused, ValueError) as exc:
            return {"error": str(exc)}

    def _keep(self, nodes: list[Node]) -> list[dict[str, Any]]:
        for node in nodes:
            self.seen.setdefault(node.id, node)
        return [
            {
                "id": n.id,
                "type": n.node_type,
                "content": n.content,
                "scope": n.scope,
                "valid_from": n.valid_from.isoformat() if n.valid_from else None,
            }
            for n in nodes
        ]

    def _vector(self, text: str) -> list[float] | None:
        return embed_all(self._embedder, [text])[0]

    def _search(
        self,
        query: str,
        types: tuple[str, ...],
        limit: int,
        entity_id: str | None = None,
        days: float | None = None,
    ) -> list[Node]:
        vector = self._vector(str(query))
        since = datetime.now(UTC) - timedelta(days=float(days)) if days else None
        with self._units() as uow:
            if vector is not None:
                return uow.graph.similar(self.project, vector, types, limit, entity_id=entity_id, since=since)
            return uow.graph.matching(self.project, str(query), types, limit)

    def _tool_search_entity(self, name: str) -> dict[str, Any]:
        with self._units() as uow:
            keys = [normalise_name(str(name)), *spellings(str(name))]
            found = uow.graph.find_entities(self.project, keys, 1)
            relations = uow.graph.relations([found[0].id], 15) if found else {}
        if not found:
            return {"found": False, "name": name}
        entity = found[0]
        rels = relations.get(entity.id, [])
        self.relations[entity.id] = rels
        self._keep([entity, *(r.other for r in rels)])
        return {
            "found": True,
            "id": entity.id,
            "name": entity.content,
            "subtype": entity.subtype,
            "relationships": [{"type": r.edge_type, "node": self._keep([r.other])[0]} for r in rels],
        }

    def _tool_get_relationships(self, entity_id: str) -> dict[str, Any]:
        with self._units() as uow:
            rels = uow.graph.relations([str(entity_id)], 25).get(str(entity_id), [])
        self.relations[str(entity_id)] = rels
        return {"relationships": [{"type": r.edge_type, "node": self._keep([r.other])[0]} for r in rels]}

    def _tool_search_facts(self, query: str, entity_id: str | None = None) -> dict[str, Any]:
        return {"results": self._keep(self._search(query, FACT_TYPES, 10, entity_id))}

    def _tool_search_events(
        self, query: str, entity_id: str | None = None, days: float | None = None
    ) -> dict[str, Any]:
        return {"results": self._keep(self._search(query, ("event",), 20, entity_id, days))}

    def _tool_search_processes(self, query: str, entity_id: str | None = None) -> dict[str, Any]:
        return {"results": self._keep(self._search(query, ("instruction",), 10, entity_id))}

    def _tool_get_instructions(
        self, topic: str | None = None, entity_id: str | None = None
    ) -> dict[str, Any]:
        return {
            "results": self._keep(
                self._search(topic or "rules instructions", ("instruction",), 15, entity_id)
            )
        }

    def _tool_store_memory(
        self,
        type: str,
        content: str,
        subtype: str | None = None,
        valid_from: str | None = None,
        entity_ids: list[str] | None = None,
        edge_type: str = "about",
        salience: float = 1.0,
        source: str | None = None,
        scope: float | None = None,
        related_ids: list[str] | None = None,
        aliases: list[str] | None = None,
    ) -> dict[str, Any]:
        if str(type) == "entity":
            return self._store_entity(str(content), subtype, [str(a) for a in aliases or []])
        when = datetime.fromisoformat(valid_from).replace(tzinfo=UTC) if valid_from else None
        draft = NodeDraft(
            self.project,
            str(type),
            str(content),
            subtype,
            salience=float(salience),
            # The model may name the speaker, never lift untrusted text to trusted.
            source=(source or self.source) if is_trusted(self.source) else self.source,
            valid_from=when,
            scope=scope,
        ).checked()
        vector = self._vector(draft.content)
        with self._units() as uow:
            node = uow.graph.insert_node(draft, vector)
            for target in [*(entity_ids or []), *(related_ids or [])]:
                other = uow.graph.get_node(str(target))
                if other is None or other.project != self.project:
                    raise NodeNotFound(f"no node {target} in this project")
                uow.graph.add_edge(node.id, other.id, check_edge(node.id, other.id, edge_type or "about"))
            uow.commit()
        self.stored.append(node.id)
        return {"stored": True, "id": node.id}

    def _store_entity(self, name: str, subtype: str | None, aliases: list[str]) -> dict[str, Any]:
        """An entity is one per normalised name (or alias): storing it again adds its aliases."""
        draft = NodeDraft(self.project, "entity", name, subtype).checked()
        vector = self._vector(draft.content)
        with self._units() as uow:
            node = uow.graph.upsert_entity(self.project, draft.content, draft.subtype, vector, aliases,
                                           source=self.source, trusted=is_trusted(self.source))
            uow.commit()
        self._keep([node])
        return {"stored": True, "id": node.id, "aliases": node.attributes.get("aliases", [])}

    def _tool_supersede_memory(self, old_id: str, new_content: str) -> dict[str, Any]:
        with self._units() as uow:
            old = uow.graph.get_node(str(old_id))
            if old is None or old.project != self.project:
                raise NodeNotFound(f"no node {old_id} in this project")
            draft = NodeDraft(
                self.project,
                old.node_type,
                str(new_content),
                old.subtype,
                source=self.source,
                scope=old.scope,
            ).checked()
        vector = self._vector(draft.content)
        with self._units() as uow:
            node = uow.graph.insert_node(draft, vector)
            uow.graph.supersede(old.id, node.id)
            uow.commit()
        self.stored.append(node.id)
        return {"superseded": old.id, "id": node.id}

    def _tool_done(self, stored_count: float = 0) -> dict[str, Any]:
        return {"done": True}
