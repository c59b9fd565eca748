"""Integrity of a memory store (seed 003's `ltm_check` / `ltm_fix`): what is counted, what a fix may do.

Each check counts rows in one kind of trouble. A fix repairs only what is safe, never deleting a
text: vectors are recomputed, duplicates are superseded by the oldest copy (reversible), a
superseded chain that loops is opened at its newest member. What a fix cannot repair safely is
reported as left, with the reason. Checks other capabilities own (graph memory's orphan edges)
plug in as further `CheckResult`s; a check whose tables do not exist reports `None`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CHECKS: tuple[str, ...] = (
    "missing_embeddings",  # no vector (the embedder was down when it was stored)
    "foreign_model_vectors",  # a vector from another model than the deployment's
    "duplicate_contents",  # live memories of a project with the same text
    "superseded_loops",  # memories on a superseded_by chain that comes back to itself
    "orphan_archives",  # archive rows whose memory is gone
    "reduced_without_archive",  # a hint/abstract/archived memory whose original is not archived
    "orphan_edges",  # graph edges joining two projects' nodes (None where graph tables are absent)
)
UNFIXABLE: dict[str, str] = {
    "orphan_archives": "kept: an archive row is the only copy of its text (restore it by hand or delete it)",
    "reduced_without_archive": "the original text is not stored anywhere; nothing to restore from",
    "orphan_edges": "kept: which project the edge belongs to needs a person (itachi graph show)",
}


@dataclass
class IntegrityReport:
    project: str | None
    counts: dict[str, int | None] = field(default_factory=dict)
    fixed: dict[str, int] = field(default_factory=dict)
    left: dict[str, str] = field(default_factory=dict)

    @property
    def problems(self) -> int:
        return sum(v for v in self.counts.values() if v)

    def as_json(self) -> dict[str, object]:
        return {"project": self.project, "counts": self.counts, "problems": self.problems,
                "fixed": self.fixed, "left": self.left}
