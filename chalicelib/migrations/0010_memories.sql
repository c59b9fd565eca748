-- Memory core: memories with a vector and a full-text representation, and the embedding cache.
-- `{embedding_dim}` is the deployment's embedding dimension (recorded in itachi_meta).

CREATE TABLE IF NOT EXISTS memories (
    id                 uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    project            text        NOT NULL,
    category           text        NOT NULL,
    content            text        NOT NULL,
    summary            text        NOT NULL DEFAULT '',
    files              text[]      NOT NULL DEFAULT '{}',
    metadata           jsonb       NOT NULL DEFAULT '{}'::jsonb,
    embedding          vector({embedding_dim}),
    embedding_model    text,
    -- Full-text representation: content and summary, English stemming, stop words dropped.
    search_tsv         tsvector    GENERATED ALWAYS AS (
                           to_tsvector('english'::regconfig, content || ' ' || summary)) STORED,
    -- Distinct lexemes of search_tsv: the document length of the text score's normalisation.
    search_len         integer     GENERATED ALWAYS AS (
                           length(to_tsvector('english'::regconfig, content || ' ' || summary))) STORED,
    significance       real        NOT NULL DEFAULT 0.5 CHECK (significance BETWEEN 0 AND 1),
    confidence         real        NOT NULL DEFAULT 0.5 CHECK (confidence BETWEEN 0 AND 1),
    times_reinforced   integer     NOT NULL DEFAULT 1,
    last_reinforced_at timestamptz NOT NULL DEFAULT now(),
    access_count       integer     NOT NULL DEFAULT 0,
    last_accessed_at   timestamptz,
    phase              smallint    NOT NULL DEFAULT 0 CHECK (phase BETWEEN 0 AND 3),
    superseded_by      uuid        REFERENCES memories (id) ON DELETE SET NULL,
    content_hash       text        NOT NULL,
    session_id         text,
    source_ids         text[]      NOT NULL DEFAULT '{}',
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now()
);

-- Exact duplicates: one row per (project, normalised content).
CREATE UNIQUE INDEX IF NOT EXISTS memories_project_hash ON memories (project, content_hash);
CREATE INDEX IF NOT EXISTS memories_project_created ON memories (project, created_at DESC);
CREATE INDEX IF NOT EXISTS memories_project_category_created
    ON memories (project, category, created_at DESC);
CREATE INDEX IF NOT EXISTS memories_search_tsv ON memories USING gin (search_tsv);
CREATE INDEX IF NOT EXISTS memories_embedding_hnsw
    ON memories USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64);
CREATE INDEX IF NOT EXISTS memories_metadata ON memories USING gin (metadata jsonb_path_ops);
-- Markdown indexing keeps its state here: chunks of one file are found by their source path.
CREATE INDEX IF NOT EXISTS memories_source_path
    ON memories (project, (metadata ->> 'source_path'))
    WHERE metadata ? 'source_path';

-- Embeddings already computed, keyed by SHA-256 of (model, text). Holds vectors only, never text.
CREATE TABLE IF NOT EXISTS embedding_cache (
    key        bytea       PRIMARY KEY,
    model      text        NOT NULL,
    embedding  vector({embedding_dim}) NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
