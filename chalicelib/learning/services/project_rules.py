"""Project rules: absorbed from sessions (deduplicated), taught by the user, served to SessionStart.

A candidate rule is compared with the project's live rules by embedding similarity. Above
`RULE_DEDUP_SIMILARITY` (0.85) it reinforces the closest one (times_reinforced + 1,
last_reinforced_at, confidence raised to the candidate's if higher, wording replaced when the
candidate is more specific); otherwise it is stored as a new `project_rule` memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from chalicelib.kernel.database import Database
from chalicelib.kernel.errors import InvalidInput
from chalicelib.learning.adapters.learning_memory_repository import Conn, LearningMemoryRepository, NewMemory
from chalicelib.learning.domain.insights import RuleCandidate
from chalicelib.learning.domain.lesson_confidence import TAUGHT
from chalicelib.learning.domain.rule_wording import as_rule, more_specific
from chalicelib.learning.services.ports import Redact, TextEmbedder

RULE_DEDUP_SIMILARITY = 0.85
MAX_LEARNINGS = 15
CATEGORY = "project_rule"


@dataclass(frozen=True)
class Absorbed:
    id: str
    outcome: Literal["stored", "reinforced"]


class ProjectRules:
    def __init__(self, db: Database, embedder: TextEmbedder, redact: Redact,
                 memories: LearningMemoryRepository | None = None) -> None:
        self._db = db
        self._embedder = embedder
        self._redact = redact
        self._memories = memories or LearningMemoryRepository()

    def clean(self, text: str) -> str:
        """Redacted, one line, imperative wording without lead-ins or trailing punctuation."""
        return as_rule(self._redact(text))

    def absorb(self, conn: Conn, project: str, candidate: RuleCandidate, embedding: list[float], *,
               source: str, session_id: str | None = None) -> Absorbed:
        """Reinforce the matching rule or store a new one, inside the caller's transaction."""
        closest = self._memories.nearest(conn, project, CATEGORY, embedding)
        if closest is not None and closest.similarity > RULE_DEDUP_SIMILARITY:
            reword = more_specific(candidate.rule, closest.content) and not self._memories.hash_taken(
                conn, project, CATEGORY, candidate.rule)
            self._memories.reinforce(
                conn, closest.id, CATEGORY, confidence=max(closest.confidence, candidate.confidence),
                content=candidate.rule if reword else None, embedding=embedding if reword else None,
                embedding_model=self._embedder.model if reword else None)
            return Absorbed(closest.id, "reinforced")
        memory_id, created = self._memories.insert(conn, NewMemory(
            project=project, category=CATEGORY, content=candidate.rule, embedding=embedding,
            embedding_model=self._embedder.model, significance=0.7, confidence=candidate.confidence,
            metadata={"source": source, "first_seen": datetime.now(UTC).isoformat(),
                      "transcript_lines": list(candidate.lines)},
            session_id=session_id, source_ids=tuple(f"line:{n}" for n in candidate.lines)))
        if not created:  # the very same wording (a hash match the vector search did not reach)
            self._memories.reinforce(conn, memory_id, CATEGORY, confidence=candidate.confidence)
            return Absorbed(memory_id, "reinforced")
        return Absorbed(memory_id, "stored")

    def teach(self, project: str, rule: str) -> dict[str, Any]:
        """Store a rule the user states explicitly (the /learn command), at confidence 0.95."""
        text = self.clean(rule)
        if not text:
            raise InvalidInput("rule must not be empty", field="rule")
        (embedding,) = self._embedder.embed([text])
        with self._db.connection() as conn:
            absorbed = self.absorb(conn, project, RuleCandidate(text, TAUGHT), embedding, source="user")
            stored = self._memories.get(conn, absorbed.id)
        assert stored is not None
        return {"id": absorbed.id, "outcome": absorbed.outcome, **_rule_view(stored)}

    def learnings(self, project: str, limit: int = MAX_LEARNINGS) -> list[dict[str, Any]]:
        """Rules by confidence x times_reinforced, at most 15."""
        with self._db.connection() as conn:
            rules = self._memories.rules(conn, project, max(1, min(limit, MAX_LEARNINGS)))
        return [{"id": r.id, **_rule_view(r)} for r in rules]


def _rule_view(r: Any) -> dict[str, Any]:
    return {"rule": r.content, "confidence": r.confidence, "times_reinforced": r.times_reinforced,
            "last_reinforced": r.last_reinforced_at.isoformat(),
            "source": r.metadata.get("source", "session")}
