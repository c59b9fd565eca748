-- Memory lifecycle: phased eviction (full -> hint -> abstract -> archived), the archive that
-- keeps every original text, the steps each eviction run took (its idempotency record), and
-- per-project snapshots and profiles.

-- The original text of a memory, written before its first reduction and kept until a restore.
-- No foreign key: an archive row is the one copy of the text, so it never goes away by cascade
-- (`itachi memory check` reports rows whose memory is gone).
CREATE TABLE IF NOT EXISTS memory_archive (
    memory_id    uuid        PRIMARY KEY,
    project      text        NOT NULL,
    category     text        NOT NULL,
    content      text        NOT NULL,
    summary      text        NOT NULL DEFAULT '',
    archived_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS memory_archive_project ON memory_archive (project, memory_id);

-- One row per memory a run advanced: a rerun of the same run (same key) skips them, so an
-- interrupted run resumes instead of advancing a memory twice.
CREATE TABLE IF NOT EXISTS memory_eviction_steps (
    run_key    text        NOT NULL,
    memory_id  uuid        NOT NULL,
    project    text        NOT NULL,
    from_phase smallint    NOT NULL,
    to_phase   smallint    NOT NULL,
    done_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_key, memory_id)
);
CREATE INDEX IF NOT EXISTS memory_eviction_steps_run_project ON memory_eviction_steps (run_key, project);
CREATE INDEX IF NOT EXISTS memory_eviction_steps_done ON memory_eviction_steps (done_at);

CREATE INDEX IF NOT EXISTS memories_project_phase ON memories (project, phase);
-- Listing by project, newest first, with a (created_at, id) cursor.
CREATE INDEX IF NOT EXISTS memories_project_created_id ON memories (project, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS memories_session ON memories (session_id) WHERE session_id IS NOT NULL;

-- A snapshot: a consistent copy of one project's memories, archives (and, once graph memory
-- exists, its nodes and edges), as JSON rows per part.
CREATE TABLE IF NOT EXISTS memory_snapshots (
    id          bigserial   PRIMARY KEY,
    project     text        NOT NULL,
    name        text        NOT NULL,
    automatic   boolean     NOT NULL DEFAULT false,
    counts      jsonb       NOT NULL DEFAULT '{}'::jsonb,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (project, name)
);
CREATE TABLE IF NOT EXISTS memory_snapshot_items (
    snapshot_id bigint NOT NULL REFERENCES memory_snapshots (id) ON DELETE CASCADE,
    part        text   NOT NULL,
    item        jsonb  NOT NULL
);
CREATE INDEX IF NOT EXISTS memory_snapshot_items_snapshot ON memory_snapshot_items (snapshot_id, part);

-- The profile loaded into a project (seed 002's db-manager), if any.
CREATE TABLE IF NOT EXISTS memory_profile_state (
    project    text        PRIMARY KEY,
    profile    text        NOT NULL,
    loaded_at  timestamptz NOT NULL DEFAULT now()
);

-- Tags: free ones (given when storing, `metadata.tags` included) and automatic ones
-- (`category:`, `file:`, `ext:`, `entity:`), one array with a GIN index for `tag=` filters.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS tags text[] NOT NULL DEFAULT '{}';
UPDATE memories SET tags = ARRAY(
    SELECT DISTINCT t FROM unnest(
        ARRAY['category:' || category]
        || CASE WHEN jsonb_typeof(metadata -> 'tags') = 'array'
                THEN ARRAY(SELECT jsonb_array_elements_text(metadata -> 'tags')) ELSE '{}' END) AS t
    ORDER BY t)
WHERE tags = '{}';
CREATE INDEX IF NOT EXISTS memories_tags ON memories USING gin (tags);
