"""The learning loop's API: insight extraction, project rules, lesson outcomes and feedback."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated

from chalice import Response
from pydantic import Field

from chalicelib.auth.request_principal import request_writer
from chalicelib.kernel.http import ApiBlueprint, WireModel, ok, parse_body, parse_query
from chalicelib.kernel.wire import Int64, captured
from chalicelib.memory.scope_routes import RunScopes, run_scope

if TYPE_CHECKING:
    from chalicelib.learning.services.insight_extraction import InsightExtraction
    from chalicelib.learning.services.lesson_enrichment import LessonEnricher
    from chalicelib.learning.services.lessons import Lessons
    from chalicelib.learning.services.project_rules import ProjectRules


class Uses:
    run_memory_scopes: RunScopes
    insight_extraction: InsightExtraction
    lesson_enricher: LessonEnricher
    lessons: Lessons
    project_rules: ProjectRules


bp = ApiBlueprint(__name__, Uses)

Project = Field(min_length=1, max_length=200)


class ExtractInsightsBody(WireModel):
    session_id: str = Field(min_length=1, max_length=200)
    project: str = Project
    conversation_text: Annotated[str, Field(min_length=1, max_length=400_000), captured(400_000)]
    files_changed: list[Annotated[str, captured(4000)]] = Field(default_factory=list, max_length=2000)
    summary: Annotated[str, Field(max_length=20_000), captured(20_000)] | None = None
    duration_ms: Annotated[Int64, Field(ge=0)] | None = None


class LearningsQuery(WireModel):
    project: str = Project
    limit: int = Field(default=15, ge=1, le=15)


class RulesQuery(WireModel):
    project: str = Project
    as_of: datetime | None = None
    limit: int = Field(default=100, ge=1, le=200)

    def moment(self) -> datetime | None:
        """`as_of` in UTC (a time without a zone is read as UTC)."""
        if self.as_of is None:
            return None
        return self.as_of if self.as_of.tzinfo else self.as_of.replace(tzinfo=UTC)


class RuleBody(WireModel):
    project: str = Project
    rule: str = Field(min_length=1, max_length=2000)


class OutcomeBody(WireModel):
    task_id: str = Field(min_length=1, max_length=200)
    project: str = Project
    success: bool
    lesson_ids: list[str] | None = Field(default=None, max_length=100)
    attempt: int | None = Field(default=None, ge=1, le=2**31 - 1)


class FeedbackBody(WireModel):
    good: bool


class LessonsQuery(WireModel):
    project: str = Project
    context: str = Field(min_length=1, max_length=4000)
    limit: int = Field(default=8, ge=1, le=20)


@bp.route("/api/session/extract-insights", methods=["POST"])
def extract_insights() -> Response:
    from chalicelib.learning.services.insight_extraction import SessionTranscript  # lazy: cold start

    body = parse_body(bp.current_request, ExtractInsightsBody)
    result = bp.services.insight_extraction.submit(SessionTranscript(
        body.session_id, body.project, body.conversation_text, tuple(body.files_changed),
        body.summary, body.duration_ms))
    return ok(result, status=202 if result.get("queued") else 200)


@bp.route("/api/rules", methods=["GET"])
def rules() -> Response:
    """The one list of a project's live instructions (and the global ones), or those live `as_of`."""
    query = parse_query(bp.current_request, RulesQuery)
    listed = bp.services.project_rules.listed(query.project, as_of=query.moment(), limit=query.limit)
    scope = run_scope(bp.current_request, bp.services.run_memory_scopes)  # a subagent: its scope only
    if scope is not None:
        listed = scope.rules(query.project, listed)
    moment = query.moment()
    answer = {"project": query.project, "rules": listed}
    return ok({**answer, "as_of": moment.isoformat()} if moment else answer)


@bp.route("/api/project/learnings", methods=["GET"])
def project_learnings() -> Response:
    """The one list under its older name and shape (`rule`), at most 15."""
    query = parse_query(bp.current_request, LearningsQuery)
    rules = bp.services.project_rules.learnings(query.project, query.limit)
    scope = run_scope(bp.current_request, bp.services.run_memory_scopes)  # a subagent: its scope only
    if scope is not None:
        rules = scope.rules(query.project, rules)
    return ok({"project": query.project, "rules": rules})


@bp.route("/api/project/rules", methods=["POST"])
def teach_rule() -> Response:
    body = parse_body(bp.current_request, RuleBody)
    result = bp.services.project_rules.teach(body.project, body.rule, writer=request_writer())
    return ok(result, status=200 if result["outcome"] == "reinforced" else 201)


@bp.route("/api/lessons/outcome", methods=["POST"])
def lesson_outcome() -> Response:
    from chalicelib.learning.services.lessons import validate_ids  # lazy: cold start

    body = parse_body(bp.current_request, OutcomeBody)
    ids = validate_ids(body.lesson_ids) if body.lesson_ids is not None else None
    return ok(bp.services.lessons.record_outcome(body.task_id, body.project, body.success, ids,
                                                     body.attempt))


@bp.route("/api/lessons/{lesson_id}/feedback", methods=["POST"])
def lesson_feedback(lesson_id: str) -> Response:
    from chalicelib.learning.services.lessons import validate_ids  # lazy: cold start

    body = parse_body(bp.current_request, FeedbackBody)
    (valid,) = validate_ids([lesson_id])
    return ok(bp.services.lessons.feedback(valid, body.good))


@bp.route("/api/lessons/{lesson_id}", methods=["GET"])
def lesson(lesson_id: str) -> Response:
    from chalicelib.learning.services.lessons import validate_ids  # lazy: cold start

    (valid,) = validate_ids([lesson_id])
    return ok(bp.services.lessons.get(valid))


@bp.route("/api/lessons", methods=["GET"])
def top_lessons() -> Response:
    query = parse_query(bp.current_request, LessonsQuery)
    ranked = bp.services.lesson_enricher.top_lessons(query.project, query.context, query.limit)
    return ok({"project": query.project, "lessons": [
        {"id": r.item.id, "project": r.item.project, "content": r.item.content,
         "confidence": r.item.confidence, "relevance": round(r.item.similarity, 4),
         "score": round(r.score, 4), "lesson_kind": r.item.metadata.get("lesson_kind")}
        for r in ranked]})
