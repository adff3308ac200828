// Tenants and their API keys (only a SHA-256 of each key is stored), user profiles, and the raw
// message log that every memory's `sources` point to. All user data carries the same `scope`
// ("<tenant_id>/<user_id>") as the graph, so deletion and isolation work the same way.
CREATE CONSTRAINT tenant_id IF NOT EXISTS
FOR (t:Tenant) REQUIRE t.id IS UNIQUE;

CREATE CONSTRAINT api_key_hash IF NOT EXISTS
FOR (k:ApiKey) REQUIRE k.hash IS UNIQUE;

CREATE CONSTRAINT user_profile_scope IF NOT EXISTS
FOR (p:UserProfile) REQUIRE p.scope IS UNIQUE;

CREATE CONSTRAINT raw_message_scope_id IF NOT EXISTS
FOR (m:RawMessage) REQUIRE (m.scope, m.id) IS UNIQUE;

// Messages not yet extracted, per user: what the lifecycle workflow still owes.
CREATE INDEX raw_message_scope_state IF NOT EXISTS
FOR (m:RawMessage) ON (m.scope, m.extraction_state);
