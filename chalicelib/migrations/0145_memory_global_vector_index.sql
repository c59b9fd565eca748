-- `_global` is in the scope of almost every search. Its own HNSW index lets the search's
-- `_global` branch walk only shared memories: in the table-wide index a scope of 1 % of a
-- million rows needs either a very wide search or an exact scan of 10,000 rows.
CREATE INDEX IF NOT EXISTS memories_global_embedding_hnsw
    ON memories USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)
    WHERE project = '_global';
