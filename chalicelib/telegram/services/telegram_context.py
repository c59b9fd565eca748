"""What the bot knows when it answers free text, /recall or /learn: memory, lessons, rules, tasks.

Each provider returns one section of the LLM's context (empty when it has nothing); the
conversation skips a provider that fails. The memory and learning services are given as
providers (built on first use), so a Telegram process pays for the memory core only when it
is asked something.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from chalicelib.memory.domain.memory_model import MemoryDraft, SearchHit
from chalicelib.telegram.domain.telegram_text import truncate
from chalicelib.telegram.services.telegram_conversation import ContextProvider

if TYPE_CHECKING:
    from chalicelib.learning.services.lesson_enrichment import LessonEnricher
    from chalicelib.learning.services.project_rules import ProjectRules
    from chalicelib.memory.services.memory_service import MemoryService
    from chalicelib.tasks.domain.task_model import Task

T = TypeVar("T")
Provider = Callable[[], T]  # the service, built on first call
ListTasks = Callable[..., list["Task"]]  # TaskService.list_tasks

FACT_CATEGORIES = ("fact", "identity")
LINE_LIMIT = 300
RECALL_LIMIT = 6


def one_line(text: str, limit: int = LINE_LIMIT) -> str:
    return truncate(" ".join(text.split()), limit)


def hit_line(hit: SearchHit, limit: int = LINE_LIMIT) -> str:
    return f"[{hit.category}, {hit.project}, {hit.score:.2f}] {one_line(hit.content, limit)}"


class TelegramContext:
    def __init__(self, *, memory: Provider[MemoryService], lessons: Provider[LessonEnricher],
                 rules: Provider[ProjectRules], list_tasks: ListTasks) -> None:
        self._memory = memory
        self._lessons = lessons
        self._rules = rules
        self._list_tasks = list_tasks

    def providers(self) -> list[ContextProvider]:
        return [ContextProvider("Facts", self.facts), ContextProvider("Recent memories", self.recent),
                ContextProvider("Active tasks", self.active_tasks), ContextProvider("Lessons", self.lessons)]

    def facts(self, message: str, project: str) -> str:
        hits = [h for category in FACT_CATEGORIES
                for h in self._memory().search(message, project, limit=4, category=category).hits]
        return "\n".join(f"- {hit_line(h)}" for h in hits)

    def recent(self, message: str, project: str) -> str:
        memories = self._memory().recent(project, limit=5)
        return "\n".join(f"- [{m.category}] {one_line(m.content)}" for m in memories)

    def active_tasks(self, message: str, project: str) -> str:
        tasks = [t for s in ("running", "dispatched", "queued") for t in self._list_tasks(status=s, limit=10)]
        return "\n".join(f"- {t.id[:8]} {t.project} ({t.status.value}): {truncate(t.description, 120)}"
                         for t in tasks)

    def lessons(self, message: str, project: str) -> str:
        lessons = self._lessons().top_lessons(project, message, 5)
        rules = self._rules().learnings(project, 3)
        lines = [f"- lesson ({r.item.confidence:.2f}): {one_line(r.item.content)}" for r in lessons]
        lines += [f"- rule ({r['confidence']:.2f}): {one_line(r['rule'])}" for r in rules]
        return "\n".join(lines)

    def recall(self, query: str, project: str | None) -> list[str]:
        """/recall: the best memories for `query` in the topic's project (or everywhere global)."""
        result = self._memory().search(query, project or "_global", limit=RECALL_LIMIT)
        lines = [f"{i}. {hit_line(h, 600)}" for i, h in enumerate(result.hits, 1)]
        if lines and result.degraded:
            lines.append(f"(full-text only: {result.degraded})")
        return lines

    def teach(self, project: str, rule: str) -> dict[str, Any]:
        """/learn: a project rule at the taught confidence (0.95), via the learning loop."""
        return self._rules().teach(project, rule)

    def remember(self, project: str, category: str, content: str) -> object:
        return self._memory().remember(MemoryDraft(project=project, category=category, content=content,
                                                   metadata={"source": "telegram"}, writer="person"))
