"""Write what an extractor found: entities (one per normalised name), items linked to them by
`about` edges, and the links between entities. Vectors are computed in one batch; when the
embedder fails the nodes are stored without one (entity match still finds them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chalicelib.graph.domain.graph_model import GraphInputError, NodeDraft, check_edge
from chalicelib.graph.domain.heuristic_extractor import Extraction, Mention
from chalicelib.graph.domain.names import normalise_name
from chalicelib.graph.services.ports import GraphRepository
from chalicelib.kernel.logging import get_logger
from chalicelib.memory.domain.provenance import is_trusted
from chalicelib.memory.services.ports import Embedder


def embed_all(embedder: Embedder | None, texts: Sequence[str]) -> list[list[float] | None]:
    """One vector per text, or None for all of them when there is no embedder or it failed."""
    if embedder is None or not texts:
        return [None] * len(texts)
    try:
        return list(embedder.embed(list(texts)))
    except Exception as exc:  # the graph still stores; vector safety nets just miss these nodes
        get_logger().warning(
            "graph: embedding failed; nodes stored without vectors", extra={"error": str(exc)}
        )
        return [None] * len(texts)


def write_extraction(
    repo: GraphRepository,
    embedder: Embedder | None,
    project: str,
    found: Extraction,
    source: str = "user",
    origin: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Store `found` in `project`; answer what was written (ids by kind)."""
    names: dict[str, Mention] = {}
    for mention in found.entities:
        known = names.get(normalise_name(mention.name))
        aliases = (*known.aliases, *mention.aliases) if known else mention.aliases
        names[normalise_name(mention.name)] = Mention(mention.name, mention.subtype, aliases)
    for item in found.items:
        for name in item.entities:
            names.setdefault(normalise_name(name), Mention(name, "concept"))
    vectors = embed_all(embedder, [m.name for m in names.values()] + [i.content for i in found.items])
    entity_ids: dict[str, str] = {}
    for (key, mention), vector in zip(names.items(), vectors, strict=False):
        entity = repo.upsert_entity(project, mention.name, mention.subtype, vector, mention.aliases,
                                    source=source, trusted=is_trusted(source))
        entity_ids[key] = entity.id
    written: dict[str, Any] = {"entities": list(entity_ids.values()), "nodes": [], "edges": 0}
    for item, vector in zip(found.items, vectors[len(names) :], strict=False):
        attributes = {**(origin or {}), **({"pattern": item.pattern} if item.pattern else {})}
        draft = NodeDraft(
            project,
            item.node_type,
            item.content,
            item.subtype,
            source=source,
            valid_from=item.valid_from,
            scope=item.scope,
            attributes=attributes,
        ).checked()
        node = repo.insert_node(draft, vector)
        written["nodes"].append({"id": node.id, "type": node.node_type, "scope": node.scope})
        for name in item.entities:
            written["edges"] += repo.add_edge(node.id, entity_ids[normalise_name(name)], "about")
    for link in found.links:
        source_id, target_id = (
            entity_ids.get(normalise_name(link.source)),
            entity_ids.get(normalise_name(link.target)),
        )
        if source_id and target_id:
            try:
                written["edges"] += repo.add_edge(
                    source_id, target_id, check_edge(source_id, target_id, link.edge_type)
                )
            except GraphInputError:
                continue
    return written
