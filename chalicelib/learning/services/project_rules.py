"""The one instruction store: project rules, guidelines and the prompts' graph instructions as
one list with one reconciler and one history, served to MEMORY.md, SessionStart, prompts and MCP.

Every door writes through `absorb`: a prompt's graph instruction (mirrored here by the graph
store pipeline), `/learn` and `POST /api/project/rules` (`teach`), insight extraction, `itachi
remember --category project_rule`, MCP `memory_store` (`remember`), and rule files
(`import_file`). Categories (`project_rule`, `guideline`) are data; a rule's scope is global (the
`_global` project), project, or a path or language (`metadata.scope`).

A candidate is reconciled with the project's live rules (`domain/rule_reconciliation.py`): a
restatement or refinement reinforces the rule it repeats (times_reinforced + 1, confidence
raised to the candidate's if higher, wording replaced when the candidate is more specific); a
contradiction or a changed fact supersedes the old rule (`valid_until` = when the new one was
stated, `superseded_by`) when the candidate is at least as confident (a user's teaching always
is); an unclear clash, a less confident contradiction, or a file's rule against a rule from
elsewhere is flagged: stored beside it (`metadata.contradicts`) but not live until a person
promotes it. New rules go through the memory core's write path (the very same wording, already
stored, is reinforced there, takes the candidate's confidence and is live again if a later rule
had retired it).

A rule no person stated and no pipeline may trust (one sent with a machine or client key, or
one that reads as a directive to the model: `memory.domain.provenance`) is a proposal: stored
quarantined, never reconciled with the live rules (it reinforces, rewords, supersedes and revives
none of them), served as a rule only once a person promotes it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Literal

from chalicelib.kernel.errors import InvalidInput
from chalicelib.kernel.logging import get_logger
from chalicelib.learning.domain.insights import DEFAULT_RULE_CONFIDENCE, RuleCandidate
from chalicelib.learning.domain.instruction import GLOBAL_PROJECT
from chalicelib.learning.domain.learned_item import LearnedItem
from chalicelib.learning.domain.lesson_confidence import TAUGHT
from chalicelib.learning.domain.rule_levels import layered
from chalicelib.learning.domain.rule_reconciliation import NEAR_IDENTICAL, Decision, Known, StatedRule, decide
from chalicelib.learning.domain.rule_wording import as_rule, more_specific
from chalicelib.learning.services.ports import (
    LearningUnitOfWork,
    LearningUnits,
    MemoryWriter,
    Redact,
    TextEmbedder,
)
from chalicelib.learning.services.rule_clashes import RuleClash
from chalicelib.memory.domain.memory_model import MemoryDraft, StoredVectors, StoreResult, content_hash
from chalicelib.memory.domain.provenance import Writer, is_trusted, trusted_on_write

CANDIDATES = 6
MAX_LEARNINGS = 15
MAX_LISTED = 200
IMPORTED = 0.9  # a rule read from the project's rule files
STATED = 0.8  # a rule stored as a memory by a machine path (a proposal until promoted)
CATEGORY = "project_rule"
CONTEXT_RULES = 15  # as many as a graph context's instructions
CONTEXT_FLOOR = 0.2  # a rule less similar to the prompt than this is not about it


@dataclass(frozen=True)
class _Pending:
    """A rule on its way into the store."""

    project: str
    candidate: RuleCandidate
    embedding: list[float]
    source: str
    session_id: str | None
    writer: Writer
    category: str
    origin: dict[str, Any]
    provenance: str = "unspecified"  # the memory source of its text (`provenance.SOURCES`)


@dataclass(frozen=True)
class Absorbed:
    id: str
    outcome: Literal["stored", "reinforced", "superseded", "flagged", "proposed"]
    replaces: str | None = None  # the rule it superseded or contradicts
    clash: RuleClash | None = None  # flagged: what a person is asked to settle


class ProjectRules:
    def __init__(self, units: LearningUnits, embedder: TextEmbedder, redact: Redact,
                 memory: MemoryWriter, namespaces: Callable[[str], Sequence[str]] | None = None, *,
                 on_flagged: Callable[[RuleClash], None] | None = None) -> None:
        self._units = units
        self._embedder = embedder
        self._redact = redact
        self._memory = memory
        # The namespace scopes whose rules a project reads beside its own (none without namespaces).
        self._namespaces = namespaces or (lambda project: ())
        self._on_flagged = on_flagged

    def clean(self, text: str) -> str:
        """Redacted, one line, imperative wording without lead-ins or trailing punctuation."""
        return as_rule(self._redact(text))

    def absorb(self, uow: LearningUnitOfWork, project: str, candidate: RuleCandidate, embedding: list[float],
               *, source: str, session_id: str | None = None, writer: Writer = "pipeline",
               category: str = CATEGORY, origin: dict[str, Any] | None = None,
               provenance: str = "unspecified", judged: Decision | None = None) -> Absorbed:
        """Reinforce the matching rule, supersede a contradicted one, flag an unclear clash, or store a
        new one (caller's uow); a rule that may not be trusted is stored as a proposal beside them.
        `origin` is what the rule remembers of where it came from (`import_path`, `import_line`,
        `graph_node`, `scope`); `judged`: the verdict already given (the graph reconciler's on a
        prompt's rule)."""
        rule = _Pending(project, candidate, embedding, source, session_id, writer, category, origin or {},
                        "import" if source == "import" else provenance)
        if not trusted_on_write(rule.provenance, writer, candidate.rule):
            return self._store(uow, rule, None)
        decision = judged or decide(
            candidate.rule, candidate.confidence,
            [Known(k.id, k.content, k.similarity, k.confidence, k.metadata.get("import_path"))
             for k in uow.learned.similar_instructions(project, embedding, CANDIDATES)],
            file=rule.origin.get("import_path"), person=writer == "person")
        old = decision.old
        if decision.verdict == "new" or old is None:
            return self._store(uow, rule, None)
        if decision.verdict == "reinforce":
            return self._reinforce(uow, rule, old)
        absorbed = self._store(uow, rule, old.id if decision.verdict == "flag" else None, decision.reason)
        if absorbed.id == old.id:  # the very same wording: a restatement, never its own successor
            return absorbed
        if decision.verdict == "supersede":
            uow.memories.update_fields(old.id, superseded_by=absorbed.id)
            return Absorbed(absorbed.id, "superseded", old.id)
        if absorbed.outcome == "flagged":
            get_logger().info("rule flagged: it contradicts a live rule", extra={
                "project": project, "rule_id": absorbed.id, "contradicts": old.id, "reason": decision.reason})
            if judged is None:  # the graph announced its own verdict already
                clash = RuleClash(absorbed.id, project, candidate.rule, old.id, old.text, decision.reason)
                return replace(absorbed, clash=clash)
        return absorbed

    def announce(self, absorbed: Sequence[Absorbed]) -> None:
        """Ask a person about each flagged rule (`on_flagged`, once its transaction committed); a
        failed announcement is logged: the clash stays listed."""
        for clash in (a.clash for a in absorbed if a.clash is not None):
            if self._on_flagged is None:
                return
            try:
                self._on_flagged(clash)
            except Exception:
                get_logger().exception("rule clash announcement failed", extra={"rule_id": clash.id})

    def _reinforce(self, uow: LearningUnitOfWork, rule: _Pending, old: Known) -> Absorbed:
        text = rule.candidate.rule
        reword = more_specific(text, old.text) and not uow.learned.hash_taken(rule.project, rule.category,
                                                                              text)
        uow.memories.reinforce(old.id)
        uow.memories.update_fields(old.id, confidence=max(old.confidence, rule.candidate.confidence))
        if reword:
            uow.memories.update_content(old.id, content=text, summary=None,
                                        content_hash=content_hash(rule.category, text))
            uow.memories.set_embeddings([StoredVectors(old.id, rule.embedding)], self._embedder.model)
        return Absorbed(old.id, "reinforced")

    def _store(self, uow: LearningUnitOfWork, rule: _Pending, contradicts: str | None,
               reason: str = "") -> Absorbed:
        candidate = rule.candidate
        metadata: dict[str, Any] = {"source": rule.source, "first_seen": datetime.now(UTC).isoformat(),
                                    "transcript_lines": list(candidate.lines), **rule.origin}
        if contradicts is not None:
            metadata.update(contradicts=contradicts, flag_reason=reason)
        draft = MemoryDraft(
            project=rule.project, category=rule.category, content=candidate.rule, embedding=rule.embedding,
            embedding_model=self._embedder.model, significance=0.7, confidence=candidate.confidence,
            metadata=metadata, session_id=rule.session_id,
            source_ids=tuple(f"line:{n}" for n in candidate.lines),
            source=rule.provenance,
            # A flagged rule waits for a person as a proposal does: it is not live beside the rule
            # it contradicts.
            writer="key" if contradicts is not None else rule.writer)
        (prepared,) = self._memory.prepare([draft])
        (stored,) = self._memory.write(uow, [prepared], near_dedup=False)
        if not prepared.trusted:  # a proposal: the same wording already stored is left as it is
            if stored.deduplicated:
                return Absorbed(stored.id, "reinforced")
            return Absorbed(stored.id, "flagged" if contradicts else "proposed", contradicts)
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
        absorbed, stored = self._state(project, rule, TAUGHT, source="user", writer=writer)
        return {"id": absorbed.id, "outcome": absorbed.outcome, "replaces": absorbed.replaces,
                **_rule_view(stored)}

    def remember(self, draft: MemoryDraft) -> StoreResult:
        """A rule or guideline stored as a memory (`itachi remember`, MCP `memory_store`): into the
        one store, at 0.95 when a person states it; text from an untrusted source is a proposal."""
        confidence = draft.confidence if draft.confidence is not None else (
            TAUGHT if draft.writer == "person" and is_trusted(draft.source) else STATED)
        origin = {k: v for k, v in draft.metadata.items() if k in ("scope", "tags")}
        # Stored as given (redacted, on one line), as every memory is.
        absorbed, _ = self._state(draft.project, " ".join(self._redact(draft.content).split()), confidence,
                                  source=str(draft.metadata.get("source") or "remember"), writer=draft.writer,
                                  category=draft.category, origin=origin, session_id=draft.session_id,
                                  provenance=draft.source, cleaned=True)
        return StoreResult(absorbed.id, absorbed.outcome == "reinforced")

    def absorb_stated(self, project: str, stated: Sequence[StatedRule]) -> list[Absorbed]:
        """Rules a prompt stated (the graph's new instructions) into the one store, each remembering
        its node (`metadata.graph_node`), at a user's 0.8. The graph reconciler's verdict against an
        older node whose rule is live here is the verdict (one judgement, one announcement)."""
        rules = [(s, self.clean(s.text)) for s in stated]
        rules = [(s, text) for s, text in rules if text]
        if not rules:
            return []
        vectors = self._embedder.embed([text for _, text in rules])
        with self._units() as uow:
            older = uow.learned.graph_nodes_held([s.judged[1] for s, _ in rules if s.judged])
            absorbed = []
            for (s, text), vector in zip(rules, vectors, strict=True):
                rule_id = older.get(s.judged[1]) if s.judged else None
                old = uow.learned.get(rule_id) if rule_id else None
                judged = None
                if s.judged and old is not None:
                    known = Known(old.id, old.content, 1.0, old.confidence, old.metadata.get("import_path"))
                    judged = Decision(s.judged[0], known, s.judged[2])
                absorbed.append(self.absorb(
                    uow, project, RuleCandidate(text, DEFAULT_RULE_CONFIDENCE), vector, source="prompt",
                    origin={"graph_node": s.node}, provenance=s.source, judged=judged))
                _stated_as(uow, absorbed[-1].id, s.node)
            uow.commit()
        self.announce(absorbed)
        return absorbed

    def import_file(self, project: str, path: str, tool: str, lines: Sequence[tuple[str, str, int | None]],
                    *, writer: Writer) -> list[dict[str, Any]]:
        """A rule file's items ((category, text, line)) through the reconciler, tied to the file: a rule
        of the file it no longer holds is retired. Answer one entry per item, in order, then the
        retired ones."""
        # A file's wording is a person's: kept as written (redacted, on one line), so that the
        # file's next import finds it unchanged.
        texts = [(category, " ".join(self._redact(text).split()), line) for category, text, line in lines]
        vectors = self._embedder.embed([t for _, t, _ in texts]) if texts else []
        report: list[dict[str, Any]] = []
        kept: set[str] = set()
        flagged: list[Absorbed] = []
        with self._units() as uow:
            held = {item.content: item for item in uow.learned.from_file(project, path)}
            vector_of = iter(vectors)
            for category, text, line in texts:
                origin = {"import_path": path, "import_line": line, "imported_from": tool}
                vector = next(vector_of)
                if text in held:  # unchanged in the file: not a new statement of it
                    kept.add(held[text].id)
                    uow.memories.update_fields(held[text].id, metadata={"import_line": line})
                    report.append({"id": held[text].id, "outcome": "unchanged", "replaces": None,
                                   "category": category, "content": text, "path": path, "line": line})
                    continue
                absorbed = self.absorb(uow, project, RuleCandidate(text, IMPORTED), vector,
                                       source="import", writer=writer, category=category, origin=origin)
                kept.add(absorbed.id)
                flagged.append(absorbed)
                if absorbed.outcome != "reinforced" and absorbed.id != absorbed.replaces:
                    uow.memories.update_fields(absorbed.id, metadata=origin)
                report.append({"id": absorbed.id, "outcome": absorbed.outcome, "replaces": absorbed.replaces,
                               "category": category, "content": text, "path": path, "line": line})
            for gone in uow.learned.from_file(project, path):
                if gone.id not in kept and uow.memories.retire(gone.id):
                    report.append({"id": gone.id, "outcome": "retired", "replaces": None,
                                   "category": gone.category, "content": gone.content, "path": path,
                                   "line": gone.metadata.get("import_line")})
            uow.commit()
        self.announce(flagged)
        return report

    def _state(self, project: str, rule: str, confidence: float, *, source: str, writer: Writer,
               category: str = CATEGORY, origin: dict[str, Any] | None = None,
               session_id: str | None = None, provenance: str = "unspecified",
               cleaned: bool = False) -> tuple[Absorbed, LearnedItem]:
        text = rule if cleaned else self.clean(rule)
        if not text:
            raise InvalidInput("rule must not be empty", field="rule")
        (embedding,) = self._embedder.embed([text])
        with self._units() as uow:
            absorbed = self.absorb(uow, project, RuleCandidate(text, confidence), embedding, source=source,
                                   writer=writer, category=category, origin=origin, session_id=session_id,
                                   provenance=provenance)
            stored = uow.learned.get(absorbed.id)
            uow.commit()
        self.announce([absorbed])
        assert stored is not None
        return absorbed, stored

    def listed(self, project: str | None, *, as_of: datetime | None = None,
               limit: int = MAX_LISTED) -> list[dict[str, Any]]:
        """The one list: the project's, its namespaces' and the global instructions live now (or at
        `as_of`), each with its scope, source and history, strongest first (every project's, without
        layering, when `project` is None)."""
        limit = max(1, min(limit, MAX_LISTED))
        if project is None:
            with self._units() as uow:
                return [i.as_json() for i in uow.learned.instructions(None, as_of, limit)]
        scopes = () if project == GLOBAL_PROJECT else tuple(self._namespaces(project))
        projects = [project] if project == GLOBAL_PROJECT else [project, *scopes, GLOBAL_PROJECT]
        with self._units() as uow:
            # A project rule overrides a namespace's on the same thing (`domain/rule_levels.py`).
            overrides = (uow.learned.overrides(project, scopes, NEAR_IDENTICAL)
                         if scopes and as_of is None else [])
            found = uow.learned.instructions(projects, as_of, limit + len(overrides))
        return layered([i.as_json() for i in found], overrides, limit)

    def for_context(self, project: str, embedding: Sequence[float],
                    shown: Sequence[str]) -> tuple[list[LearnedItem], dict[str, str | None]]:
        """For a prompt's graph context (whose instructions are graph nodes `shown`): the live rules
        of the project, its namespaces and `_global` nearest `embedding` that none of them states, best
        first, and the `shown` nodes a rule was stated as, each with its live rule (None: superseded,
        retired or flagged)."""
        scopes = () if project == GLOBAL_PROJECT else tuple(self._namespaces(project))
        projects = [project] if project == GLOBAL_PROJECT else [project, *scopes, GLOBAL_PROJECT]
        with self._units() as uow:
            held = uow.learned.graph_nodes_held(shown) if shown else {}
            near = [r for p in projects
                    for r in uow.learned.similar_instructions(p, embedding, CONTEXT_RULES)]
        stated = {rule for rule in held.values() if rule}
        added = [r for r in near if r.id not in stated and r.similarity >= CONTEXT_FLOOR]
        added.sort(key=lambda r: r.similarity, reverse=True)
        return added[:CONTEXT_RULES], held

    def learnings(self, project: str, limit: int = MAX_LEARNINGS) -> list[dict[str, Any]]:
        """The one list under its older shape (`rule`), at most 15."""
        listed = self.listed(project, limit=max(1, min(limit, MAX_LEARNINGS)))
        return [{**r, "rule": r["text"]} for r in listed]


def _stated_as(uow: LearningUnitOfWork, rule_id: str, node: str) -> None:
    """Record that the rule was stated as graph node `node` (a restatement's node too), so that a
    context showing the node knows the rule it is."""
    rule = uow.learned.get(rule_id)
    if rule is None:
        return
    nodes = [str(n) for n in rule.metadata.get("graph_nodes") or [rule.metadata.get("graph_node")] if n]
    if node not in nodes:
        uow.memories.update_fields(rule_id, metadata={"graph_node": (nodes or [node])[0],
                                                      "graph_nodes": [*nodes, node]})


def _rule_view(r: LearnedItem) -> dict[str, Any]:
    return {"rule": r.content, "confidence": r.confidence, "times_reinforced": r.times_reinforced,
            "last_reinforced": r.last_reinforced_at.isoformat(),
            "source": r.metadata.get("source", "session")}
