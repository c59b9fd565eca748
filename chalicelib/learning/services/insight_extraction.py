"""Extract a session's insights and rules, store them, and promote lessons: once per session id.

Which extractor runs: the LLM when one is configured and the day's budget allows the call;
otherwise (no key, over budget, failure, unusable answer) the heuristic extractor. The answer
says which (`extractor`). The conversation is redacted before any extractor sees it.

Where it runs (`submit`): with an LLM configured, the request is put on the `ingest` queue and
answered at once with `queued: true` (the consumer calls `run`); without one, the heuristic
runs inline (milliseconds) and the answer carries the counts. A session already extracted is
answered from its stored result with `replayed: true`, and nothing changes.

A transcript of something that failed (`hypothetical`: a failed task attempt) proves nothing it
says: every insight and rule found in it is stored as a `hypothesis` memory (`metadata.kind` the
insight's category, or `rule`), never as a fact, a rule or a lesson. Hypotheses are searched only
when asked for by name (`ON_REQUEST_CATEGORIES`), so they are never injected as facts.

Idempotency: the session's claim, its memories, rules, lessons and stored result commit in one
transaction; a concurrent duplicate waits on the claim and then answers the stored result.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from chalicelib.kernel.logging import get_logger
from chalicelib.learning.domain import heuristic_extractor
from chalicelib.learning.domain.insights import (
    Extraction,
    Insight,
    RuleCandidate,
    extraction_from_answer,
    hypotheses,
    lessons_to_promote,
)
from chalicelib.learning.services.insight_prompt import SCHEMA, SYSTEM, user_prompt
from chalicelib.learning.services.lessons import Lessons
from chalicelib.learning.services.ports import LearningUnits, MemoryWriter, Redact, TextEmbedder
from chalicelib.learning.services.project_rules import ProjectRules
from chalicelib.llm.services.ports import LanguageModel
from chalicelib.memory.domain.memory_model import MemoryDraft

CONSUMER = "extract-insights"
MAX_QUEUED_BYTES = 250_000  # SQS takes 256 KiB per message; larger sessions run inline


@dataclass(frozen=True)
class SessionTranscript:
    session_id: str
    project: str
    conversation_text: str
    files_changed: tuple[str, ...] = ()
    summary: str | None = None
    duration_ms: int | None = None
    source: str = "session"  # or "task": a finished task read as a conversation (task_lessons)
    hypothetical: bool = False  # the work failed: what it found is a hypothesis, not a fact

    def to_message(self) -> dict[str, Any]:
        session = {**asdict(self), "files_changed": list(self.files_changed)}
        return {"kind": "extract_insights", "session": session}

    @classmethod
    def from_message(cls, body: dict[str, Any]) -> SessionTranscript:
        s = body["session"]
        files = tuple(str(f) for f in s.get("files_changed") or ())
        return cls(str(s["session_id"]), str(s["project"]), str(s["conversation_text"]), files,
                   s.get("summary"), s.get("duration_ms"), str(s.get("source") or "session"),
                   bool(s.get("hypothetical")))


class InsightExtraction:
    def __init__(self, units: LearningUnits, llm: LanguageModel, embedder: TextEmbedder, redact: Redact,
                 rules: ProjectRules, lessons: Lessons, memory: MemoryWriter,
                 enqueue: Callable[[dict[str, Any]], object] | None = None) -> None:
        self._units, self._llm, self._embedder, self._redact = units, llm, embedder, redact
        self._rules, self._lessons, self._memory, self._enqueue = rules, lessons, memory, enqueue

    def submit(self, t: SessionTranscript) -> dict[str, Any]:
        """Answer the extract-insights request: stored result, queued, or extracted inline."""
        stored = self.stored(t.session_id)
        if stored is not None:
            return {**stored, "replayed": True}
        message = t.to_message()
        if self._llm.enabled and self._enqueue is not None and \
                len(json.dumps(message).encode()) <= MAX_QUEUED_BYTES:
            try:
                self._enqueue(message)
            except Exception:  # no queue to hand it to: do the work now rather than lose it
                get_logger().exception("ingest queue unavailable; extracting inline",
                                       extra={"session_id": t.session_id})
                return self.run(t)
            return {"success": True, "queued": True, "replayed": False, "session_id": t.session_id,
                    "extractor": "llm", "significance": None, "insights_stored": 0, "rlm_promoted": 0,
                    "rules_stored": 0, "rules_reinforced": 0, "rules_superseded": 0}
        return self.run(t)

    def stored(self, session_id: str) -> dict[str, Any] | None:
        with self._units() as uow:
            return uow.extractions.get(session_id)

    def run(self, t: SessionTranscript) -> dict[str, Any]:
        """Extract and store unless this session was done already (then its stored result)."""
        stored = self.stored(t.session_id)
        if stored is not None:
            return {**stored, "replayed": True}
        clean = SessionTranscript(t.session_id, t.project, self._redact(t.conversation_text),
                                  t.files_changed, self._redact(t.summary) if t.summary else None,
                                  t.duration_ms, t.source, t.hypothetical)
        return self.store(clean, self.extract(clean))

    def extract(self, t: SessionTranscript) -> Extraction:
        if self._llm.enabled:
            answer = self._llm.complete_json(
                "extract_insights", SYSTEM,
                user_prompt(t.project, t.conversation_text, t.files_changed, t.summary),
                SCHEMA, max_tokens=1200, temperature=0.2)
            extraction = extraction_from_answer(answer, len(t.conversation_text.splitlines())) \
                if answer is not None else None
            if extraction is not None:
                return extraction
            get_logger().info("insight extraction falls back to the heuristic extractor",
                              extra={"session_id": t.session_id})
        return heuristic_extractor.extract(t.conversation_text, len(t.files_changed), t.duration_ms)

    def store(self, t: SessionTranscript, extraction: Extraction) -> dict[str, Any]:
        insights = [Insight(i.category, " ".join(self._redact(i.content).split()), i.lines)
                    for i in extraction.insights]
        insights = [i for i in insights if i.content]
        rules = [RuleCandidate(self._rules.clean(r.rule), r.confidence, r.lines) for r in extraction.rules]
        rules = [r for r in rules if r.rule]
        kinds = {i.content: i.category for i in insights}
        if t.hypothetical:  # nothing a failure says is known: no facts, rules or lessons from it
            insights, kinds = hypotheses(insights, rules)
            rules = []
        vectors = self._embedder.embed([i.content for i in insights] + [r.rule for r in rules]) \
            if insights or rules else []
        by_text = dict(zip([i.content for i in insights] + [r.rule for r in rules], vectors, strict=True))
        model = self._embedder.model
        drafts = self._memory.prepare([MemoryDraft(
            project=t.project, category=i.category, content=i.content, embedding=by_text[i.content],
            embedding_model=model, significance=extraction.significance,
            metadata={"source": f"{t.source}_insight", "extractor": extraction.extractor,
                      **({"kind": kinds[i.content]} if t.hypothetical else {}),
                      "significance": extraction.significance, "transcript_lines": list(i.lines)},
            session_id=t.session_id, source_ids=tuple(f"line:{n}" for n in i.lines)) for i in insights])
        with self._units() as uow:
            stored = uow.extractions.get(t.session_id)
            if stored is not None or not uow.claims.claim(CONSUMER, t.session_id):
                return {**(stored or uow.extractions.get(t.session_id) or {}), "replayed": True}
            written = self._memory.write(uow, drafts, near_dedup=False)
            absorbed = [self._rules.absorb(uow, t.project, r, by_text[r.rule], source=t.source,
                                           session_id=t.session_id) for r in rules]
            outcomes = [a.outcome for a in absorbed]
            promoted = [self._lessons.promote(uow, t.project, i, kind, by_text[i.content], model,
                                              session_id=t.session_id, significance=extraction.significance,
                                              source=t.source)
                        for i, kind in lessons_to_promote(Extraction(extraction.significance, tuple(insights),
                                                                     (), extraction.extractor))]
            result = {"success": True, "session_id": t.session_id, "significance": extraction.significance,
                      "insights_stored": sum(not w.deduplicated for w in written),
                      "rlm_promoted": len(promoted),
                      "rules_stored": len(outcomes) - outcomes.count("reinforced"),
                      "rules_reinforced": outcomes.count("reinforced"),
                      "rules_superseded": outcomes.count("superseded"),
                      "extractor": extraction.extractor, "queued": False}
            uow.extractions.save(t.session_id, t.project, extraction.extractor, extraction.significance,
                                 result)
            uow.commit()
        self._rules.announce(absorbed)
        get_logger().info("session insights stored", extra={"session_id": t.session_id, **{
            k: result[k] for k in ("extractor", "insights_stored", "rules_stored", "rules_reinforced",
                                   "rules_superseded", "rlm_promoted")}})
        return {**result, "replayed": False}
