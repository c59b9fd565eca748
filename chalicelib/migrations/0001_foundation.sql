-- Foundation: the vector extension, deployment metadata and consumer idempotency.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE IF NOT EXISTS itachi_meta (
    key   text PRIMARY KEY,
    value text NOT NULL
);

-- Every consumer records its business key here, in the same transaction as its effect.
CREATE TABLE IF NOT EXISTS processed_messages (
    consumer     text        NOT NULL,
    message_key  text        NOT NULL,
    processed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, message_key)
);
CREATE INDEX IF NOT EXISTS processed_messages_age ON processed_messages (processed_at);
