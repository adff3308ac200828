// CollectiveImprint (spec §3.7): one pattern per (tenant, key). The key holds only enumerated
// request features (selfimprint.domain.collective_patterns), never user text or ids; the
// constraint makes contributions MERGE on one node and backs the context path's lookup.
CREATE CONSTRAINT collective_pattern_tenant_key IF NOT EXISTS
FOR (p:CollectivePattern) REQUIRE (p.tenant, p.key) IS UNIQUE;
