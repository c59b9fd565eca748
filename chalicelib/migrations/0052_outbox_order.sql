-- Output is sent in event order, not arrival order: events of one task are recorded in order
-- (their seq) but may be published out of order by different processes (dispatcher, agent).
-- Rows without a position (results, closing notes) come after the positioned ones.
ALTER TABLE telegram_outbox ADD COLUMN IF NOT EXISTS position bigint;
DROP INDEX IF EXISTS telegram_outbox_stream;
CREATE INDEX IF NOT EXISTS telegram_outbox_stream_order ON telegram_outbox (stream, position, id);
