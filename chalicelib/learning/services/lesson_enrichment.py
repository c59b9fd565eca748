"""Rank lessons for a task and append them, with the project's rules, to the task's prompt.

Ranking is `chalicelib.learning.domain.lesson_ranking.lesson_score` over the lessons of the project and
of `_global` most similar to the task. A lesson below `MIN_RELEVANCE` similarity is not about
this task and is left out however confident it is. Rules are standing orders: the project's top
rules (by confidence x reinforcement) are always appended.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from chalicelib.kernel.logging import get_logger
from chalicelib.learning.domain.learned_item import LearnedItem
from chalicelib.learning.domain.lesson_ranking import lesson_score
from chalicelib.learning.services.ports import LearningUnits, TextEmbedder

GLOBAL_PROJECT = "_global"
MAX_LESSONS = 5
MAX_RULES = 10
MIN_RELEVANCE = 0.2
CANDIDATES = 50


@dataclass(frozen=True)
class RankedLesson:
    item: LearnedItem
    score: float


class LessonEnricher:
    """Implements the task area's PromptEnricher port (`enrich(prompt, project)`)."""

    def __init__(self, units: LearningUnits, embedder: TextEmbedder) -> None:
        self._units = units
        self._embedder = embedder

    def top_lessons(self, project: str, context: str, limit: int = MAX_LESSONS) -> list[RankedLesson]:
        """The lessons to apply to `context`, best first (no embedding at all when there are none)."""
        scope = [project, GLOBAL_PROJECT]
        with self._units() as uow:
            if not uow.learned.any_live(scope, "task_lesson"):
                return []
        (embedding,) = self._embedder.embed([context[:4000]])
        with self._units() as uow:
            items = uow.learned.related(scope, "task_lesson", embedding, CANDIDATES)
        return rank(items, datetime.now(UTC))[:limit]

    def enrich_with_lessons(self, task_prompt: str, project: str, task_id: str | None = None) -> str:
        """The prompt with the top lessons and rules appended; with a task id, the lessons applied
        are recorded so the task's outcome can be credited to them."""
        try:
            lessons = self.top_lessons(project, task_prompt)
        except Exception:  # a task must still run when ranking fails (e.g. the embedder is down)
            get_logger().exception("lesson ranking failed; the prompt gets the rules only",
                                   extra={"project": project, "task_id": task_id})
            lessons = []
        with self._units() as uow:
            rules = uow.learned.rules(project, MAX_RULES)
            if task_id and lessons:
                uow.lessons.record_applications(task_id, [r.item.id for r in lessons])
            uow.commit()
        return render(task_prompt, project, lessons, rules)

    def enrich(self, prompt: str, project: str, task_id: str | None = None) -> str:
        return self.enrich_with_lessons(prompt, project, task_id)


def rank(items: list[LearnedItem], now: datetime) -> list[RankedLesson]:
    ranked = []
    for item in items:
        if item.similarity < MIN_RELEVANCE:
            continue
        last_used = max(d for d in (item.last_reinforced_at, item.last_applied_at) if d is not None)
        age_days = (now - last_used).total_seconds() / 86400
        ranked.append(RankedLesson(item, lesson_score(item.similarity, item.confidence, age_days,
                                                      item.times_reinforced, item.applications)))
    return sorted(ranked, key=lambda r: r.score, reverse=True)


def render(prompt: str, project: str, lessons: list[RankedLesson], rules: list[LearnedItem]) -> str:
    sections = [prompt.rstrip()]
    if lessons:
        sections.append(f"## Lessons from earlier work ({project})\n" + "\n".join(
            f"- {r.item.content} (confidence {r.item.confidence:.2f})" for r in lessons))
    if rules:
        sections.append(f"## Project rules ({project})\n" + "\n".join(f"- {r.content}" for r in rules))
    return "\n\n".join(sections) + ("\n" if len(sections) > 1 else "")
