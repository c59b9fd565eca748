-- What the server asks of a machine, apart from tasks: paused (no new tasks, e.g. by an approved
-- brain proposal), the engine order set from /engines, and a pending /update or /restart that
-- the agent carries out once its running tasks end.
CREATE TABLE IF NOT EXISTS machine_controls (
    machine_id        text        PRIMARY KEY,
    paused            boolean     NOT NULL DEFAULT false,
    engine_priority   text[],                 -- NULL: the agent's own order
    restart_id        text,                   -- the pending /update or /restart
    restart_kind      text        CHECK (restart_kind IN ('update', 'restart')),
    restart_from      text,                   -- the agent instance that was asked
    version_before    text,
    requested_at      timestamptz,
    reply_chat_id     bigint,
    reply_topic_id    bigint,
    updated_at        timestamptz NOT NULL DEFAULT now()
);
