// Every read is bound to one user, so each index leads with the scope.
CREATE INDEX memory_scope IF NOT EXISTS
FOR (n:Memory) ON (n.scope);

CREATE INDEX memory_scope_type IF NOT EXISTS
FOR (n:Memory) ON (n.scope, n.type);

// Pruning is a range seek (scope equal, expires_at <= now): its cost follows the number of
// expired nodes, not the size of the graph.
CREATE INDEX memory_scope_expires_at IF NOT EXISTS
FOR (n:Memory) ON (n.scope, n.expires_at);

CREATE INDEX memory_scope_hypothesis_status IF NOT EXISTS
FOR (n:Memory) ON (n.scope, n.hypothesis_status);

CREATE INDEX tension_scope_status IF NOT EXISTS
FOR (t:Tension) ON (t.scope, t.status);
