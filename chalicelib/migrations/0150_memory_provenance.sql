-- Provenance and trust: where a memory's text came from, and whether it may reach a model
-- without a person looking at it first. Text from tool output, web pages or other agents is
-- stored untrusted: searchable on request, never injected, never a rule, until promoted.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS source text NOT NULL DEFAULT 'unspecified';
ALTER TABLE memories ADD COLUMN IF NOT EXISTS trusted boolean NOT NULL DEFAULT true;
ALTER TABLE memories ADD COLUMN IF NOT EXISTS promoted_at timestamptz;
ALTER TABLE memories ADD COLUMN IF NOT EXISTS promoted_by text;
-- The quarantine: what waits for a person, newest first.
CREATE INDEX IF NOT EXISTS memories_untrusted ON memories (project, created_at DESC) WHERE NOT trusted;
