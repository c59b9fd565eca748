-- Claude Code (and Codex / Gemini) sessions as the hooks report them.
CREATE TABLE IF NOT EXISTS sessions (
    session_id     text        PRIMARY KEY,
    project        text        NOT NULL,
    client         text        NOT NULL DEFAULT 'claude',
    started_at     timestamptz NOT NULL DEFAULT now(),
    ended_at       timestamptz,
    end_reason     text,
    duration_ms    bigint,
    summary        text,
    last_progress  text,                      -- the last assistant message seen by Stop
    files_changed  text[]      NOT NULL DEFAULT '{}',
    compactions    integer     NOT NULL DEFAULT 0,
    tool_failures  integer     NOT NULL DEFAULT 0,
    tool_successes integer     NOT NULL DEFAULT 0,
    transcript     jsonb,                     -- [{role, text, line}], redacted
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS sessions_project_started ON sessions (project, started_at DESC);

CREATE TABLE IF NOT EXISTS session_edits (
    id            bigserial   PRIMARY KEY,
    session_id    text        NOT NULL,
    project       text        NOT NULL,
    file          text        NOT NULL,
    tool          text        NOT NULL,
    lines_added   integer     NOT NULL DEFAULT 0,
    lines_removed integer     NOT NULL DEFAULT 0,
    language      text,
    diff          text,
    failed        boolean     NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS session_edits_project_created ON session_edits (project, created_at DESC);
CREATE INDEX IF NOT EXISTS session_edits_session ON session_edits (session_id);

-- Progress, compaction and failure events, in arrival order.
CREATE TABLE IF NOT EXISTS session_events (
    id         bigserial   PRIMARY KEY,
    session_id text        NOT NULL,
    project    text        NOT NULL,
    event      text        NOT NULL,
    data       jsonb       NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS session_events_session ON session_events (session_id, id);
