-- The brain loop (chalicelib/brain/): one row of settings and daily tallies, and its proposals.
CREATE TABLE IF NOT EXISTS brain_state (
    id              boolean     PRIMARY KEY DEFAULT true CHECK (id),
    enabled         boolean     NOT NULL DEFAULT true,          -- the kill switch (/brain off)
    interval_s      integer     NOT NULL DEFAULT 600 CHECK (interval_s >= 60),
    daily_llm_calls integer     NOT NULL DEFAULT 48 CHECK (daily_llm_calls >= 0),  -- the brain's budget
    max_proposals   integer     NOT NULL DEFAULT 3 CHECK (max_proposals BETWEEN 0 AND 10),
    budget_day      date,
    llm_calls_today integer     NOT NULL DEFAULT 0,
    last_cycle_at   timestamptz,
    last_cycle      jsonb       NOT NULL DEFAULT '{}'::jsonb,
    updated_at      timestamptz NOT NULL DEFAULT now()
);
INSERT INTO brain_state (id) VALUES (true) ON CONFLICT DO NOTHING;

CREATE TABLE IF NOT EXISTS brain_proposals (
    id                  uuid        PRIMARY KEY,
    dedup_key           text        NOT NULL,   -- what was observed: one open proposal per key
    project             text,
    title               text        NOT NULL,
    rationale           text        NOT NULL DEFAULT '',
    priority            integer     NOT NULL DEFAULT 3 CHECK (priority BETWEEN 1 AND 5),  -- 1 = most urgent
    action              jsonb       NOT NULL,   -- {"kind": ..., ...}: what Approve runs
    status              text        NOT NULL DEFAULT 'pending' CHECK (status IN (
                            'pending', 'approving', 'approved', 'rejected', 'expired', 'failed')),
    result              text,
    reject_reason       text,
    decided_by          text,
    telegram_chat_id    bigint,
    telegram_message_id bigint,
    created_at          timestamptz NOT NULL DEFAULT now(),
    expires_at          timestamptz NOT NULL,
    decided_at          timestamptz
);
CREATE UNIQUE INDEX IF NOT EXISTS brain_proposals_open_key ON brain_proposals (dedup_key)
    WHERE status IN ('pending', 'approving');
CREATE INDEX IF NOT EXISTS brain_proposals_created ON brain_proposals (created_at DESC);
CREATE INDEX IF NOT EXISTS brain_proposals_expiry ON brain_proposals (expires_at) WHERE status = 'pending';
