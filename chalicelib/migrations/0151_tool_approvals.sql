-- Tool approvals: a tool call an engine's permission mode would ask about, sent to Telegram with
-- Approve / Deny / Always for this session; no answer by expires_at means deny. Every decision
-- stays recorded.
CREATE TABLE IF NOT EXISTS tool_approvals (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    session_id  text        NOT NULL,
    project     text        NOT NULL,
    tool        text        NOT NULL,
    summary     text        NOT NULL DEFAULT '',
    status      text        NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'allowed', 'denied', 'expired')),
    always      boolean     NOT NULL DEFAULT false,
    decided_by  text,
    decided_at  timestamptz,
    chat_id     bigint,
    topic_id    bigint,
    message_id  bigint,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS tool_approvals_session ON tool_approvals (session_id, created_at DESC);
CREATE INDEX IF NOT EXISTS tool_approvals_pending ON tool_approvals (expires_at) WHERE status = 'pending';

-- "Always for this session": later calls of that tool in that session are allowed at once.
CREATE TABLE IF NOT EXISTS tool_approval_grants (
    session_id  text        NOT NULL,
    tool        text        NOT NULL,
    approval_id uuid        NOT NULL REFERENCES tool_approvals (id) ON DELETE CASCADE,
    granted_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (session_id, tool)
);
