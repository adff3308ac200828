// Monthly summaries (spec §3.5, §4; issue 16): one per user and month, id `<user>-<YYYY-MM>`,
// so a repeated run of the month's schedule overwrites rather than duplicates.
CREATE CONSTRAINT monthly_summary_scope_id IF NOT EXISTS
FOR (s:MonthlySummary) REQUIRE (s.scope, s.id) IS UNIQUE;

// Newest first per user (the list endpoint, the context's "unseen summary" check).
CREATE INDEX monthly_summary_scope_month IF NOT EXISTS
FOR (s:MonthlySummary) ON (s.scope, s.month);
