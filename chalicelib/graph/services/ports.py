"""What the graph services need: the graph's tables bound to one unit of work, and the models.

`GraphRepository` is the Postgres adapter's face (`adapters/graph_repository.py`); `GraphUnits`
makes units of work exposing it. Nodes found by a vector search carry their cosine similarity in
`score`. Every read of "live" nodes leaves superseded ones out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Protocol

from chalicelib.graph.domain.graph_model import Contradiction, Node, NodeDraft, Relation
from chalicelib.kernel.unit_of_work import UnitOfWork

Vector = Sequence[float]


class NodeNotFound(LookupError):
    """No node (or contradiction, or trace) with that id in that project."""


class SupersedeRefused(ValueError):
    """The supersede would break the chain (a node already superseded, itself, another project)."""


class GraphRepository(Protocol):
    def claim(self, key: str) -> bool:
        """Record that the store pipeline ran for `key`; False if it already had."""
        ...

    def upsert_entity(
        self,
        project: str,
        name: str,
        subtype: str | None,
        embedding: Vector | None,
        aliases: Sequence[str] = (),
        *,
        source: str = "user",
        trusted: bool = True,
    ) -> Node:
        """The entity called `name` or answering to it as an alias (created if none), with
        `aliases` and the name's other spellings added to `attributes.aliases`. It keeps the
        source that first named it; once trusted text names it, it is trusted."""
        ...

    def insert_node(self, draft: NodeDraft, embedding: Vector | None) -> Node: ...

    def get_node(self, node_id: str) -> Node | None: ...

    def add_edge(
        self, source_id: str, target_id: str, edge_type: str, attributes: dict[str, Any] | None = None
    ) -> bool:
        """Join two nodes (an existing identical edge is kept); False if it existed."""
        ...

    def supersede(self, old_id: str, new_id: str) -> None:
        """Point `old_id` at `new_id`, close its validity and copy its edges to the new node."""
        ...

    def find_entities(self, project: str, keys: Sequence[str], limit: int) -> list[Node]:
        """Live entities whose normalised name or an alias is one of `keys`."""
        ...

    def list_entities(self, project: str, limit: int, prefix: str | None = None) -> list[Node]: ...

    def relations(self, node_ids: Sequence[str], per_node: int) -> dict[str, list[Relation]]:
        """Each node's edges to live nodes, most salient first, at most `per_node` each."""
        ...

    def similar(
        self,
        project: str,
        embedding: Vector,
        types: Sequence[str],
        limit: int,
        *,
        min_scope: float | None = None,
        entity_id: str | None = None,
        since: datetime | None = None,
    ) -> list[Node]:
        """Live nodes of `types` nearest to `embedding` (optionally linked to one entity)."""
        ...

    def fast_candidates(
        self,
        project: str,
        embedding: Vector,
        *,
        instructions: int,
        broad_types: Sequence[str],
        broad: int,
        global_scope: float,
        global_limit: int,
    ) -> dict[str, list[Node]]:
        """The fast path's vector searches in one round trip: "instructions" (the nearest live
        instructions), "broad" (the nearest live nodes of `broad_types`), "global" (the nearest
        instructions of scope >= `global_scope`); each scored by cosine similarity."""
        ...

    def matching(self, project: str, words: str, types: Sequence[str], limit: int) -> list[Node]:
        """Live nodes of `types` whose content has the words (full text), for when no vector exists."""
        ...

    def add_contradiction(self, project: str, new_id: str, old_id: str, reason: str) -> str | None: ...

    def contradictions(self, project: str | None, status: str, limit: int) -> list[Contradiction]: ...

    def get_contradiction(self, contradiction_id: str) -> Contradiction | None: ...

    def close_contradiction(self, contradiction_id: str, status: str) -> None: ...

    def add_trace(self, project: str, kind: str, trace: dict[str, Any], keep_days: int) -> str: ...

    def get_trace(self, trace_id: str) -> dict[str, Any] | None: ...

    def count(self, project: str) -> dict[str, int]: ...


class GraphUnitOfWork(UnitOfWork, Protocol):
    graph: GraphRepository


GraphUnits = Callable[[], GraphUnitOfWork]


class LiveRules(Protocol):
    """The instruction store's word on the instructions a context shows (it owns which are live)."""

    def __call__(self, project: str, embedding: Vector,
                 shown: Sequence[str]) -> tuple[list[Node], dict[str, str | None]]:
        """The store's live rules nearest `embedding` (instruction nodes, id = the rule's, scored by
        cosine similarity) that none of the `shown` instruction nodes states, and the `shown` nodes a
        rule was stated as, each with its live rule's id (None: the store no longer holds it live)."""
        ...
