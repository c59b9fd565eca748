-- The machine registry: one row per agent machine, refreshed by its heartbeat every 30 s.
CREATE TABLE IF NOT EXISTS machines (
    id                text        PRIMARY KEY,
    status            text        NOT NULL DEFAULT 'online',  -- as reported: online | draining | offline
    agent_instance    text,
    active_tasks      integer     NOT NULL DEFAULT 0,
    max_concurrent    integer     NOT NULL DEFAULT 1 CHECK (max_concurrent >= 0),
    engine_priority   text[]      NOT NULL DEFAULT '{claude}',
    projects          text[]      NOT NULL DEFAULT '{}',
    repos             text[]      NOT NULL DEFAULT '{}',
    hostname          text,
    agent_version     text,
    queue_url         text,
    registered_at     timestamptz NOT NULL DEFAULT now(),
    last_heartbeat_at timestamptz NOT NULL DEFAULT now()
);
