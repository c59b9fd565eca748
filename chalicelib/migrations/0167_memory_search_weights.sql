-- A memory's full-text representation in weight classes: its own words (content and summary) A,
-- its search key (identifiers, numbers, dates: `memory/domain/search_keys.py`) B, and its context
-- (the start of the memory written just before it, now in `search_context`) D. The search's text
-- score counts a query term found only in the context at a share (`memory_search.CONTEXT_SHARE`),
-- so a reply keyed by the turn before no longer ties with that turn. `search_tsv` is generated
-- anew (Postgres 16 cannot change a generated column's expression in place), its GIN index with
-- it. Rows written before keep their context inside `search_key` (class B) until rewritten.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS search_context text NOT NULL DEFAULT '';
ALTER TABLE memories DROP COLUMN IF EXISTS search_tsv;
ALTER TABLE memories ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english'::regconfig, content || ' ' || summary), 'A')
    || setweight(to_tsvector('english'::regconfig, search_key), 'B')
    || setweight(to_tsvector('english'::regconfig, search_context), 'D')) STORED;
CREATE INDEX IF NOT EXISTS memories_search_tsv ON memories USING gin (search_tsv)
    WITH (gin_pending_list_limit = 256);
ANALYZE memories;
