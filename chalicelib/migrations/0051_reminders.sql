-- /remind: stored reminders, fired by the `reminders` schedule (infra/schedules.py).
CREATE TABLE IF NOT EXISTS reminders (
    id         bigserial   PRIMARY KEY,
    chat_id    bigint      NOT NULL,
    topic_id   bigint      NOT NULL DEFAULT 0,
    user_id    bigint      NOT NULL,
    message    text        NOT NULL,
    due_at     timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    sent_at    timestamptz,
    attempts   integer     NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS reminders_due ON reminders (due_at) WHERE sent_at IS NULL;
