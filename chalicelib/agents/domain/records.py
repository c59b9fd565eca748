"""Runs, messages, cron jobs and profile lessons as the services see them, and their JSON."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from chalicelib.contracts.json_records import JsonRecord

ACTIVE = "active"
RUN_STATUSES = (ACTIVE, "completed", "failed", "cancelled", "timed_out")
ORIGINS = ("user", "agent", "cron", "message")
TASK_KEY_PREFIX = "agent-run:"


@dataclass(frozen=True)
class NewRun:
    profile: str
    project: str
    prompt: str
    origin: str = "user"
    parent_run_id: str | None = None
    repo: str | None = None
    target_machine: str | None = None
    telegram_chat_id: int | None = None
    telegram_topic_id: int | None = None
    time_budget_s: int = 1800
    cost_budget_usd: float | None = None
    idempotency_key: str | None = None


@dataclass(frozen=True, kw_only=True)
class AgentRun(NewRun, JsonRecord):
    """A stored run: what was asked for (its NewRun) and how it went."""

    id: str
    status: str = ACTIVE
    task_id: str | None = None
    cost_usd: float | None = None
    result_summary: str | None = None
    stop_reason: str | None = None
    lessons_applied: tuple[str, ...] = ()
    rated: bool = False
    created_at: datetime | None = None
    finished_at: datetime | None = None

    @property
    def task_key(self) -> str:
        """The idempotency key of the run's task: a retried spawn never makes a second task."""
        return f"{TASK_KEY_PREFIX}{self.id}"


@dataclass(frozen=True)
class AgentMessage(JsonRecord):
    run_id: str
    seq: int
    sender: str
    body: str
    status: str = "pending"
    follow_up_run_id: str | None = None
    created_at: datetime | None = None
    delivered_at: datetime | None = None


@dataclass(frozen=True)
class CronJob(JsonRecord):
    id: str
    profile: str
    project: str
    schedule: str
    prompt: str
    until_at: datetime | None = None
    created_by_run: str | None = None
    next_fire_at: datetime | None = None
    last_fired_at: datetime | None = None
    fire_count: int = 0
    enabled: bool = True
    created_at: datetime | None = None


@dataclass(frozen=True)
class ProfileLesson(JsonRecord):
    id: str
    profile: str
    content: str
    kind: str
    confidence: float
    source_run: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None


def run_prompt(prompt: str, profile: str, lessons: list[ProfileLesson],
               messages: list[AgentMessage]) -> str:
    """The task prompt with what the profile learned and the messages that arrived before it started."""
    parts = [prompt]
    if lessons:
        parts.append(f"## Lessons from earlier {profile} runs\n" + "\n".join(
            f"- {lesson.content} (confidence {lesson.confidence:.2f})" for lesson in lessons))
    if messages:
        parts.append("## Messages for this run\n" + "\n".join(
            f"- from {m.sender}: {m.body}" for m in messages))
    return "\n\n".join(parts)


def follow_up_prompt(run: AgentRun, messages: list[AgentMessage]) -> str:
    said = "\n".join(f"- from {m.sender}: {m.body}" for m in messages)
    summary = (run.result_summary or "(no summary)")[:2000]
    return (f"Follow-up to {run.profile} run {run.id[:8]} ({run.status}): {run.prompt[:500]}\n\n"
            f"What that run reported:\n{summary}\n\nMessages that arrived after it ended:\n{said}")


def outcome_lesson(run: AgentRun, status: str, summary: str, error: str | None) -> str:
    """One line the next run of the profile reads: what was asked, how it went, why."""
    asked = " ".join(run.prompt.split())[:160]
    if status == "completed":
        return f"A run asked to '{asked}' completed: {' '.join(summary.split())[:300]}"
    why = " ".join((error or summary or status).split())[:300]
    return f"A run asked to '{asked}' ended {status}: {why}"
