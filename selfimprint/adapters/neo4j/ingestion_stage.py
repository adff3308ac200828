"""Where an ingestion batch waits between its activities (issue 35): the loaded batch (messages,
recent memories, reply contexts), then the extraction with its vectors, then the outcome. The
lifecycle workflow passes only the batch's id, so no text or vector is written to its history.

One `(:IngestionStage {scope, id})` node per batch, holding opaque JSON (the activities own the
models). Its lifecycle makes every step safe to repeat: opening a batch keeps a stage already
there and clears out the user's finished ones (the lifecycle extracts one batch at a time);
an extraction is recorded only until the apply claims the stage, so a late attempt of the
extract activity cannot swap the answer under a retried apply; finishing keeps the outcome, for
a retried apply to return, and drops the payload; a batch marked failed is discarded. Erasure
deletes them with the raw messages.
"""

from __future__ import annotations

from dataclasses import dataclass

from neo4j import AsyncDriver, Record

from selfimprint.domain.users import UserScope
from selfimprint.telemetry import tracing

# Only for a user whose profile exists and is not being erased: an activity still running at
# erasure cannot stage the user's messages again. A repeated open (a retried or late attempt)
# changes nothing. It clears out the user's finished stages and those abandoned a day ago (an
# extraction that failed for good), never one in flight: a late attempt of an earlier batch's
# open must not delete the batch the lifecycle works on now.
_OPEN = """
MATCH (p:UserProfile {scope: $scope})
WHERE p.deleting_since IS NULL
CALL () {
  MATCH (old:IngestionStage {scope: $scope})
  WHERE old.id <> $id AND (old.outcome IS NOT NULL OR old.staged_at < datetime() - duration('P1D'))
  DELETE old
}
MERGE (s:IngestionStage {scope: $scope, id: $id})
  ON CREATE SET s.batch = $batch, s.staged_at = datetime()
RETURN count(s) AS opened
"""

_BATCH = "MATCH (s:IngestionStage {scope: $scope, id: $id}) RETURN s.batch AS batch"

_RECORD_EXTRACTION = """
MATCH (s:IngestionStage {scope: $scope, id: $id})
WHERE s.applying_since IS NULL
SET s.extracted = $extracted
RETURN count(s) AS recorded
"""

_CLAIM = """
MATCH (s:IngestionStage {scope: $scope, id: $id})
SET s.applying_since = coalesce(s.applying_since, datetime())
RETURN s.batch AS batch, s.extracted AS extracted, s.outcome AS outcome
"""

_FINISH = """
MATCH (s:IngestionStage {scope: $scope, id: $id})
SET s.outcome = $outcome
REMOVE s.batch, s.extracted
"""

_DISCARD = "MATCH (s:IngestionStage {scope: $scope, id: $id}) DELETE s"

_DELETE_ALL = """
MATCH (s:IngestionStage {scope: $scope})
WITH s LIMIT 1000
DELETE s
RETURN count(*) AS n
"""


@dataclass(frozen=True)
class StageContents:
    """A stage as the apply claims it: the batch and its extraction (JSON), or, once applied,
    only the outcome."""

    batch: str | None
    extracted: str | None
    outcome: str | None


@tracing.traced_calls("neo4j", tracing.NEO4J)
class IngestionStage:
    """One user's staged batches; bound to its scope when made."""

    def __init__(self, driver: AsyncDriver, database: str, scope: UserScope) -> None:
        self._driver = driver
        self._database = database
        self._scope = scope

    async def _single(self, query: str, **params: str) -> Record | None:
        async with self._driver.session(database=self._database) as session:
            result = await session.run(query, {"scope": self._scope.key, **params})
            record = await result.single()
            await result.consume()  # the end of the stream is the commit
            return record

    async def open(self, batch_id: str, batch: str) -> bool:
        """Stage a loaded batch (kept as it is if already staged); False when the user has no
        profile (erased, or being erased): nothing was written."""
        record = await self._single(_OPEN, id=batch_id, batch=batch)
        return record is not None and record["opened"] == 1

    async def batch(self, batch_id: str) -> str | None:
        """The staged batch; None once applied, or when it was never staged (or erased)."""
        record = await self._single(_BATCH, id=batch_id)
        return None if record is None else _text(record["batch"])

    async def record_extraction(self, batch_id: str, extracted: str) -> bool:
        """False when the stage is gone or an apply has claimed it (this is a late attempt)."""
        record = await self._single(_RECORD_EXTRACTION, id=batch_id, extracted=extracted)
        return record is not None and record["recorded"] == 1

    async def claim(self, batch_id: str) -> StageContents | None:
        """Mark the stage as being applied (no extraction is recorded after this) and read it;
        None when there is no such stage."""
        record = await self._single(_CLAIM, id=batch_id)
        if record is None:
            return None
        return StageContents(
            _text(record["batch"]), _text(record["extracted"]), _text(record["outcome"])
        )

    async def finish(self, batch_id: str, outcome: str) -> None:
        await self._single(_FINISH, id=batch_id, outcome=outcome)

    async def discard(self, batch_id: str) -> None:
        """Drop a batch that will not be applied (its messages are marked failed)."""
        await self._single(_DISCARD, id=batch_id)

    async def delete_all(self) -> int:
        """Erase the user's stages, in bounded transactions."""
        total = 0
        while True:
            record = await self._single(_DELETE_ALL)
            removed = int(record["n"]) if record else 0
            total += removed
            if removed == 0:
                return total


def _text(value: object) -> str | None:
    return None if value is None else str(value)


class IngestionStages:
    """Hands out stages bound to one user (the cpu worker stages and applies, the gpu worker
    reads a batch and records its extraction)."""

    def __init__(self, driver: AsyncDriver, database: str) -> None:
        self._driver = driver
        self._database = database

    def for_user(self, scope: UserScope) -> IngestionStage:
        return IngestionStage(self._driver, self._database, scope)
