-- End-to-end encrypted file sync: ciphertext, the SHA-256 of the ciphertext, and metadata.
-- No plaintext, no key, no hash of the plaintext ever reaches this table (see docs/sync.md).
-- One row per version of a file; a row without ciphertext is a tombstone (the file was forgotten).
CREATE TABLE IF NOT EXISTS sync_files (
    seq          bigserial   PRIMARY KEY,          -- pull cursor, increasing per project in commit order
    project      text        NOT NULL,
    path         text        NOT NULL,             -- relative to the repository root, '/' separated
    version      integer     NOT NULL CHECK (version > 0),
    machine_id   text        NOT NULL,
    content_hash text        NOT NULL,             -- hex SHA-256 of ciphertext ('' for a tombstone)
    size         integer     NOT NULL CHECK (size >= 0),
    ciphertext   bytea,
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (project, path, version)
);
CREATE INDEX IF NOT EXISTS sync_files_project_seq ON sync_files (project, seq);
