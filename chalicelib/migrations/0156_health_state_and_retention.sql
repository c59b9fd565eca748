-- The health monitor's memory, kept across cold starts: each check's consecutive failures, and
-- the restarts it asked of each machine (the hourly cap counts them).
CREATE TABLE IF NOT EXISTS health_checks (
    name       text        PRIMARY KEY,
    failures   integer     NOT NULL DEFAULT 0,
    alerted    boolean     NOT NULL DEFAULT false,
    detail     text        NOT NULL DEFAULT '',
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS health_monitor_runs (
    id     smallint    PRIMARY KEY CHECK (id = 1),  -- one row: when the monitor last ran
    ran_at timestamptz NOT NULL
);
CREATE TABLE IF NOT EXISTS health_restarts (
    machine_id   text        NOT NULL,
    requested_at timestamptz NOT NULL DEFAULT now(),
    capped       boolean     NOT NULL DEFAULT false,  -- the cap held it back (reported once per hour)
    PRIMARY KEY (machine_id, requested_at)
);

-- Retention: what each cleanup run removed by kind (the last one is shown by `itachi status`).
CREATE TABLE IF NOT EXISTS retention_runs (
    id          bigserial   PRIMARY KEY,
    started_at  timestamptz NOT NULL,
    finished_at timestamptz NOT NULL DEFAULT now(),
    removed     jsonb       NOT NULL,
    complete    boolean     NOT NULL  -- false: the time budget ended it, the next run goes on
);
-- The cleanup deletes oldest first in batches: these let each batch find its rows by age.
CREATE INDEX IF NOT EXISTS task_events_created ON task_events (created_at);
CREATE INDEX IF NOT EXISTS session_edits_created ON session_edits (created_at);
CREATE INDEX IF NOT EXISTS memories_transcript_created ON memories (created_at) WHERE category = 'transcript';
