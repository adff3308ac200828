// A batch in extraction, staged between the ingestion activities so that the lifecycle's
// history carries its id only (issue 35): every read and write seeks one user's stage by id,
// and opening a batch or erasing a user seeks the user's stages by the scope prefix.
CREATE CONSTRAINT ingestion_stage_scope_id IF NOT EXISTS
FOR (s:IngestionStage) REQUIRE (s.scope, s.id) IS UNIQUE;
