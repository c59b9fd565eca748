"""The weekly reviews: effectiveness (boost or decay lessons by their record) and reflection
(a strategy document per project from its recent lessons).

Reflection asks the LLM (purpose `reflection`, budgeted like every call); without a model,
over budget or on failure it writes a plain digest of the week's most confident lessons
instead, so the week is never lost. One document per project and ISO week: the claim
`reflection/<project>:<week>` commits with the document.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from chalicelib.kernel.logging import get_logger
from chalicelib.learning.domain import lesson_confidence
from chalicelib.learning.domain.learned_item import LearnedItem
from chalicelib.learning.services.ports import LearningUnits, MemoryWriter, TextEmbedder
from chalicelib.llm.services.ports import LanguageModel
from chalicelib.memory.domain.memory_model import MemoryDraft

REVIEW_INTERVAL_DAYS = 6  # weekly schedule, with a day of slack
REFLECTION_WINDOW_DAYS = 7
MIN_LESSONS_TO_REFLECT = 3
MAX_LESSONS_PER_DOCUMENT = 30
REFLECTION_SYSTEM = """You turn an AI coding agent's recent lessons for one project into a short
strategy document for its next tasks: at most 10 bullet points, most important first, each an
actionable heuristic. Merge overlapping lessons, drop contradicted or low-confidence ones, and
keep the project's own vocabulary. Plain markdown bullets only."""


class LearningReview:
    def __init__(self, units: LearningUnits, llm: LanguageModel, embedder: TextEmbedder,
                 memory: MemoryWriter) -> None:
        self._units, self._llm, self._embedder, self._memory = units, llm, embedder, memory

    def review_effectiveness(self) -> dict[str, int]:
        """Lessons applied 5+ times move toward their success rate; each at most once a week."""
        counts = {"reviewed": 0, "boosted": 0, "decayed": 0}
        with self._units() as uow:
            for row in uow.lessons.due_for_review(lesson_confidence.MIN_APPLICATIONS, REVIEW_INTERVAL_DAYS):
                lesson_id, before = str(row["lesson_id"]), round(float(row["confidence"]), 4)
                after = lesson_confidence.after_effectiveness_review(
                    before, int(row["applications"]), int(row["successes"]))
                if after != before:
                    uow.memories.update_fields(lesson_id, confidence=after)
                    uow.lessons.log_event(lesson_id, "review", before, after)
                    counts["boosted" if after > before else "decayed"] += 1
                uow.lessons.mark_reviewed(lesson_id)
                counts["reviewed"] += 1
            uow.commit()
        return counts

    def reflect(self, now: datetime | None = None) -> dict[str, Any]:
        """Write this week's strategy document for every project with enough recent lessons."""
        year, week, _ = (now or datetime.now(UTC)).isocalendar()
        week_key = f"{year}-W{week:02d}"
        with self._units() as uow:
            recent = uow.learned.recent("task_lesson", REFLECTION_WINDOW_DAYS, 1000)
        by_project: dict[str, list[LearnedItem]] = defaultdict(list)
        for item in recent:
            by_project[item.project].append(item)
        written: list[dict[str, str]] = []
        for project, lessons in sorted(by_project.items()):
            if len(lessons) >= MIN_LESSONS_TO_REFLECT:
                generator = self._reflect_project(project, lessons[:MAX_LESSONS_PER_DOCUMENT], week_key)
                if generator:
                    written.append({"project": project, "generator": generator})
        return {"week": week_key, "documents": written}

    def _reflect_project(self, project: str, lessons: list[LearnedItem], week_key: str) -> str | None:
        with self._units() as uow:
            if not uow.claims.claim("reflection", f"{project}:{week_key}"):
                return None
            listed = "\n".join(f"- [{i.metadata.get('lesson_kind', 'lesson')}, confidence "
                               f"{i.confidence:.2f}] {i.content}" for i in lessons)
            text = self._llm.complete_text("reflection", REFLECTION_SYSTEM,
                                           f"Project: {project}\nLessons:\n{listed}", max_tokens=700)
            generator = "llm" if text else "digest"
            content = (f"Strategy for {project} ({week_key})\n\n{text.strip()}" if text
                       else digest(project, week_key, lessons))
            (embedding,) = self._embedder.embed([content])
            document = MemoryDraft(
                project=project, category="strategy_document", content=content, embedding=embedding,
                embedding_model=self._embedder.model, significance=0.7, confidence=lesson_confidence.INITIAL,
                metadata={"source": "reflection", "week": week_key, "generator": generator,
                          "lesson_ids": [i.id for i in lessons]})
            self._memory.write(uow, self._memory.prepare([document]), near_dedup=False)
            uow.commit()
        get_logger().info("strategy document written", extra={"project": project, "week": week_key,
                                                               "generator": generator})
        return generator


def digest(project: str, week_key: str, lessons: list[LearnedItem]) -> str:
    """The no-LLM strategy document: the week's lessons, most confident first."""
    best = sorted(lessons, key=lambda i: i.confidence, reverse=True)[:10]
    return f"Strategy for {project} ({week_key}), from {len(lessons)} recent lessons\n\n" + "\n".join(
        f"- {i.content} ({i.metadata.get('lesson_kind', 'lesson')}, confidence {i.confidence:.2f})"
        for i in best)
