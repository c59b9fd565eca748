"""Flagged rules waiting for a person: a rule stored beside a live one it contradicts
(`metadata.contradicts`), quarantined until a person settles the clash as graph contradictions
are settled: Keep new (the flagged rule is live and supersedes the old one), Keep old (the flagged
rule is retired, superseded by the old one) or Keep both (the flagged rule is live beside it).
Each clash is settled once (`metadata.settled`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chalicelib.kernel.errors import Conflict, InvalidInput, NotFound
from chalicelib.learning.services.ports import LearningUnitOfWork, LearningUnits

RESOLUTIONS = ("keep_new", "keep_old", "keep_both")
MAX_LISTED = 50


@dataclass(frozen=True)
class RuleClash:
    """A flagged rule and the live rule it contradicts."""

    id: str
    project: str
    new: str
    old_id: str
    old: str
    reason: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "project": self.project, "new": {"id": self.id, "content": self.new},
                "old": {"id": self.old_id, "content": self.old}, "reason": self.reason}


class RuleClashes:
    def __init__(self, units: LearningUnits) -> None:
        self._units = units

    def open(self, project: str | None = None, limit: int = MAX_LISTED) -> list[RuleClash]:
        """The flagged rules still waiting for a person, newest first."""
        with self._units() as uow:
            flagged = uow.learned.open_clashes(project, max(1, min(limit, MAX_LISTED)))
            olds = {f.id: uow.learned.get(str(f.metadata["contradicts"])) for f in flagged}
        return [RuleClash(f.id, f.project, f.content, str(f.metadata["contradicts"]),
                          old.content if (old := olds[f.id]) else "",
                          str(f.metadata.get("flag_reason") or "")) for f in flagged]

    def settle(self, rule_id: str, resolution: str, *, by: str = "person") -> dict[str, Any]:
        """Settle the clash of the flagged rule `rule_id` once (NotFound, Conflict when settled)."""
        if resolution not in RESOLUTIONS:
            raise InvalidInput(f"resolution must be one of {', '.join(RESOLUTIONS)}", field="resolution")
        with self._units() as uow:
            flagged = uow.learned.get(rule_id, for_update=True)
            if flagged is None or not flagged.metadata.get("contradicts"):
                raise NotFound(f"no flagged rule {rule_id}")
            if flagged.metadata.get("settled"):
                raise Conflict(f"rule {rule_id} was already settled ({flagged.metadata['settled']})")
            self._apply(uow, rule_id, str(flagged.metadata["contradicts"]), resolution, by)
            uow.commit()
        return {"id": rule_id, "status": resolution, "project": flagged.project}

    def settle_stated(self, node_id: str, resolution: str, *, by: str = "person") -> dict[str, Any] | None:
        """Settle the open clash of the rule a prompt stated as graph node `node_id`, if there is one
        (a graph contradiction settled by a person settles its rules the same way)."""
        with self._units() as uow:
            flagged = uow.learned.flagged_from_node(node_id)
        return self.settle(flagged.id, resolution, by=by) if flagged is not None else None

    @staticmethod
    def _apply(uow: LearningUnitOfWork, rule_id: str, old_id: str, resolution: str, by: str) -> None:
        if resolution == "keep_old":
            uow.memories.update_fields(rule_id, superseded_by=old_id, metadata={"settled": resolution})
            return
        uow.memories.promote(rule_id, by)
        uow.memories.update_fields(rule_id, metadata={"settled": resolution})
        if resolution == "keep_new":
            uow.memories.update_fields(old_id, superseded_by=rule_id)
