// The extraction backlog across all users (the CPU worker's selfimprint_pending_messages and
// selfimprint_extraction_lag_seconds gauges): an index seek on the pending state, whose cost
// follows the backlog, not the size of the message log.
CREATE INDEX raw_message_state_received IF NOT EXISTS
FOR (m:RawMessage) ON (m.extraction_state, m.received_at);
