"""The learning loop (insights, rules, lessons, reviews) and the code-intelligence workers."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring
from chalicelib.wiring.provide import ImportedOnUse, provide

if TYPE_CHECKING:
    from chalicelib.bootstrap import Container
    from chalicelib.wiring.kits import learning as kit
else:
    kit = ImportedOnUse("chalicelib.wiring.kits.learning")


def _announce_rule_clash(c: Container, clash: object) -> None:
    if c.telegram_enabled and c.settings.telegram_chat_id:
        from chalicelib.telegram.services.graph_contradictions import announce_rule_clash

        announce_rule_clash(c.telegram_gateway, c.settings.telegram_chat_id, clash)


def _codeintel(c: Container) -> kit.CodeIntelWorkers:
    s = c.settings
    github = kit.GitHubClient(s.github_token, s.github_api_url) if s.github_token else None
    return kit.CodeIntelWorkers(kit.codeintel_units(c.db),
                                lambda drafts: c.memory.store.store(drafts, near_dedup=False),
                                c.llm, kit.redact, github)


class LearningWiring(CoreWiring):
    # Learning loop: insight extraction, project rules, lessons, weekly reviews (docs/learning.md).
    # Its units bind the memory core's repository too: rules and lessons are written through
    # the memory core's write path (`memory.store`) in the learning loop's own transactions.
    learning_units: kit.LearningUnits = provide(
        lambda c: kit.learning_units(c.db, kit.PostgresMemoryRepository))
    project_rules: kit.ProjectRules = provide(lambda c: kit.ProjectRules(
        c.learning_units, c.embedder, kit.redact, c.memory.store, namespaces=c.namespaces.scopes_of,
        on_flagged=partial(_announce_rule_clash, c)))
    # a member project's rule moved up to its namespace (docs/learning.md, Namespaces)
    rule_promotion: kit.RulePromotion = provide(
        lambda c: kit.RulePromotion(c.learning_units, c.embedder, c.memory.store,
                                    lambda name: c.namespaces.get(name).projects))
    # flagged rules waiting for a person: Keep new / Keep old / Keep both
    rule_clashes: kit.RuleClashes = provide(lambda c: kit.RuleClashes(c.learning_units))
    lessons: kit.Lessons = provide(lambda c: kit.Lessons(c.learning_units, c.memory.store))
    lesson_enricher: kit.LessonEnricher = provide(lambda c: kit.LessonEnricher(c.learning_units, c.embedder))
    insight_extraction: kit.InsightExtraction = provide(lambda c: kit.InsightExtraction(
        c.learning_units, c.llm, c.embedder, kit.redact, c.project_rules, c.lessons, c.memory.store,
        enqueue=lambda body: c.queues.send("ingest", body)))
    # a finished task read for insights, rules and lessons as a session is
    task_lessons: kit.TaskLessons = provide(lambda c: kit.TaskLessons(c.insight_extraction))
    # /feedback: a user's verdict on a task moves the lessons its prompt carried
    task_feedback: kit.TaskFeedback = provide(
        lambda c: kit.TaskFeedback(c.learning_units, c.lessons, c.task_lessons))
    learning_review: kit.LearningReview = provide(
        lambda c: kit.LearningReview(c.learning_units, c.llm, c.embedder, c.memory.store))
    # Code intelligence (docs/codeintel.md): the scheduled workers and the repos registry.
    codeintel: kit.CodeIntelWorkers = provide(_codeintel)
