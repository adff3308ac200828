// Scheduled triggers (sleep phase) mark memories high priority until `priority_until`; the read
// path finds the ones active now with a range seek, whatever the size of the graph.
CREATE INDEX memory_scope_priority_until IF NOT EXISTS
FOR (n:Memory) ON (n.scope, n.priority_until);
