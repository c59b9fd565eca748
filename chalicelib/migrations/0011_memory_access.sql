-- Access statistics change on every read, so they live apart from the wide memory rows:
-- recording an access must not write a new version of a memory (and of its HNSW and GIN
-- index entries). Search results count at most once per memory per ten minutes.
CREATE TABLE IF NOT EXISTS memory_access (
    memory_id        uuid        PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
    access_count     bigint      NOT NULL DEFAULT 0,
    last_accessed_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE memories DROP COLUMN IF EXISTS access_count, DROP COLUMN IF EXISTS last_accessed_at;
