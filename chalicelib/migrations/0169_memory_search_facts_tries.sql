-- How many of the model's passes over a memory's key went unanswered (`memory/services/search_facts.py`):
-- a memory asked before goes after the ones never asked, and alone, so one the model keeps failing on
-- holds back no other memory. Back to 0 whenever the key waits again (a rewrite, an import).
ALTER TABLE memories ADD COLUMN IF NOT EXISTS search_facts_tries smallint NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS memories_search_facts_waiting ON memories (search_facts_tries, created_at, id)
    WHERE search_facts_at IS NULL;
DROP INDEX IF EXISTS memories_search_facts_pending;
