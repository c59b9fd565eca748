"""Reading and correcting the graph by hand: entities and their profiles, explicit supersedes and
edges, contradictions and their resolution, traces."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib.graph.domain.graph_model import Node, NodeDraft, check_edge
from chalicelib.graph.services.graph_writer import embed_all
from chalicelib.graph.services.ports import GraphUnits, NodeNotFound, SupersedeRefused
from chalicelib.memory.services.ports import Embedder

RESOLUTIONS = ("keep_new", "keep_old", "keep_both")


class ContradictionClosed(ValueError):
    """The contradiction was already resolved."""


class GraphAdmin:
    def __init__(self, units: GraphUnits, embedder: Embedder | None, *,
                 on_resolved: Callable[[str, str], Any] | None = None) -> None:
        self._on_resolved = on_resolved  # (the new node's id, resolution): its rule settled the same way
        self._units = units
        self._embedder = embedder

    def entities(self, project: str, limit: int, prefix: str | None = None) -> list[Node]:
        with self._units() as uow:
            return uow.graph.list_entities(project, limit, prefix)

    def profile(self, node_id: str, project: str | None = None) -> dict[str, Any]:
        with self._units() as uow:
            node = uow.graph.get_node(node_id)
            if node is None or (project is not None and node.project != project):
                raise NodeNotFound(f"no node {node_id}")
            relations = uow.graph.relations([node.id], 50).get(node.id, [])
        return {**node.as_json(), "relationships": [r.as_json() for r in relations]}

    def supersede(
        self, project: str, old_id: str, new_content: str | None, new_id: str | None, *, trusted: bool = True
    ) -> dict[str, Any]:
        """Replace `old_id` by a new node with `new_content` (untrusted unless a person wrote it), or by
        the existing node `new_id`."""
        with self._units() as uow:
            old = uow.graph.get_node(old_id)
            if old is None or old.project != project:
                raise NodeNotFound(f"no node {old_id} in project {project}")
            if new_id is None:
                draft = NodeDraft(
                    project,
                    old.node_type,
                    new_content or "",
                    old.subtype,
                    scope=old.scope,
                    attributes=old.attributes,
                    trusted=trusted,
                ).checked()
                vector = embed_all(self._embedder, [draft.content])[0]
                if not old.live:
                    raise SupersedeRefused(f"node {old_id} is already superseded by {old.superseded_by}")
                new_id = uow.graph.insert_node(draft, vector).id
            uow.graph.supersede(old_id, new_id)
            uow.commit()
        return {"old_id": old_id, "new_id": new_id}

    def link(self, project: str, source_id: str, target_id: str, edge_type: str) -> dict[str, Any]:
        kind = check_edge(source_id, target_id, edge_type)
        with self._units() as uow:
            for ident in (source_id, target_id):
                node = uow.graph.get_node(ident)
                if node is None or node.project != project:
                    raise NodeNotFound(f"no node {ident} in project {project}")
            created = uow.graph.add_edge(source_id, target_id, kind)
            uow.commit()
        return {"source_id": source_id, "target_id": target_id, "type": kind, "created": created}

    def contradictions(
        self, project: str | None, status: str = "open", limit: int = 50
    ) -> list[dict[str, Any]]:
        with self._units() as uow:
            return [c.as_json() for c in uow.graph.contradictions(project, status, limit)]

    def resolve(self, contradiction_id: str, resolution: str) -> dict[str, Any]:
        """keep_new: the old instruction is superseded; keep_old: the new one is; keep_both: closed."""
        if resolution not in RESOLUTIONS:
            raise ValueError(f"resolution must be one of {', '.join(RESOLUTIONS)}")
        with self._units() as uow:
            found = uow.graph.get_contradiction(contradiction_id)
            if found is None:
                raise NodeNotFound(f"no contradiction {contradiction_id}")
            if found.status != "open":
                raise ContradictionClosed(
                    f"contradiction {contradiction_id} was already resolved ({found.status})"
                )
            if resolution == "keep_new" and found.old.live:
                uow.graph.supersede(found.old.id, found.new.id)
            elif resolution == "keep_old" and found.new.live:
                uow.graph.supersede(found.new.id, found.old.id)
            uow.graph.close_contradiction(contradiction_id, resolution)
            uow.commit()
        if self._on_resolved is not None:
            self._on_resolved(found.new.id, resolution)
        return {"id": contradiction_id, "status": resolution, "project": found.project}

    def trace(self, trace_id: str) -> dict[str, Any]:
        with self._units() as uow:
            found = uow.graph.get_trace(trace_id)
        if found is None:
            raise NodeNotFound(f"no trace {trace_id} (traces are kept 7 days)")
        return found

    def counts(self, project: str) -> dict[str, int]:
        with self._units() as uow:
            return uow.graph.count(project)
