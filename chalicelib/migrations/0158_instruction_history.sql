-- The instruction store's history: when each rule (a `project_rule` or `guideline` memory) was
-- stated and when it stopped being live (superseded by a later rule, or retired because the file
-- it was imported from no longer holds it). NULL `valid_from` reads as `created_at`; NULL
-- `valid_until` is live. Additive: older code ignores both columns.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS valid_from timestamptz;
ALTER TABLE memories ADD COLUMN IF NOT EXISTS valid_until timestamptz;
-- A superseded memory stopped being live when its successor was stated.
UPDATE memories m SET valid_until = s.created_at
  FROM memories s WHERE m.superseded_by = s.id AND m.valid_until IS NULL;
-- Rules answered "as of" a time: a project's instructions by validity.
CREATE INDEX IF NOT EXISTS memories_instruction_validity
    ON memories (project, category, valid_until) WHERE category IN ('project_rule', 'guideline');
