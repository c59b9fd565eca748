-- Telegram front-end: the forum topics the bot opened, the per-topic outbox that streams
-- task and session output, and the session picker's pending requests.

-- One topic per task or session. topic_id 0 means "the chat itself" (a chat without topics).
CREATE TABLE IF NOT EXISTS telegram_topics (
    kind       text        NOT NULL CHECK (kind IN ('task', 'session')),
    ref_id     text        NOT NULL,
    chat_id    bigint      NOT NULL,
    topic_id   bigint      NOT NULL DEFAULT 0,
    title      text        NOT NULL,
    status     text        NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
    created_at timestamptz NOT NULL DEFAULT now(),
    closed_at  timestamptz,
    PRIMARY KEY (kind, ref_id)
);
CREATE INDEX IF NOT EXISTS telegram_topics_thread ON telegram_topics (chat_id, topic_id)
    WHERE topic_id <> 0;

-- Output waiting to be sent, in order per stream ("task:<id>" or "session:<id>"). Every body
-- already fits one message; a row is deleted once Telegram accepted the message that held it.
CREATE TABLE IF NOT EXISTS telegram_outbox (
    id         bigserial   PRIMARY KEY,
    stream     text        NOT NULL,
    chat_id    bigint      NOT NULL,
    topic_id   bigint      NOT NULL DEFAULT 0,
    kind       text        NOT NULL DEFAULT 'text' CHECK (kind IN ('text', 'close')),
    body       text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS telegram_outbox_stream ON telegram_outbox (stream, id);

-- Pacing per stream: when it last flushed, and until when Telegram asked it to wait (429).
CREATE TABLE IF NOT EXISTS telegram_streams (
    stream        text        PRIMARY KEY,
    last_flush_at timestamptz,
    not_before    timestamptz
);

-- /session asks which engine and mode to run; the request waits here for the button press.
CREATE TABLE IF NOT EXISTS telegram_session_requests (
    id         text        PRIMARY KEY,
    chat_id    bigint      NOT NULL,
    topic_id   bigint      NOT NULL DEFAULT 0,
    user_id    bigint      NOT NULL,
    machine    text        NOT NULL,
    prompt     text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    chosen_at  timestamptz,
    session_id text
);
