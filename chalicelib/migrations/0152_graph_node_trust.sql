-- Provenance on graph nodes: a node carries the source of the text it was extracted from (the
-- memory sources of 0150) and whether that text is trusted. Nodes built from tool output, web
-- pages or other agents' text stay in the graph (searchable on request) but the prompt hook's
-- fast path never injects them.
ALTER TABLE graph_nodes ADD COLUMN IF NOT EXISTS trusted boolean NOT NULL DEFAULT true;
ALTER TABLE graph_nodes DROP CONSTRAINT IF EXISTS graph_nodes_source_check;
ALTER TABLE graph_nodes ADD CONSTRAINT graph_nodes_source_check CHECK (source IN
    ('user', 'assistant', 'tool', 'web', 'agent', 'import', 'file', 'system', 'unspecified'));
