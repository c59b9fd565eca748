-- The web console's sign-ins. A session is found by the SHA-256 of its cookie's value; its CSRF
-- token is stored as is (it is shown in every form the session's pages carry). A one-time link
-- (`itachi console`) is a token that opens one session and is then spent.
CREATE TABLE IF NOT EXISTS console_sessions (
    token_hash   bytea       PRIMARY KEY CHECK (length(token_hash) = 32),
    csrf_token   text        NOT NULL,
    signed_in_as text        NOT NULL,          -- the key's name (never the key)
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    ended_at     timestamptz
);
CREATE INDEX IF NOT EXISTS console_sessions_expires ON console_sessions (expires_at);

CREATE TABLE IF NOT EXISTS console_links (
    token_hash  bytea       PRIMARY KEY CHECK (length(token_hash) = 32),
    created_by  text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz
);
