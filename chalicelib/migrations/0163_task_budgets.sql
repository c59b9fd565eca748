-- Cost caps of chat users' tasks (chalicelib/tasks/domain/task_budget.py) and what tasks spent.
-- A cap left NULL takes the deployment's default; 0 is no cap.
CREATE TABLE IF NOT EXISTS budget_caps (
    telegram_user_id bigint      PRIMARY KEY,
    task_cap_usd     numeric(12, 4) CHECK (task_cap_usd >= 0),
    daily_cap_usd    numeric(12, 4) CHECK (daily_cap_usd >= 0),
    updated_at       timestamptz NOT NULL DEFAULT now()
);

-- The largest running total each attempt reported: a retried report adds nothing.
CREATE TABLE IF NOT EXISTS task_spend (
    task_id    uuid           NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
    attempt    integer        NOT NULL,
    spent_usd  numeric(14, 6) NOT NULL DEFAULT 0,
    updated_at timestamptz    NOT NULL DEFAULT now(),
    PRIMARY KEY (task_id, attempt)
);

-- A chat user's spend per UTC day, the sum of what their tasks' reports added that day.
CREATE TABLE IF NOT EXISTS daily_spend (
    telegram_user_id bigint         NOT NULL,
    day              date           NOT NULL,
    spent_usd        numeric(14, 6) NOT NULL DEFAULT 0,
    PRIMARY KEY (telegram_user_id, day)
);
