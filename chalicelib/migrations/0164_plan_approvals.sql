-- Plan approvals: Claude's ExitPlanMode asked in Telegram with Approve plan / Revise. A Revise
-- press keeps the approval pending (`revising`) until the person's next message in the topic,
-- which becomes the `reason` the plan is sent back with.
ALTER TABLE tool_approvals ADD COLUMN IF NOT EXISTS reason text;
ALTER TABLE tool_approvals ADD COLUMN IF NOT EXISTS revising boolean NOT NULL DEFAULT false;
CREATE INDEX IF NOT EXISTS tool_approvals_revising ON tool_approvals (chat_id, topic_id)
    WHERE status = 'pending' AND revising;
