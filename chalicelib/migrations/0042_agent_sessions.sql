-- Interactive engine sessions run by an agent (distinct from `sessions`, the Claude Code hook sessions).
CREATE TABLE IF NOT EXISTS agent_sessions (
    id                uuid        PRIMARY KEY,
    machine_id        text        NOT NULL,
    project           text        NOT NULL,
    repo              text,
    engine            text        NOT NULL DEFAULT 'claude',
    status            text        NOT NULL DEFAULT 'starting' CHECK (status IN (
                          'starting', 'active', 'closing', 'closed', 'failed')),
    input_seq         integer     NOT NULL DEFAULT 0,
    event_seq         integer     NOT NULL DEFAULT 0,
    exit_code         integer,
    error             text,
    telegram_chat_id  bigint,
    telegram_topic_id bigint,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    closed_at         timestamptz
);
CREATE INDEX IF NOT EXISTS agent_sessions_machine_status ON agent_sessions (machine_id, status);

CREATE TABLE IF NOT EXISTS agent_session_events (
    session_id uuid        NOT NULL REFERENCES agent_sessions (id) ON DELETE CASCADE,
    seq        integer     NOT NULL,
    kind       text        NOT NULL,
    text       text        NOT NULL DEFAULT '',
    data       jsonb       NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (session_id, seq)
);
