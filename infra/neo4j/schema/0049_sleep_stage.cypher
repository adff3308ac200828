// A sleep pass's texts and vectors, staged between its graph and model activities so that the
// pass's history carries references only (issue 35): every read and write seeks one run's step,
// and writing a step or erasing a user seeks the user's stages by the scope prefix.
CREATE CONSTRAINT sleep_stage_scope_run_step IF NOT EXISTS
FOR (s:SleepStage) REQUIRE (s.scope, s.run_id, s.step) IS UNIQUE;
