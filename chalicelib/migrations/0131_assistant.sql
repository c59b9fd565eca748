-- The Telegram assistant: the messages it saw (for the personality extractor, about every ten),
-- how far the extractor has read per chat, and the task offers waiting for a Create / Cancel tap.
CREATE TABLE IF NOT EXISTS assistant_messages (
    id         bigserial   PRIMARY KEY,
    chat_id    bigint      NOT NULL,
    speaker    text        NOT NULL,
    text       text        NOT NULL,              -- redacted
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS assistant_messages_chat ON assistant_messages (chat_id, id);

CREATE TABLE IF NOT EXISTS assistant_chats (
    chat_id           bigint      PRIMARY KEY,
    extracted_through bigint      NOT NULL DEFAULT 0,  -- the last message id the extractor read
    updated_at        timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS assistant_offers (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    chat_id    bigint      NOT NULL,
    topic_id   bigint      NOT NULL DEFAULT 0,
    user_id    bigint,
    project    text        NOT NULL,
    machine    text,
    prompt     text        NOT NULL,
    status     text        NOT NULL DEFAULT 'offered' CHECK (status IN ('offered', 'created', 'cancelled')),
    task_id    text,
    created_at timestamptz NOT NULL DEFAULT now(),
    decided_at timestamptz
);
