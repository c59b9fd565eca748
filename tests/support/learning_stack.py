"""The learning loop's services wired as the composition root wires them, over Postgres or over
the in-memory fakes, with the deterministic `WordEmbedder`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from chalicelib.kernel.database import Database
from chalicelib.learning.adapters.learning_unit_of_work import learning_units
from chalicelib.learning.domain.insights import Insight
from chalicelib.learning.services.insight_extraction import InsightExtraction
from chalicelib.learning.services.learning_review import LearningReview
from chalicelib.learning.services.lesson_enrichment import LessonEnricher
from chalicelib.learning.services.lessons import Lessons
from chalicelib.learning.services.ports import LearningUnits, Redact
from chalicelib.learning.services.project_rules import ProjectRules
from chalicelib.llm.services.budgeted_llm import DisabledLlm
from chalicelib.llm.services.ports import LanguageModel
from chalicelib.memory.adapters.memory_repository import PostgresMemoryRepository
from chalicelib.memory.adapters.memory_unit_of_work import memory_units
from chalicelib.memory.services.deadline_embedding import DeadlineEmbedder
from chalicelib.memory.services.memory_store import MemoryStore
from chalicelib.memory.services.ports import MemoryUnits
from tests.fakes.fake_embedder import WordEmbedder
from tests.fakes.learning_fakes import LearningState, in_memory_learning_units
from tests.fakes.memory_fakes import in_memory_units


def unchanged(text: str) -> str:
    return text


@dataclass
class LearningStack:
    units: LearningUnits
    memory_units: MemoryUnits
    embedder: WordEmbedder = field(default_factory=WordEmbedder)
    redact: Redact = unchanged
    queued: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.memory = MemoryStore(self.memory_units, DeadlineEmbedder(self.embedder, workers=1),
                                  write_timeout_s=30.0, near_threshold=0.92)

    def rules(self) -> ProjectRules:
        return ProjectRules(self.units, self.embedder, self.redact, self.memory)

    def lessons(self) -> Lessons:
        return Lessons(self.units, self.memory)

    def enricher(self) -> LessonEnricher:
        return LessonEnricher(self.units, self.embedder)

    def review(self, llm: LanguageModel | None = None) -> LearningReview:
        return LearningReview(self.units, llm or DisabledLlm(), self.embedder, self.memory)

    def extraction(self, llm: LanguageModel | None = None, queue: bool = False,
                   enqueue: Callable[[dict[str, Any]], object] | None = None) -> InsightExtraction:
        """With `queue`, requests go to `self.queued` (or to `enqueue` when given)."""
        sink = enqueue or (self.queued.append if queue else None)
        return InsightExtraction(self.units, llm or DisabledLlm(), self.embedder, self.redact, self.rules(),
                                 self.lessons(), self.memory, sink)

    def add_lesson(self, text: str, project: str = "web", kind: str = "project-selection") -> str:
        """Promote `text` as a lesson, as a significant session would."""
        (vector,) = self.embedder.embed([text])
        with self.units() as uow:
            lesson_id = self.lessons().promote(uow, project, Insight("decision", text), kind, vector,
                                               self.embedder.model, session_id="s", significance=0.8)
            uow.commit()
        return lesson_id


def postgres_learning(db: Database, redact: Redact = unchanged) -> LearningStack:
    return LearningStack(learning_units(db, PostgresMemoryRepository), memory_units(db), redact=redact)


def in_memory_learning(state: LearningState | None = None, redact: Redact = unchanged) -> LearningStack:
    shared = state or LearningState()
    units: Callable[[], Any] = in_memory_learning_units(shared)
    return LearningStack(units, in_memory_units(shared.memories), redact=redact)
