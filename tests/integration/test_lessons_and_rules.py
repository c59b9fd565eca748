"""Rules and lessons over real Postgres: teaching, learnings order, outcomes, feedback, enrichment,
and the weekly reviews."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from chalicelib.kernel.database import Database
from chalicelib.kernel.errors import InvalidInput, NotFound
from chalicelib.learning.domain.insights import RuleCandidate
from chalicelib.learning.services.lesson_outcome_recorder import LessonOutcomeRecorder
from chalicelib.memory.domain.memory_model import MemoryDraft
from chalicelib.tasks.domain.task_model import TaskOutcome
from tests.fakes.fake_llm import ScriptedLanguageModel
from tests.support.learning_stack import LearningStack, postgres_learning


@pytest.fixture
def db(database_url: str) -> Iterator[Database]:
    database = Database(database_url)
    yield database
    database.close()


@pytest.fixture
def stack(db: Database) -> LearningStack:
    return postgres_learning(db)


def rows(db: Database, sql: str, *params: Any) -> list[dict[str, Any]]:
    with db.connection() as conn:
        return conn.execute(sql, params).fetchall()


def test_a_taught_rule_starts_at_095_and_teaching_it_again_reinforces_it(stack: LearningStack) -> None:
    rules = stack.rules()

    first = rules.teach("web", "Run the tests with --no-cache")
    again = rules.teach("web", "run the tests with --no-cache.")

    assert (first["outcome"], first["confidence"], first["source"]) == ("stored", 0.95, "user")
    assert (again["outcome"], again["id"], again["times_reinforced"]) == ("reinforced", first["id"], 2)


def test_a_taught_rule_that_contradicts_an_earlier_one_supersedes_it_instead_of_reinforcing_it(
        db: Database, stack: LearningStack) -> None:
    rules = stack.rules()

    yarn = rules.teach("web", "Always use yarn, not npm")
    npm = rules.teach("web", "Always use npm, not yarn")  # the same words: a near-identical vector

    assert (npm["outcome"], npm["replaces"], npm["times_reinforced"]) == ("superseded", yarn["id"], 1)
    (old,) = rows(db, "SELECT times_reinforced, superseded_by FROM memories WHERE id = %s", yarn["id"])
    assert (old["times_reinforced"], str(old["superseded_by"])) == (1, npm["id"])
    assert [r["rule"] for r in rules.learnings("web")] == ["Always use npm, not yarn"]

    again = rules.teach("web", "Always use yarn, not npm")  # changed back: the old wording is live again
    assert (again["outcome"], again["id"], again["replaces"]) == ("superseded", yarn["id"], npm["id"])
    assert [r["rule"] for r in rules.learnings("web")] == ["Always use yarn, not npm"]


def test_a_session_rule_contradicting_a_more_confident_rule_is_stored_flagged_beside_it(
        db: Database, stack: LearningStack) -> None:
    rules = stack.rules()
    taught = rules.teach("web", "Run the tests with -n 4")
    stack.embedder.same_as("Run the tests with -n 8", "Run the tests with -n 4")
    (vector,) = stack.embedder.embed(["Run the tests with -n 8"])
    with stack.units() as uow:
        absorbed = rules.absorb(uow, "web", RuleCandidate("Run the tests with -n 8", 0.6), vector,
                                source="session")
        uow.commit()

    assert (absorbed.outcome, absorbed.replaces) == ("flagged", taught["id"])
    (new,) = rows(db, "SELECT metadata, superseded_by FROM memories WHERE id = %s", absorbed.id)
    assert new["metadata"]["contradicts"] == taught["id"] and new["superseded_by"] is None
    (old,) = rows(db, "SELECT times_reinforced, superseded_by FROM memories WHERE id = %s", taught["id"])
    assert (old["times_reinforced"], old["superseded_by"]) == (1, None)


def test_an_empty_rule_is_refused(stack: LearningStack) -> None:
    with pytest.raises(InvalidInput):
        stack.rules().teach("web", "   ")


def test_learnings_are_ordered_by_confidence_times_reinforcement_and_capped_at_15(
        db: Database, stack: LearningStack) -> None:
    drafts = [MemoryDraft("web", "project_rule", f"Rule number {n} about thing{n}", confidence=0.5)
              for n in range(20)]
    drafts += [MemoryDraft("web", "project_rule", "Often seen", confidence=0.6),
               MemoryDraft("other", "project_rule", "Not this project", confidence=0.99)]
    stack.memory.store(drafts, near_dedup=False)
    with db.connection() as conn:
        conn.execute("UPDATE memories SET times_reinforced = 3 WHERE content = 'Often seen'")

    learned = stack.rules().learnings("web", limit=50)

    assert len(learned) == 15
    assert learned[0]["rule"] == "Often seen" and learned[0]["times_reinforced"] == 3
    assert all(r["rule"] != "Not this project" for r in learned)


def test_success_then_failure_moves_a_lesson_from_07_to_08_to_065(db: Database, stack: LearningStack) -> None:
    lessons = stack.lessons()
    lesson_id = stack.add_lesson("Run migrations before the integration tests")

    first = lessons.record_outcome("task-1", "web", True, [lesson_id])
    second = lessons.record_outcome("task-2", "web", False, [lesson_id])

    assert first["lessons"][0]["confidence"] == 0.8
    assert second["lessons"][0]["confidence"] == 0.65
    stats = lessons.get(lesson_id)
    assert (stats["confidence"], stats["applications"], stats["successes"], stats["failures"]) == (
        0.65, 2, 1, 1)
    events = rows(db, "SELECT kind, task_id FROM lesson_events ORDER BY id")
    assert events == [{"kind": "success", "task_id": "task-1"}, {"kind": "failure", "task_id": "task-2"}]


def test_an_outcome_is_applied_once_per_task(stack: LearningStack) -> None:
    lessons = stack.lessons()
    lesson_id = stack.add_lesson("Prefer small pull requests")
    lessons.record_outcome("task-1", "web", True, [lesson_id])

    replay = lessons.record_outcome("task-1", "web", True, [lesson_id])

    assert replay["recorded"] is False
    assert lessons.get(lesson_id)["confidence"] == 0.8


def test_feedback_moves_a_lesson_by_a_tenth_and_unknown_ids_are_not_found(stack: LearningStack) -> None:
    lessons = stack.lessons()
    lesson_id = stack.add_lesson("Prefer small pull requests")

    assert lessons.feedback(lesson_id, good=True)["confidence"] == 0.8
    assert lessons.feedback(lesson_id, good=False)["confidence"] == 0.7
    with pytest.raises(NotFound):
        lessons.feedback("00000000-0000-0000-0000-000000000000", good=True)


def test_enrichment_appends_relevant_lessons_and_rules_and_credits_the_outcome(stack: LearningStack) -> None:
    relevant = stack.add_lesson("Run database migrations before the integration tests")
    stack.add_lesson("Ship the marketing page copy on Mondays")
    stack.rules().teach("web", "Always use yarn, not npm")
    enricher = stack.enricher()

    prompt = enricher.enrich_with_lessons("Fix the failing integration tests after the database migrations",
                                          "web", task_id="task-9")

    assert prompt.startswith("Fix the failing integration tests")
    assert "## Lessons from earlier work (web)\n- Run database migrations before the integration tests" \
        in prompt
    assert "marketing" not in prompt
    assert "## Project rules (web)\n- Always use yarn, not npm" in prompt
    outcome = stack.lessons().record_outcome("task-9", "web", success=True)  # no ids: the applied ones
    assert [c["id"] for c in outcome["lessons"]] == [relevant]


def test_enrichment_without_lessons_or_rules_leaves_the_prompt_alone(stack: LearningStack) -> None:
    assert stack.enricher().enrich("Do the thing", "empty") == "Do the thing"


def test_effectiveness_review_boosts_a_lesson_that_keeps_working_once_a_week(stack: LearningStack) -> None:
    lesson_id = stack.add_lesson("Pin the toolchain version")
    young = stack.add_lesson("Cache the node modules between runs")
    with stack.units() as uow:
        for _ in range(5):
            uow.lessons.count_outcome(lesson_id, success=True)
        uow.lessons.count_outcome(young, success=False)
        uow.commit()
    review = stack.review()

    assert review.review_effectiveness() == {"reviewed": 1, "boosted": 1, "decayed": 0}
    assert review.review_effectiveness() == {"reviewed": 0, "boosted": 0, "decayed": 0}
    assert stack.lessons().get(lesson_id)["confidence"] == 0.775


def test_reflection_writes_one_digest_per_project_and_week_without_an_llm(
        db: Database, stack: LearningStack) -> None:
    for text in ("Pin the toolchain", "Run migrations first", "Keep commits small"):
        stack.add_lesson(text)
    stack.add_lesson("A lone lesson", project="tiny")
    review = stack.review()
    now = datetime(2026, 11, 20, tzinfo=UTC)

    assert review.reflect(now) == {"week": "2026-W47",
                                   "documents": [{"project": "web", "generator": "digest"}]}
    assert review.reflect(now)["documents"] == []
    (doc,) = rows(db, "SELECT content, metadata FROM memories WHERE category = 'strategy_document'")
    assert doc["content"].startswith("Strategy for web (2026-W47), from 3 recent lessons")
    assert len(doc["metadata"]["lesson_ids"]) == 3


def test_reflection_uses_the_llm_text_when_it_answers(db: Database, stack: LearningStack) -> None:
    for text in ("Pin the toolchain", "Run migrations first", "Keep commits small"):
        stack.add_lesson(text)
    llm = ScriptedLanguageModel()
    llm.answer("- Pin versions\n- Migrate before testing")

    result = stack.review(llm).reflect()

    assert result["documents"] == [{"project": "web", "generator": "llm"}]
    assert llm.calls[0][0] == "reflection"
    (doc,) = rows(db, "SELECT content FROM memories WHERE category = 'strategy_document'")
    assert doc["content"].endswith("- Pin versions\n- Migrate before testing")


def test_a_finished_task_attempt_credits_the_lessons_its_prompt_carried(stack: LearningStack) -> None:
    lesson_id = stack.add_lesson("Run database migrations before the integration tests")
    stack.enricher().enrich("Fix the integration tests after the database migrations", "web",
                            task_id="7b0c0f62-0000-4000-8000-000000000001")
    recorder = LessonOutcomeRecorder(stack.lessons())

    recorder.recorded(TaskOutcome("7b0c0f62-0000-4000-8000-000000000001", 1, "web", "success"))
    recorder.recorded(TaskOutcome("7b0c0f62-0000-4000-8000-000000000001", 2, "web", "cancelled"))

    assert stack.lessons().get(lesson_id)["confidence"] == 0.8


def test_a_project_without_lessons_is_enriched_without_embedding_the_prompt(stack: LearningStack) -> None:
    stack.enricher().enrich("Do the thing", "empty")

    assert stack.embedder.calls == 0


def test_a_more_specific_wording_of_a_rule_rewords_it_and_its_vector_is_the_new_wordings(
        db: Database, stack: LearningStack) -> None:
    rules = stack.rules()
    first = rules.teach("web", "Format the code before committing")
    precise = "Format the code with black --line-length 100 before committing"
    stack.embedder.same_as(precise, "Format the code before committing")  # one rule, said more precisely

    again = rules.teach("web", precise)

    assert (again["outcome"], again["id"]) == ("reinforced", first["id"])
    (row,) = rows(db, "SELECT content, embedding::text AS vector, embedding_model FROM memories"
                      " WHERE id = %s", first["id"])
    (wanted,) = stack.embedder.embed([precise])
    assert row["content"] == precise and row["embedding_model"] == stack.embedder.model
    assert [float(x) for x in row["vector"].strip("[]").split(",")] == pytest.approx(wanted, abs=1e-6)
