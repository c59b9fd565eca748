"""Subagent profiles, their lessons, and cron jobs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Response
from pydantic import Field

from chalicelib.agents.domain.profiles import profile_from_body
from chalicelib.kernel.http import ApiBlueprint, WireModel, ok, parse_body, parse_query
from chalicelib.kernel.wire import Money, StoredTime

if TYPE_CHECKING:
    from chalicelib.agents.services.cron import AgentCron
    from chalicelib.agents.services.lessons import ProfileLessons
    from chalicelib.agents.services.profiles import AgentProfiles


class Uses:
    agent_cron: AgentCron
    agent_profiles: AgentProfiles
    profile_lessons: ProfileLessons


bp = ApiBlueprint(__name__, Uses)


class ProfileBody(WireModel):
    name: str = Field(min_length=1, max_length=48)
    system_prompt: str = Field(min_length=1, max_length=20_000)
    description: str = Field(default="", max_length=500)
    engine: str | None = Field(default=None, max_length=20)
    model: str | None = Field(default=None, max_length=100)
    permission_mode: str | None = Field(default=None, max_length=40)
    allowed_tools: list[str] = Field(default_factory=list, max_length=50)
    time_budget_s: int = Field(default=1800, ge=1, le=86_400)
    cost_budget_usd: Money | None = None
    memory_projects: list[str] = Field(default_factory=list, max_length=50)
    memory_categories: list[str] = Field(default_factory=list, max_length=50)
    default_machine: str | None = Field(default=None, max_length=100)


class CronBody(WireModel):
    schedule: str = Field(min_length=1, max_length=100)
    prompt: str = Field(min_length=1, max_length=10_000)
    profile: str | None = Field(default=None, max_length=48)
    run_id: str | None = Field(default=None, max_length=36)
    project: str | None = Field(default=None, max_length=300)
    until: StoredTime | None = None


class CronQuery(WireModel):
    profile: str | None = Field(default=None, max_length=48)


@bp.route("/api/agents/profiles", methods=["GET"])
def list_profiles() -> Response:
    return ok({"profiles": [p.to_json() for p in bp.services.agent_profiles.all()]})


@bp.route("/api/agents/profiles", methods=["POST"])
def save_profile() -> Response:
    body = parse_body(bp.current_request, ProfileBody)
    saved = bp.services.agent_profiles.save(profile_from_body(body.model_dump()))
    return ok(saved.to_json(), status=201)


@bp.route("/api/agents/profiles/{name}", methods=["GET"])
def show_profile(name: str) -> Response:
    container = bp.services
    profile = container.agent_profiles.get(name)
    lessons = container.profile_lessons.top(profile.name, limit=20)
    return ok({**profile.to_json(), "lessons": [lesson.to_json() for lesson in lessons]})


@bp.route("/api/agents/profiles/{name}", methods=["DELETE"])
def remove_profile(name: str) -> Response:
    bp.services.agent_profiles.remove(name)
    return ok({"removed": name})


@bp.route("/api/agents/cron", methods=["POST"])
def add_cron() -> Response:
    b = parse_body(bp.current_request, CronBody)
    job = bp.services.agent_cron.add(schedule=b.schedule, prompt=b.prompt, profile=b.profile,
                                         run=b.run_id, project=b.project, until=b.until)
    return ok(job.to_json(), status=201)


@bp.route("/api/agents/cron", methods=["GET"])
def list_cron() -> Response:
    q = parse_query(bp.current_request, CronQuery)
    return ok({"jobs": [j.to_json() for j in bp.services.agent_cron.jobs(q.profile)]})


@bp.route("/api/agents/cron/{job_id}", methods=["DELETE"])
def remove_cron(job_id: str) -> Response:
    bp.services.agent_cron.remove(job_id)
    return ok({"removed": job_id})
