// A workflow's texts and vectors (a sleep pass's memories and proposals, a forget's topic
// vector), staged between its activities so that its history carries references only (issue
// 35): every read and write seeks one run's step, and writing a step or erasing a user seeks the
// user's stages by the scope prefix.
CREATE CONSTRAINT payload_stage_scope_run_step IF NOT EXISTS
FOR (s:PayloadStage) REQUIRE (s.scope, s.run_id, s.step) IS UNIQUE;
