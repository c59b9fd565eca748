-- Replies to POSTs that carried an Idempotency-Key: a replay with the same key and the same
-- request gets the stored reply; the record commits in the same transaction as the effect.
CREATE TABLE IF NOT EXISTS request_replies (
    idempotency_key text        PRIMARY KEY,
    fingerprint     text        NOT NULL,          -- sha256 of method, path and canonical body
    status          integer,                       -- NULL until the reply is written
    body            text,
    content_type    text,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS request_replies_age ON request_replies (created_at);
