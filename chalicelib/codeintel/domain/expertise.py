"""A repository's expertise document: areas, key files, conventions and recent decisions.

`document` is the deterministic version; the worker asks the model to write the same facts as
prose when it can, and falls back to this."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

KEY_FILES = 8
AREAS = 5


@dataclass(frozen=True)
class RepoFacts:
    project: str
    files: tuple[tuple[str, int], ...]  # (path, edits), most edited first
    rules: tuple[str, ...]
    decisions: tuple[str, ...]
    sessions: int

    @property
    def areas(self) -> list[tuple[str, int]]:
        counts: Counter[str] = Counter()
        for path, edits in self.files:
            parts = path.strip("/").split("/")
            counts[parts[0] + "/" if len(parts) > 1 else "(root)"] += edits
        return counts.most_common(AREAS)

    def as_prompt(self) -> str:
        return document(self)


def facts_from(
    project: str,
    file_counts: Sequence[tuple[str, int]],
    rules: Sequence[str],
    decisions: Sequence[str],
    sessions: int,
) -> RepoFacts:
    ranked = sorted(file_counts, key=lambda fc: (-fc[1], fc[0]))
    return RepoFacts(project, tuple(ranked[:50]), tuple(rules[:5]), tuple(decisions[:5]), sessions)


def document(facts: RepoFacts) -> str:
    lines = [f"Repository expertise for {facts.project} (from {facts.sessions} sessions)"]
    if facts.areas:
        lines.append("Areas: " + ", ".join(f"{a} ({n} edits)" for a, n in facts.areas))
    if facts.files:
        lines.append("Key files: " + ", ".join(p for p, _ in facts.files[:KEY_FILES]))
    if facts.rules:
        lines.append("Conventions: " + "; ".join(facts.rules))
    if facts.decisions:
        lines.append("Recent decisions: " + "; ".join(facts.decisions))
    return "\n".join(lines)
