"""An instruction as the one instruction store lists it: a rule or guideline with its scope and
its history (when it was stated, when it stopped being live, what replaced it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from chalicelib.contracts.memory_scopes import namespace_of
from chalicelib.memory.domain.memory_model import INSTRUCTION_CATEGORIES

__all__ = ["INSTRUCTION_CATEGORIES", "Instruction", "scope_of"]
GLOBAL_PROJECT = "_global"
SCOPES = ("global", "namespace", "project", "path", "language")


def scope_of(project: str, metadata: dict[str, Any]) -> str:
    """`global` for the `_global` project, `namespace:acme` for the namespace acme's, else the rule's
    `path:...` / `language:...` scope or `project`."""
    if project == GLOBAL_PROJECT:
        return "global"
    if namespace_of(project):
        return f"namespace:{namespace_of(project)}"
    scope = metadata.get("scope")
    if isinstance(scope, str) and scope.split(":", 1)[0] in ("path", "language") and ":" in scope:
        return scope
    return "project"


@dataclass(frozen=True)
class Instruction:
    id: str
    project: str
    category: str
    text: str
    scope: str
    source: str
    confidence: float
    times_reinforced: int
    last_reinforced_at: datetime
    valid_from: datetime
    valid_until: datetime | None
    superseded_by: str | None
    metadata: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id, "project": self.project, "text": self.text, "scope": self.scope,
            "source": self.source,
            "valid_from": self.valid_from.isoformat(),
            "valid_until": self.valid_until.isoformat() if self.valid_until else None,
            "times_reinforced": self.times_reinforced, "superseded_by": self.superseded_by,
            "category": self.category, "confidence": self.confidence,
            "last_reinforced": self.last_reinforced_at.isoformat(),
        }
        if self.metadata.get("graph_node"):  # stated in a prompt: its node in the graph
            out["graph_node"] = self.metadata["graph_node"]
        if self.metadata.get("import_path"):
            out["file"] = {"path": self.metadata["import_path"], "line": self.metadata.get("import_line")}
        return out
