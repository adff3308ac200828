"""Where a workflow's texts and vectors wait between its activities (issue 35): a sleep pass's
new memories, the memories and patterns shown to the model, its proposals (statements, vectors,
policy scores) and the hypothesis/memory pairs it judges; a forget's topic vector. The workflow
passes a reference (`activities.payload_stage.PayloadRef`), so none of them is written to its
history.

One `(:PayloadStage {scope, run_id, step})` node per step of a run, holding opaque JSON (the
activities own the models). Writing a step again replaces it (a retried activity answers for
the attempt the workflow sees); a run's stages are dropped when it finishes, a user's stages of
other runs a day old when a new one is written (a run that failed for good), and all of them at
erasure (`sleep_results.delete_all_batch`).
"""

from __future__ import annotations

from neo4j import AsyncDriver

from selfimprint.domain.users import UserScope
from selfimprint.telemetry import tracing

# Only for a user whose profile exists and is not being erased: a pass still running at erasure
# cannot write the user's memories back.
_PUT = """
MATCH (p:UserProfile {scope: $scope})
WHERE p.deleting_since IS NULL
CALL () {
  MATCH (old:PayloadStage {scope: $scope})
  WHERE old.run_id <> $run_id AND old.staged_at < datetime() - duration('P1D')
  DELETE old
}
MERGE (s:PayloadStage {scope: $scope, run_id: $run_id, step: $step})
SET s.payload = $payload, s.staged_at = datetime()
RETURN count(s) AS staged
"""

_GET = """
MATCH (s:PayloadStage {scope: $scope, run_id: $run_id, step: $step})
RETURN s.payload AS payload
"""

_DROP_RUN = "MATCH (s:PayloadStage {scope: $scope, run_id: $run_id}) DELETE s"


@tracing.traced_calls("neo4j", tracing.NEO4J)
class Neo4jPayloadStages:
    """Every user's payload stages (the cpu worker writes the graph's side, the gpu worker reads
    it and writes the model's answers, and the reverse)."""

    def __init__(self, driver: AsyncDriver, database: str) -> None:
        self._driver = driver
        self._database = database

    async def put(self, scope: UserScope, run_id: str, step: str, payload: str) -> bool:
        """False when the user has no profile (erased, or being erased): nothing was written."""
        async with self._driver.session(database=self._database) as session:
            result = await session.run(
                _PUT, scope=scope.key, run_id=run_id, step=step, payload=payload
            )
            record = await result.single()
            await result.consume()
        return record is not None and record["staged"] == 1

    async def get(self, scope: UserScope, run_id: str, step: str) -> str | None:
        async with self._driver.session(database=self._database) as session:
            result = await session.run(_GET, scope=scope.key, run_id=run_id, step=step)
            record = await result.single()
            await result.consume()
        return None if record is None or record["payload"] is None else str(record["payload"])

    async def drop_run(self, scope: UserScope, run_id: str) -> None:
        async with self._driver.session(database=self._database) as session:
            result = await session.run(_DROP_RUN, scope=scope.key, run_id=run_id)
            await result.consume()
