-- /session --plan: an interactive Claude session that starts in plan mode, its plan approved in
-- the session's topic before it edits.
ALTER TABLE agent_sessions ADD COLUMN IF NOT EXISTS permission_mode text;
