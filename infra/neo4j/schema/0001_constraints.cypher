// Identity of every stored thing is (scope, id), scope = "<tenant_id>/<user_id>": the same memory
// id may exist for two users, and a MERGE on (scope, id) can never touch another user's node.
CREATE CONSTRAINT memory_scope_id IF NOT EXISTS
FOR (n:Memory) REQUIRE (n.scope, n.id) IS UNIQUE;

CREATE CONSTRAINT tension_scope_id IF NOT EXISTS
FOR (t:Tension) REQUIRE (t.scope, t.id) IS UNIQUE;
