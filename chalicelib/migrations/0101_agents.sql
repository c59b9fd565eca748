-- Subagents: specialist profiles, their runs (each executed as a task), messages to runs,
-- self-scheduled cron jobs and the lessons each profile accumulates.

-- What a task's engine is started with beyond the prompt: a system prompt to append, a
-- permission mode, a model, allowed tools, and `interactive` (user turns relayed on stdin).
ALTER TABLE tasks ADD COLUMN IF NOT EXISTS engine_options jsonb NOT NULL DEFAULT '{}'::jsonb;

-- User profiles (the built-in ones live in chalicelib/agents/domain/builtin_profiles.py).
CREATE TABLE IF NOT EXISTS agent_profiles (
    name              text        PRIMARY KEY,
    description       text        NOT NULL DEFAULT '',
    system_prompt     text        NOT NULL,
    engine            text,
    model             text,
    permission_mode   text        NOT NULL DEFAULT 'acceptEdits',
    allowed_tools     text[]      NOT NULL DEFAULT '{}',
    time_budget_s     integer     NOT NULL CHECK (time_budget_s > 0),
    cost_budget_usd   numeric(12, 4),
    memory_projects   text[]      NOT NULL DEFAULT '{}',
    memory_categories text[]      NOT NULL DEFAULT '{}',
    default_machine   text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now()
);

-- A run is one task (the task carries the worktree, engine, lease and Telegram topic); the run
-- adds the profile, who spawned it, and the lifecycle worker's bookkeeping.
CREATE TABLE IF NOT EXISTS agent_runs (
    id              uuid        PRIMARY KEY,
    profile         text        NOT NULL,
    project         text        NOT NULL,
    prompt          text        NOT NULL,
    -- Set once the task exists (the run row comes first: a crash in between is repaired by
    -- the lifecycle worker, which creates the task under the idempotency key agent-run:<id>).
    task_id         uuid        UNIQUE REFERENCES tasks (id) ON DELETE SET NULL,
    repo            text,
    target_machine  text,
    telegram_chat_id  bigint,
    telegram_topic_id bigint,
    parent_run_id   uuid        REFERENCES agent_runs (id) ON DELETE SET NULL,
    origin          text        NOT NULL DEFAULT 'user' CHECK (origin IN ('user', 'agent', 'cron', 'message')),
    status          text        NOT NULL DEFAULT 'active' CHECK (status IN (
                        'active', 'completed', 'failed', 'cancelled', 'timed_out')),
    time_budget_s   integer     NOT NULL,
    cost_budget_usd numeric(12, 4),
    cost_usd        numeric(12, 4),
    result_summary  text,
    stop_reason     text,
    lessons_applied uuid[]      NOT NULL DEFAULT '{}',
    rated           boolean     NOT NULL DEFAULT false,
    idempotency_key text        UNIQUE,
    created_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz
);
CREATE INDEX IF NOT EXISTS agent_runs_active ON agent_runs (created_at) WHERE status = 'active';
CREATE INDEX IF NOT EXISTS agent_runs_profile ON agent_runs (profile, created_at DESC);

-- Messages to a run, numbered per run. A running engine gets a pending message at its next
-- turn; one still pending when its run ends becomes a follow-up run.
CREATE TABLE IF NOT EXISTS agent_messages (
    run_id           uuid        NOT NULL REFERENCES agent_runs (id) ON DELETE CASCADE,
    seq              integer     NOT NULL,
    sender           text        NOT NULL,
    body             text        NOT NULL,
    status           text        NOT NULL DEFAULT 'pending' CHECK (status IN (
                         'pending', 'delivered', 'followed_up')),
    follow_up_run_id uuid        REFERENCES agent_runs (id) ON DELETE SET NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    delivered_at     timestamptz,
    PRIMARY KEY (run_id, seq)
);

-- Self-scheduled recurring runs; the scheduler claims due rows with FOR UPDATE SKIP LOCKED.
CREATE TABLE IF NOT EXISTS agent_cron (
    id             uuid        PRIMARY KEY,
    profile        text        NOT NULL,
    project        text        NOT NULL,
    schedule       text        NOT NULL,
    prompt         text        NOT NULL,
    until_at       timestamptz,
    created_by_run uuid        REFERENCES agent_runs (id) ON DELETE SET NULL,
    next_fire_at   timestamptz,
    last_fired_at  timestamptz,
    fire_count     integer     NOT NULL DEFAULT 0,
    enabled        boolean     NOT NULL DEFAULT true,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS agent_cron_due ON agent_cron (next_fire_at) WHERE enabled;

-- What each profile learned from its runs' outcomes, its users' feedback and its own notes.
CREATE TABLE IF NOT EXISTS agent_lessons (
    id          uuid        PRIMARY KEY,
    profile     text        NOT NULL,
    content     text        NOT NULL,
    kind        text        NOT NULL CHECK (kind IN ('outcome', 'feedback', 'notes')),
    confidence  real        NOT NULL,
    source_run  uuid        REFERENCES agent_runs (id) ON DELETE SET NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (profile, content)
);
CREATE INDEX IF NOT EXISTS agent_lessons_rank ON agent_lessons (profile, confidence DESC);
