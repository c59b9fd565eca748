-- The facts a language model extracts from a memory join its search key (`memory/services/search_facts.py`,
-- the `search-facts` schedule): `search_facts` is the part of `search_key` the model added (so the
-- model-free key is kept when the facts are recomputed), `search_facts_at` when the model's pass ran
-- (NULL: not yet, or the content changed since). Rows written before wait for a pass, oldest first,
-- found through the partial index; old code neither reads nor writes the two columns.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS search_facts text NOT NULL DEFAULT '';
ALTER TABLE memories ADD COLUMN IF NOT EXISTS search_facts_at timestamptz;
CREATE INDEX IF NOT EXISTS memories_search_facts_pending ON memories (created_at, id)
    WHERE search_facts_at IS NULL;
