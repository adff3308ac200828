// Sleep-phase results (issue 6): runs (with their per-operation journal), detected patterns,
// scheduled triggers and open-loop question candidates. Identity is (scope, id) like memories.
CREATE CONSTRAINT sleep_run_scope_id IF NOT EXISTS
FOR (r:SleepRun) REQUIRE (r.scope, r.id) IS UNIQUE;

CREATE CONSTRAINT sleep_pattern_scope_id IF NOT EXISTS
FOR (p:SleepPattern) REQUIRE (p.scope, p.id) IS UNIQUE;

CREATE CONSTRAINT scheduled_trigger_scope_id IF NOT EXISTS
FOR (t:ScheduledTrigger) REQUIRE (t.scope, t.id) IS UNIQUE;

CREATE CONSTRAINT open_loop_question_scope_id IF NOT EXISTS
FOR (q:OpenLoopQuestion) REQUIRE (q.scope, q.id) IS UNIQUE;
