-- A memory's search key (`memory/domain/search_keys.py`): what a question will name about it that
-- its own words do not (identifiers in their parts, numbers both ways, the day it was written and
-- the days it names relative to that, as words and ISO), extracted at write time. Full-text search
-- reads it with the content and summary: `search_tsv` is generated anew over the three (Postgres 16
-- cannot change a generated column's expression in place), its GIN index with it. Rows written
-- before keep an empty key until rewritten; old code writes an empty key and reads the same column.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS search_key text NOT NULL DEFAULT '';
ALTER TABLE memories DROP COLUMN IF EXISTS search_tsv;
ALTER TABLE memories ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (
    to_tsvector('english'::regconfig, content || ' ' || summary || ' ' || search_key)) STORED;
CREATE INDEX IF NOT EXISTS memories_search_tsv ON memories USING gin (search_tsv)
    WITH (gin_pending_list_limit = 256);
ANALYZE memories;
