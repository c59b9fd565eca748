-- Tasks: the state machine lives in chalicelib/domain/task_states.py; the CHECK mirrors it.
CREATE TABLE IF NOT EXISTS tasks (
    id                uuid        PRIMARY KEY,
    project           text        NOT NULL,
    description       text        NOT NULL,
    repo              text,
    engine            text,                 -- requested engine; NULL = the machine's priority
    current_engine    text,                 -- the engine running (changes on an auto-switch)
    target_machine    text,                 -- requested machine; NULL = any suitable machine
    machine_id        text,                 -- the machine it was dispatched to
    status            text        NOT NULL DEFAULT 'queued' CHECK (status IN (
                          'queued', 'dispatched', 'running', 'completed', 'failed',
                          'cancelled', 'timed_out')),
    time_budget_s     integer     NOT NULL CHECK (time_budget_s > 0),
    cost_budget_usd   numeric(12, 4),
    attempts          integer     NOT NULL DEFAULT 0,
    max_attempts      integer     NOT NULL DEFAULT 2 CHECK (max_attempts > 0),
    -- Incremented on every dispatch: a queue message naming an older value is stale.
    dispatch_seq      integer     NOT NULL DEFAULT 0,
    engine_switches   integer     NOT NULL DEFAULT 0,
    cancel_requested  boolean     NOT NULL DEFAULT false,
    agent_instance    text,                 -- the agent process that claimed the current attempt
    lease_expires_at  timestamptz,
    worktree          text,
    branch            text,
    result_summary    text,
    files_changed     text[]      NOT NULL DEFAULT '{}',
    exit_code         integer,
    cost_usd          numeric(12, 4),
    error             text,
    telegram_chat_id  bigint,
    telegram_topic_id bigint,
    idempotency_key   text        UNIQUE,
    event_seq         integer     NOT NULL DEFAULT 0,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    dispatched_at     timestamptz,
    started_at        timestamptz,
    finished_at       timestamptz
);
CREATE INDEX IF NOT EXISTS tasks_status_created ON tasks (status, created_at);
CREATE INDEX IF NOT EXISTS tasks_project_created ON tasks (project, created_at DESC);
CREATE INDEX IF NOT EXISTS tasks_machine_active ON tasks (machine_id)
    WHERE status IN ('dispatched', 'running');
CREATE INDEX IF NOT EXISTS tasks_lease ON tasks (lease_expires_at) WHERE status = 'running';

-- Progress and state changes of a task, numbered per task (seq) so readers can follow with a cursor.
CREATE TABLE IF NOT EXISTS task_events (
    task_id    uuid        NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    seq        integer     NOT NULL,
    attempt    integer     NOT NULL DEFAULT 0,
    kind       text        NOT NULL,
    text       text        NOT NULL DEFAULT '',
    data       jsonb       NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (task_id, seq)
);

-- One row per finished attempt, for the learning loop to reinforce or weaken lessons.
CREATE TABLE IF NOT EXISTS task_outcomes (
    task_id       uuid        NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    attempt       integer     NOT NULL,
    project       text        NOT NULL,
    outcome       text        NOT NULL CHECK (outcome IN ('success', 'failure', 'cancelled')),
    engine        text,
    summary       text        NOT NULL DEFAULT '',
    files_changed text[]      NOT NULL DEFAULT '{}',
    cost_usd      numeric(12, 4),
    duration_s    real,
    recorded_at   timestamptz NOT NULL DEFAULT now(),
    consumed_at   timestamptz,
    PRIMARY KEY (task_id, attempt)
);
CREATE INDEX IF NOT EXISTS task_outcomes_unconsumed ON task_outcomes (recorded_at)
    WHERE consumed_at IS NULL;
