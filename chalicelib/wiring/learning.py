"""The learning loop (insights, rules, lessons, reviews) and the code-intelligence workers."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring

if TYPE_CHECKING:
    from chalicelib.codeintel.services.workers import CodeIntelWorkers
    from chalicelib.learning.services.insight_extraction import InsightExtraction
    from chalicelib.learning.services.learning_review import LearningReview
    from chalicelib.learning.services.lesson_enrichment import LessonEnricher
    from chalicelib.learning.services.lessons import Lessons
    from chalicelib.learning.services.ports import LearningUnits
    from chalicelib.learning.services.project_rules import ProjectRules
    from chalicelib.learning.services.rule_clashes import RuleClashes
    from chalicelib.learning.services.rule_promotion import RulePromotion
    from chalicelib.learning.services.task_feedback import TaskFeedback
    from chalicelib.learning.services.task_lessons import TaskLessons


class LearningWiring(CoreWiring):
    # Learning loop: insight extraction, project rules, lessons, weekly reviews (docs/learning.md).
    # Its units bind the memory core's repository too: rules and lessons are written through
    # the memory core's write path (`memory.store`) in the learning loop's own transactions.
    @cached_property
    def learning_units(self) -> LearningUnits:
        from chalicelib.learning.adapters.learning_unit_of_work import learning_units
        from chalicelib.memory.adapters.memory_repository import PostgresMemoryRepository

        return learning_units(self.db, PostgresMemoryRepository)

    @cached_property
    def project_rules(self) -> ProjectRules:
        from chalicelib.kernel.redaction import redact
        from chalicelib.learning.services.project_rules import ProjectRules

        return ProjectRules(self.learning_units, self.embedder, redact, self.memory.store,
                            namespaces=self.namespaces.scopes_of, on_flagged=self._announce_rule_clash)

    @cached_property
    def rule_promotion(self) -> RulePromotion:
        """A member project's rule moved up to its namespace (docs/learning.md, Namespaces)."""
        from chalicelib.learning.services.rule_promotion import RulePromotion

        return RulePromotion(self.learning_units, self.embedder, self.memory.store,
                             lambda name: self.namespaces.get(name).projects)

    def _announce_rule_clash(self, clash: object) -> None:
        if self.telegram_enabled and self.settings.telegram_chat_id:
            from chalicelib.telegram.services.graph_contradictions import announce_rule_clash

            announce_rule_clash(self.telegram_gateway, self.settings.telegram_chat_id, clash)

    @cached_property
    def rule_clashes(self) -> RuleClashes:
        """Flagged rules waiting for a person: Keep new / Keep old / Keep both."""
        from chalicelib.learning.services.rule_clashes import RuleClashes

        return RuleClashes(self.learning_units)

    @cached_property
    def lessons(self) -> Lessons:
        from chalicelib.learning.services.lessons import Lessons

        return Lessons(self.learning_units, self.memory.store)

    @cached_property
    def lesson_enricher(self) -> LessonEnricher:
        from chalicelib.learning.services.lesson_enrichment import LessonEnricher

        return LessonEnricher(self.learning_units, self.embedder)

    @cached_property
    def task_feedback(self) -> TaskFeedback:
        """/feedback: a user's verdict on a task moves the lessons its prompt carried."""
        from chalicelib.learning.services.task_feedback import TaskFeedback

        return TaskFeedback(self.learning_units, self.lessons, self.task_lessons)

    @cached_property
    def task_lessons(self) -> TaskLessons:
        """A finished task read for insights, rules and lessons as a session is."""
        from chalicelib.learning.services.task_lessons import TaskLessons

        return TaskLessons(self.insight_extraction)

    @cached_property
    def insight_extraction(self) -> InsightExtraction:
        from chalicelib.kernel.redaction import redact
        from chalicelib.learning.services.insight_extraction import InsightExtraction

        return InsightExtraction(self.learning_units, self.llm, self.embedder, redact, self.project_rules,
                                 self.lessons, self.memory.store,
                                 enqueue=lambda body: self.queues.send("ingest", body))

    @cached_property
    def learning_review(self) -> LearningReview:
        from chalicelib.learning.services.learning_review import LearningReview

        return LearningReview(self.learning_units, self.llm, self.embedder, self.memory.store)

    # Code intelligence (docs/codeintel.md): the scheduled workers and the repos registry.
    @cached_property
    def codeintel(self) -> CodeIntelWorkers:
        from chalicelib.codeintel.adapters.codeintel_repository import codeintel_units
        from chalicelib.codeintel.adapters.github_client import GitHubClient
        from chalicelib.codeintel.services.workers import CodeIntelWorkers
        from chalicelib.kernel.redaction import redact

        s = self.settings
        github = GitHubClient(s.github_token, s.github_api_url) if s.github_token else None
        return CodeIntelWorkers(codeintel_units(self.db),
                                lambda drafts: self.memory.store.store(drafts, near_dedup=False),
                                self.llm, redact, github)
