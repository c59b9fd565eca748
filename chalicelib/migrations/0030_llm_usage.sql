-- LLM spend: one row per call (or per call skipped by the budget), by UTC day and purpose.
-- A call first reserves its worst case (status 'pending', reserved_*), then settles to what the
-- provider reported. Until it settles, the reservation counts against the day's budget.
CREATE TABLE IF NOT EXISTS llm_usage (
    id                bigserial   PRIMARY KEY,
    day               date        NOT NULL DEFAULT (now() AT TIME ZONE 'utc')::date,
    purpose           text        NOT NULL,
    model             text        NOT NULL,
    status            text        NOT NULL
                      CHECK (status IN ('pending', 'ok', 'malformed', 'error', 'timeout', 'skipped')),
    prompt_tokens     integer     NOT NULL DEFAULT 0,
    completion_tokens integer     NOT NULL DEFAULT 0,
    cost_usd          numeric(14, 6) NOT NULL DEFAULT 0,
    reserved_tokens   integer     NOT NULL DEFAULT 0,
    reserved_usd      numeric(14, 6) NOT NULL DEFAULT 0,
    attempts          integer     NOT NULL DEFAULT 0,
    detail            text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    settled_at        timestamptz
);
CREATE INDEX IF NOT EXISTS llm_usage_day_purpose ON llm_usage (day, purpose);
