"""Project rules: absorbed from sessions (deduplicated), taught by the user, served to SessionStart.

A candidate rule is compared with the project's live rules by embedding similarity. Above
`RULE_DEDUP_SIMILARITY` (0.85) the closest one is reconciled with it by the memory core's rule
(`dedup_guard.reconcile`): a consistent statement reinforces it (times_reinforced + 1,
last_reinforced_at, confidence raised to the candidate's if higher, wording replaced when the
candidate is more specific); a contradiction ("use npm, not yarn" after "use yarn, not npm",
0.99 alike to an embedder) or a changed fact never does: the candidate is stored and supersedes
the old rule when it is at least as confident (a user's teaching always is), or is stored
flagged (`metadata.contradicts`) beside a more confident one. Otherwise it is stored as a new
`project_rule` memory. New rules go through the memory core's write path (the very same
wording, already stored, is reinforced there, takes the candidate's confidence and is live
again if a later rule had retired it).

A rule no person stated and no pipeline may trust (one sent with a machine or client key, or
one that reads as a directive to the model: `memory.domain.provenance`) is a proposal: stored
quarantined, never reconciled with the live rules (it reinforces, rewords, supersedes and revives
none of them), served as a rule only once a person promotes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from chalicelib.kernel.errors import InvalidInput
from chalicelib.kernel.logging import get_logger
from chalicelib.learning.domain.insights import RuleCandidate
from chalicelib.learning.domain.learned_item import LearnedItem
from chalicelib.learning.domain.lesson_confidence import TAUGHT
from chalicelib.learning.domain.rule_wording import as_rule, more_specific
from chalicelib.learning.services.ports import (
    LearningUnitOfWork,
    LearningUnits,
    MemoryWriter,
    Redact,
    TextEmbedder,
)
from chalicelib.memory.domain.dedup_guard import reconcile
from chalicelib.memory.domain.memory_model import MemoryDraft, content_hash
from chalicelib.memory.domain.provenance import Writer, trusted_on_write

RULE_DEDUP_SIMILARITY = 0.85
MAX_LEARNINGS = 15
CATEGORY = "project_rule"


@dataclass(frozen=True)
class Absorbed:
    id: str
    outcome: Literal["stored", "reinforced", "superseded", "flagged", "proposed"]
    replaces: str | None = None  # the rule it superseded or contradicts


class ProjectRules:
    def __init__(self, units: LearningUnits, embedder: TextEmbedder, redact: Redact,
                 memory: MemoryWriter) -> None:
        self._units = units
        self._embedder = embedder
        self._redact = redact
        self._memory = memory

    def clean(self, text: str) -> str:
        """Redacted, one line, imperative wording without lead-ins or trailing punctuation."""
        return as_rule(self._redact(text))

    def absorb(self, uow: LearningUnitOfWork, project: str, candidate: RuleCandidate, embedding: list[float],
               *, source: str, session_id: str | None = None, writer: Writer = "pipeline") -> Absorbed:
        """Reinforce the matching rule, supersede a contradicted one, or store a new one (caller's uow);
        a rule that may not be trusted is stored as a proposal beside them."""
        if not trusted_on_write("unspecified", writer, candidate.rule):
            return self._store(uow, project, candidate, embedding, source, session_id, None, writer)
        closest = uow.learned.nearest(project, CATEGORY, embedding)
        if closest is None or closest.similarity <= RULE_DEDUP_SIMILARITY:
            return self._store(uow, project, candidate, embedding, source, session_id, None, writer)
        verdict = reconcile(candidate.rule, closest.content, new_trust=candidate.confidence,
                            old_trust=closest.confidence)
        if verdict == "reinforce":
            reword = more_specific(candidate.rule, closest.content) and not uow.learned.hash_taken(
                project, CATEGORY, candidate.rule)
            uow.memories.reinforce(closest.id)
            uow.memories.update_fields(closest.id, confidence=max(closest.confidence, candidate.confidence))
            if reword:
                uow.memories.update_content(closest.id, content=candidate.rule, summary=None,
                                            content_hash=content_hash(CATEGORY, candidate.rule),
                                            embedding=embedding, embedding_model=self._embedder.model)
            return Absorbed(closest.id, "reinforced")
        absorbed = self._store(uow, project, candidate, embedding, source, session_id,
                               closest.id if verdict == "flag" else None, writer)
        if absorbed.id == closest.id:  # the very same wording: a restatement, never its own successor
            return absorbed
        if verdict == "supersede":
            uow.memories.update_fields(closest.id, superseded_by=absorbed.id)
            return Absorbed(absorbed.id, "superseded", closest.id)
        if absorbed.outcome == "stored":
            get_logger().info("rule stored beside a more confident rule it contradicts",
                              extra={"project": project, "rule_id": absorbed.id, "contradicts": closest.id})
            return Absorbed(absorbed.id, "flagged", closest.id)
        return absorbed

    def _store(self, uow: LearningUnitOfWork, project: str, candidate: RuleCandidate, embedding: list[float],
               source: str, session_id: str | None, contradicts: str | None, writer: Writer) -> Absorbed:
        metadata: dict[str, Any] = {"source": source, "first_seen": datetime.now(UTC).isoformat(),
                                    "transcript_lines": list(candidate.lines)}
        if contradicts is not None:
            metadata["contradicts"] = contradicts
        draft = MemoryDraft(
            project=project, category=CATEGORY, content=candidate.rule, embedding=embedding,
            embedding_model=self._embedder.model, significance=0.7, confidence=candidate.confidence,
            metadata=metadata, session_id=session_id, source_ids=tuple(f"line:{n}" for n in candidate.lines),
            writer=writer)
        (prepared,) = self._memory.prepare([draft])
        (stored,) = self._memory.write(uow, [prepared], near_dedup=False)
        if not prepared.trusted:  # a proposal: the same wording already stored is left as it is
            return Absorbed(stored.id, "reinforced" if stored.deduplicated else "proposed")
        if not stored.deduplicated:
            return Absorbed(stored.id, "stored")
        # The very same wording is stored already (one the vector search did not reach, or one a
        # later rule retired): it is stated again, so it takes this confidence and is live again.
        uow.memories.update_fields(stored.id, confidence=candidate.confidence)
        uow.memories.revive(stored.id)
        return Absorbed(stored.id, "reinforced")

    def teach(self, project: str, rule: str, *, writer: Writer = "person") -> dict[str, Any]:
        """Store a rule the user states explicitly (the /learn command), at confidence 0.95; sent
        with a key that does not speak for a person, it is a proposal until a person promotes it."""
        text = self.clean(rule)
        if not text:
            raise InvalidInput("rule must not be empty", field="rule")
        (embedding,) = self._embedder.embed([text])
        with self._units() as uow:
            absorbed = self.absorb(uow, project, RuleCandidate(text, TAUGHT), embedding, source="user",
                                   writer=writer)
            stored = uow.learned.get(absorbed.id)
            uow.commit()
        assert stored is not None
        return {"id": absorbed.id, "outcome": absorbed.outcome, "replaces": absorbed.replaces,
                **_rule_view(stored)}

    def learnings(self, project: str, limit: int = MAX_LEARNINGS) -> list[dict[str, Any]]:
        """Rules by confidence x times_reinforced, at most 15."""
        with self._units() as uow:
            rules = uow.learned.rules(project, max(1, min(limit, MAX_LEARNINGS)))
        return [{"id": r.id, **_rule_view(r)} for r in rules]


def _rule_view(r: LearnedItem) -> dict[str, Any]:
    return {"rule": r.content, "confidence": r.confidence, "times_reinforced": r.times_reinforced,
            "last_reinforced": r.last_reinforced_at.isoformat(),
            "source": r.metadata.get("source", "session")}
