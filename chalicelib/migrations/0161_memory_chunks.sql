-- A long memory's text in overlapping windows, each embedded: the embedding model reads only
-- its first 256 word pieces (about 1,000 characters), so a fact deep in a long answer was
-- invisible to the vector side. Search scores a memory by its own vector or its best window,
-- whichever is closer. Written with the memory; gone with it. `{embedding_dim}` is the
-- deployment's embedding dimension.
CREATE TABLE IF NOT EXISTS memory_chunks (
    memory_id  uuid    NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    n          integer NOT NULL,
    project    text    NOT NULL,
    embedding  vector({embedding_dim}) NOT NULL,
    PRIMARY KEY (memory_id, n)
);
CREATE INDEX IF NOT EXISTS memory_chunks_project ON memory_chunks (project);
CREATE INDEX IF NOT EXISTS memory_chunks_embedding_hnsw
    ON memory_chunks USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64);
