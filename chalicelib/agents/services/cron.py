"""Self-scheduled cron jobs (`manage_cron`): a profile or a run schedules a prompt for later.

`fire_due` runs every minute. It locks the due jobs with FOR UPDATE SKIP LOCKED, moves each to
its next time and records the run it fires, all in one transaction; a second invocation running
at the same moment skips the locked jobs, and one starting after the commit finds them no longer
due. The fired run's idempotency key (`cron:<job>:<due time>`) is a second guard. Tasks for the
fired runs are created after the commit (a crash in between is repaired by the lifecycle worker).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime

from chalicelib.agents.domain.cron_schedule import parse_cron
from chalicelib.agents.domain.records import AgentRun, CronJob, NewRun
from chalicelib.agents.services.ports import AgentsUnits
from chalicelib.agents.services.runs import SubagentRuns
from chalicelib.kernel.errors import InvalidInput, NotFound

MAX_PROMPT = 10_000
FIRE_LIMIT = 50


class AgentCron:
    def __init__(self, units: AgentsUnits, runs: SubagentRuns,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._units, self._runs, self._clock = units, runs, clock

    def add(self, *, schedule: str, prompt: str, profile: str | None = None, run: str | None = None,
            project: str | None = None, until: datetime | None = None) -> CronJob:
        """Schedule `prompt` for a profile, or for the profile of run `run` (a run scheduling itself)."""
        prompt = prompt.strip()
        if not prompt or len(prompt) > MAX_PROMPT:
            raise InvalidInput(f"the prompt must be 1 to {MAX_PROMPT} characters", field="prompt")
        origin = self._runs.get(run) if run else None
        name = origin.profile if origin else profile
        if not name:
            raise InvalidInput("a cron job needs a profile or a run", field="profile")
        name = self._runs.profile(name).name
        now = self._clock()
        first = parse_cron(schedule).next_after(now)
        if until is not None and (until.tzinfo is None or first is None or first > until):
            raise InvalidInput("until must be a time with a zone, after the first run", field="until")
        job = CronJob(str(uuid.uuid4()), name, project or (origin.project if origin else "agents"),
                      " ".join(schedule.split()), prompt, until, origin.id if origin else None, first)
        with self._units() as uow:
            saved = uow.cron.insert(job)
            uow.commit()
        return saved

    def jobs(self, profile: str | None = None) -> list[CronJob]:
        with self._units() as uow:
            return uow.cron.jobs(profile)

    def remove(self, ref: str) -> None:
        """Remove a job by id or by a unique prefix of at least six characters."""
        ref = ref.strip().lower()
        matches = [j.id for j in self.jobs() if j.id == ref or (len(ref) >= 6 and j.id.startswith(ref))]
        if len(matches) != 1:
            raise NotFound(f"no cron job {ref!r}" if not matches else f"cron job prefix {ref!r} is ambiguous")
        job_id = matches[0]
        with self._units() as uow:
            removed = uow.cron.delete(job_id)
            uow.commit()
        if not removed:
            raise NotFound(f"no cron job {job_id!r}")

    def fire_due(self, limit: int = FIRE_LIMIT) -> list[AgentRun]:
        """Fire every due job once; return the runs started."""
        now = self._clock()
        fired: list[AgentRun] = []
        with self._units() as uow:
            for job in uow.cron.claim_due(now, limit):
                due = job.next_fire_at or now
                nxt = parse_cron(job.schedule).next_after(max(now, due))
                if job.until_at is not None and nxt is not None and nxt > job.until_at:
                    nxt = None
                uow.cron.fired(job.id, now, nxt)
                profile = self._runs.profile(job.profile)
                run, fresh = uow.runs.insert(str(uuid.uuid4()), NewRun(
                    job.profile, job.project, job.prompt, "cron", job.created_by_run,
                    time_budget_s=profile.time_budget_s, cost_budget_usd=profile.cost_budget_usd,
                    idempotency_key=f"cron:{job.id}:{due.isoformat()}"))
                if fresh:
                    fired.append(run)
            uow.commit()
        return [self._runs.ensure_task(run) for run in fired]
