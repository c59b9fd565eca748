-- Named, scoped API keys. Only the SHA-256 of a key is stored (keys are 256-bit random, so a
-- plain hash is enough and lets a request find its key by one index lookup); the key itself is
-- shown once, when it is created. A revoked key keeps its row (who had it, when it ended).
CREATE TABLE IF NOT EXISTS api_keys (
    id          uuid        PRIMARY KEY,
    name        text        NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
    kind        text        NOT NULL CHECK (kind IN ('admin', 'machine', 'client')),
    machine_id  text,                          -- a machine key acts as this machine only
    projects    text[],                        -- NULL: every project
    read_only   boolean     NOT NULL DEFAULT false,
    key_hash    bytea       NOT NULL UNIQUE CHECK (length(key_hash) = 32),
    key_prefix  text        NOT NULL,          -- the first characters, to recognise a key in a list
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz,
    CHECK ((kind = 'machine') = (machine_id IS NOT NULL))
);
-- A name names one live key; a revoked name may be given to a new key.
CREATE UNIQUE INDEX IF NOT EXISTS api_keys_live_name ON api_keys (name) WHERE revoked_at IS NULL;
