-- Deleting memories checks the self-reference (ON DELETE SET NULL) for each row deleted: without
-- this index a bulk delete (a snapshot load, an unload) scans the table once per row.
CREATE INDEX IF NOT EXISTS memories_superseded_by ON memories (superseded_by) WHERE superseded_by IS NOT NULL;
