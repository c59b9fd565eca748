-- Graph memory: typed nodes (entities, facts, events, opinions, instructions, plans) and the
-- edges between them, per project. A corrected node is superseded (kept, pointing to its
-- replacement), never deleted. `{embedding_dim}` is the deployment's embedding dimension.

CREATE TABLE IF NOT EXISTS graph_nodes (
    id            uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    project       text        NOT NULL,
    node_type     text        NOT NULL CHECK (node_type IN
                                  ('entity', 'fact', 'event', 'opinion', 'instruction', 'plan')),
    subtype       text,
    content       text        NOT NULL CHECK (length(content) BETWEEN 1 AND 4000),
    -- Entities only: the normalised name, unique per project (aliases live in attributes).
    name_key      text,
    salience      real        NOT NULL DEFAULT 1.0 CHECK (salience BETWEEN 0 AND 10),
    confidence    real        NOT NULL DEFAULT 1.0 CHECK (confidence BETWEEN 0 AND 1),
    source        text        NOT NULL DEFAULT 'user' CHECK (source IN ('user', 'assistant')),
    valid_from    timestamptz,
    valid_until   timestamptz,
    superseded_by uuid        REFERENCES graph_nodes (id) ON DELETE SET NULL,
    attributes    jsonb       NOT NULL DEFAULT '{}'::jsonb,
    can_summarize boolean     NOT NULL DEFAULT true,
    scope         real        CHECK (scope BETWEEN 0 AND 1),
    embedding     vector({embedding_dim}),
    created_at    timestamptz NOT NULL DEFAULT now(),
    CHECK (superseded_by IS NULL OR superseded_by <> id),
    CHECK ((node_type = 'entity') = (name_key IS NOT NULL))
);
CREATE UNIQUE INDEX IF NOT EXISTS graph_entities_name
    ON graph_nodes (project, name_key) WHERE node_type = 'entity';
CREATE INDEX IF NOT EXISTS graph_nodes_type ON graph_nodes (project, node_type) WHERE superseded_by IS NULL;
CREATE INDEX IF NOT EXISTS graph_nodes_subtype ON graph_nodes (subtype);
CREATE INDEX IF NOT EXISTS graph_nodes_aliases
    ON graph_nodes USING gin ((attributes -> 'aliases')) WHERE node_type = 'entity';
CREATE INDEX IF NOT EXISTS graph_nodes_global_instructions
    ON graph_nodes (project, scope) WHERE node_type = 'instruction' AND superseded_by IS NULL;
CREATE INDEX IF NOT EXISTS graph_nodes_embedding_hnsw
    ON graph_nodes USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64);

CREATE TABLE IF NOT EXISTS graph_edges (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    source_id  uuid        NOT NULL REFERENCES graph_nodes (id) ON DELETE CASCADE,
    target_id  uuid        NOT NULL REFERENCES graph_nodes (id) ON DELETE CASCADE,
    edge_type  text        NOT NULL CHECK (length(edge_type) BETWEEN 1 AND 64),
    attributes jsonb       NOT NULL DEFAULT '{}'::jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    CHECK (source_id <> target_id),
    UNIQUE (source_id, target_id, edge_type)
);
CREATE INDEX IF NOT EXISTS graph_edges_source ON graph_edges (source_id);
CREATE INDEX IF NOT EXISTS graph_edges_target ON graph_edges (target_id);
CREATE INDEX IF NOT EXISTS graph_edges_type ON graph_edges (edge_type);

-- Two instructions that conflict with no explicit replacement: both stay live until a person
-- resolves the pair (keep new, keep old, keep both).
CREATE TABLE IF NOT EXISTS graph_contradictions (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    project     text        NOT NULL,
    new_id      uuid        NOT NULL REFERENCES graph_nodes (id) ON DELETE CASCADE,
    old_id      uuid        NOT NULL REFERENCES graph_nodes (id) ON DELETE CASCADE,
    reason      text        NOT NULL DEFAULT '',
    status      text        NOT NULL DEFAULT 'open'
                            CHECK (status IN ('open', 'keep_new', 'keep_old', 'keep_both')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    resolved_at timestamptz,
    CHECK (new_id <> old_id),
    UNIQUE (new_id, old_id)
);
CREATE INDEX IF NOT EXISTS graph_contradictions_open
    ON graph_contradictions (project, created_at) WHERE status = 'open';

-- Debug traces of pipeline runs (store and retrieve), kept 7 days.
CREATE TABLE IF NOT EXISTS graph_traces (
    id         uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    project    text        NOT NULL,
    kind       text        NOT NULL CHECK (kind IN ('store', 'retrieve')),
    trace      jsonb       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS graph_traces_age ON graph_traces (created_at);
CREATE INDEX IF NOT EXISTS graph_traces_project ON graph_traces (project, created_at DESC);
