-- /continue: the terminal sessions a machine's agent found for a folder, kept until the user
-- picks one with its button; and the engine session an interactive session continues.
CREATE TABLE IF NOT EXISTS telegram_resume_listings (
    id         text        PRIMARY KEY,             -- 10 hex digits: the buttons carry it
    chat_id    bigint      NOT NULL,
    topic_id   bigint      NOT NULL DEFAULT 0,
    user_id    bigint      NOT NULL,
    machine    text        NOT NULL,
    path       text        NOT NULL DEFAULT '',     -- '' every configured folder of the machine
    sessions   jsonb       NOT NULL DEFAULT '[]',   -- the agent's answer, newest first
    status     text        NOT NULL DEFAULT 'asked' CHECK (status IN ('asked', 'listed', 'chosen')),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE agent_sessions ADD COLUMN IF NOT EXISTS resume_id text;  -- the engine's own session id
