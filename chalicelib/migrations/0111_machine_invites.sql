-- One-time, expiring invitations for a new machine (`itachi machines invite`, `/machines invite`).
-- `itachi join URL --token T` spends one: the server issues the machine key in the same
-- transaction. Only the token's SHA-256 is stored.
CREATE TABLE IF NOT EXISTS machine_invites (
    id          uuid        PRIMARY KEY,
    token_hash  bytea       NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    machine_id  text,                          -- NULL: the joining machine names itself
    created_by  text        NOT NULL,          -- the key (or Telegram user) that invited
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz,
    used_by     text,                          -- the machine that joined
    key_id      uuid        REFERENCES api_keys (id)
);
