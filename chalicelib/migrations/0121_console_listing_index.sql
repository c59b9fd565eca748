-- The console's memory list across every project is newest first (created_at, id), as
-- GET /api/memory without a project is: an index in that order reads one page instead of
-- sorting every memory (100k memories: a page in milliseconds rather than a full sort).
CREATE INDEX IF NOT EXISTS memories_created_id ON memories (created_at DESC, id DESC);
