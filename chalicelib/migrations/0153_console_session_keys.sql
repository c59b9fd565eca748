-- A console session, and a one-time link, keep the SHA-256 of the API key that opened it (the
-- form api_keys keeps a key in; never the key): the session is live only while that key is, so
-- revoking a key (or rotating the deployment's key out) ends its sessions on their next request.
-- Sessions opened before this carry none and are no longer live: their users sign in again.
ALTER TABLE console_sessions ADD COLUMN IF NOT EXISTS key_hash bytea CHECK (length(key_hash) = 32);
ALTER TABLE console_links ADD COLUMN IF NOT EXISTS key_hash bytea CHECK (length(key_hash) = 32);
