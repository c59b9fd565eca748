-- LLM calls that fail visibly: 'rejected' (a 400), 'refused' (the model declined, or its output
-- was filtered) and 'truncated' (the output cap cut the answer). Widening the check is additive:
-- code that writes only the older statuses runs unchanged.
ALTER TABLE llm_usage DROP CONSTRAINT IF EXISTS llm_usage_status_check;
ALTER TABLE llm_usage ADD CONSTRAINT llm_usage_status_check CHECK (status IN (
    'pending', 'ok', 'malformed', 'error', 'timeout', 'skipped', 'rejected', 'refused', 'truncated'));
