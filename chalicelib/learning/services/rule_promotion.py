"""Promote a rule learned in one project to a namespace it belongs to, so that every member reads it.

The rule is stated again in the namespace's scope (`ns:<name>`) with its confidence, through the
memory core's write path (the very same wording already there is reinforced instead), marked with
where it came from and who promoted it; the project's own copy is retired (superseded by the
namespace's), so the project reads the rule once, from the namespace. A person promotes: the
namespace's copy is written as theirs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from chalicelib.contracts.memory_scopes import namespace_of, namespace_scope
from chalicelib.kernel.errors import Conflict, InvalidInput, NotFound
from chalicelib.learning.services.ports import LearningUnits, MemoryWriter, TextEmbedder
from chalicelib.memory.domain.memory_model import MemoryDraft

CATEGORY = "project_rule"


class RulePromotion:
    def __init__(self, units: LearningUnits, embedder: TextEmbedder, memory: MemoryWriter,
                 members: Callable[[str], Sequence[str]]) -> None:
        self._units = units
        self._embedder = embedder
        self._memory = memory
        self._members = members  # a namespace's member projects (NotFound for no such namespace)

    def promote(self, rule_id: str, namespace: str, *, by: str) -> dict[str, Any]:
        """Move the live rule `rule_id` of a member project up to `namespace`; answer the namespace's rule."""
        members = set(self._members(namespace))
        with self._units() as uow:
            rule = uow.memories.get(rule_id)
            if rule is None or rule.category != CATEGORY:
                raise NotFound(f"no rule {rule_id}", field="rule_id")
            if namespace_of(rule.project) is not None:
                raise InvalidInput(f"rule {rule_id} is a rule of a namespace already", field="rule_id")
            if rule.project not in members:
                raise InvalidInput(f"rule {rule_id} belongs to {rule.project}, which is not in the namespace "
                                   f"{namespace!r}", field="rule_id")
            if rule.superseded_by is not None:
                raise Conflict(f"rule {rule_id} was replaced by {rule.superseded_by}: promote that one",
                               field="rule_id")
            (embedding,) = self._embedder.embed([rule.content])
            draft = MemoryDraft(
                project=namespace_scope(namespace), category=CATEGORY, content=rule.content,
                embedding=embedding, embedding_model=self._embedder.model, significance=rule.significance,
                confidence=rule.confidence,
                metadata={"source": rule.metadata.get("source", "session"), "promoted_by": by,
                          "promoted_at": datetime.now(UTC).isoformat(),
                          "promoted_from": {"project": rule.project, "id": rule.id}},
                writer="person")
            (prepared,) = self._memory.prepare([draft])
            (stored,) = self._memory.write(uow, [prepared], near_dedup=False)
            uow.memories.update_fields(rule.id, superseded_by=stored.id)
            promoted = uow.learned.get(stored.id)
            uow.commit()
        assert promoted is not None
        return {"id": promoted.id, "namespace": namespace, "project": promoted.project,
                "rule": promoted.content,
                "confidence": promoted.confidence, "times_reinforced": promoted.times_reinforced,
                "promoted_from": {"project": rule.project, "id": rule.id},
                "outcome": "reinforced" if stored.deduplicated else "promoted"}
