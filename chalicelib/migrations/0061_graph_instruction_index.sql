-- The prompt hook's instruction pre-fetch asks for the live instructions nearest a prompt. Through
-- the HNSW index of every node the scan keeps only the instructions among its ef_search nearest
-- nodes (about a quarter of them at 10,000 nodes); this partial index holds live instructions only,
-- so the same scan returns ef_search instructions.
CREATE INDEX IF NOT EXISTS graph_instructions_embedding_hnsw
    ON graph_nodes USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)
    WHERE node_type = 'instruction' AND superseded_by IS NULL;
