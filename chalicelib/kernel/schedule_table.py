"""The schedule table: every scheduled worker, read by both `infra/` and the local scheduler.

EventBridge's floor is one minute, so nothing here runs faster.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScheduleSpec:
    name: str
    handler: str  # "module:function" in functions/
    every_s: int  # period; rendered as an EventBridge rate() expression
    description: str
    timeout_s: int = 300  # the Lambda's timeout

    @property
    def rate_expression(self) -> str:
        minutes = max(1, self.every_s // 60)
        if minutes % 1440 == 0:
            days = minutes // 1440
            return f"rate({days} day{'s' if days > 1 else ''})"
        if minutes % 60 == 0:
            hours = minutes // 60
            return f"rate({hours} hour{'s' if hours > 1 else ''})"
        return f"rate({minutes} minute{'s' if minutes > 1 else ''})"


SCHEDULES: tuple[ScheduleSpec, ...] = (
    ScheduleSpec("cleanup", "functions.cleanup:handler", 86400,
                 "Forget idempotency records, then delete rows past their retention (batched, time-bound)."),
    ScheduleSpec("reminders", "functions.reminders:handler", 60, "Send the /remind reminders that are due."),
    ScheduleSpec("review-digest", "functions.review_digest:handler", 3600,
                 "Send the memories waiting for review to the chat in batches, with Keep / Edit / Drop."),
    ScheduleSpec("telegram-outbox-sweep", "functions.telegram_outbox:sweep", 60,
                 "Wake Telegram topic streams whose output has waited over 30 s."),
    ScheduleSpec("task-sweep", "functions.task_sweep:handler", 60,
                 "Retry or fail tasks whose agent stopped renewing its lease; offer waiting tasks."),
    ScheduleSpec("health-monitor", "functions.health_monitor:handler", 60,
                 "Check the API, database, queues, DLQs, heartbeats, scheduler and LLM budget; alert once.",
                 timeout_s=60),
    ScheduleSpec("brain-loop", "functions.brain_loop:handler", 60,
                 "Expire brain proposals; run an OODA cycle when its interval (10 min by default) is up."),
    ScheduleSpec("subagent-lifecycle", "functions.agent_lifecycle:handler", 30,
                 "Finish, time out and report subagent runs; repair runs left without a task."),
    ScheduleSpec("agent-cron", "functions.agent_lifecycle:cron", 60,
                 "Start the subagent runs whose cron jobs are due (each fires once)."),
    ScheduleSpec("embed-pending", "functions.embed_pending:handler", 300,
                 "Embed memories stored without a vector (the embedder missed the write deadline)."),
    ScheduleSpec("search-facts", "functions.search_facts:handler", 600,
                 "Append the facts a language model states about memories to their search keys (budgeted)."),
    ScheduleSpec("effectiveness-decay", "functions.effectiveness_decay:handler", 7 * 86400,
                 "Boost or decay lessons applied 5+ times by their success rate."),
    ScheduleSpec("memory-eviction", "functions.memory_eviction:handler", 7 * 86400,
                 "Move the least valuable memories of projects over budget one phase on (bounded).",
                 timeout_s=900),
    ScheduleSpec("reflection", "functions.reflection:handler", 7 * 86400,
                 "Write a strategy document per project from its recent lessons (LLM, budgeted)."),
    ScheduleSpec("session-synthesizer", "functions.codeintel:synthesize_sessions", 1800,
                 "Summarise completed sessions (goal, changes, decisions, open ends; LLM, budgeted)."),
    ScheduleSpec("edit-analyzer", "functions.codeintel:analyze_edits", 900,
                 "Hot files, files changed together, churn and failing files from recent edits."),
    ScheduleSpec("repo-expertise", "functions.codeintel:repo_expertise", 86400,
                 "One expertise document per repository for briefings and tasks (LLM, budgeted)."),
    ScheduleSpec("style-extractor", "functions.codeintel:extract_style", 7 * 86400,
                 "Each project's coding style from its code changes (LLM, budgeted)."),
    ScheduleSpec("cross-project", "functions.codeintel:cross_project", 7 * 86400,
                 "Propose lessons confirmed in two or more projects into _global (LLM, budgeted)."),
    ScheduleSpec("transcript-indexer", "functions.codeintel:index_transcripts", 3600,
                 "Chunk, redact and index ended sessions' transcripts (category transcript)."),
    ScheduleSpec("github-sync", "functions.codeintel:github_sync", 86400,
                 "Refresh the repos registry (default branches) from the GitHub REST API."),
)
