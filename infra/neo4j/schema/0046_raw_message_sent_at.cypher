// The message a memory replied to (domain.reply_context): the extraction reads the message
// logged right before its batch, a backwards seek on the user's messages by time instead of a
// scan of their whole log.
CREATE INDEX raw_message_scope_sent_at IF NOT EXISTS
FOR (m:RawMessage) ON (m.scope, m.sent_at);
