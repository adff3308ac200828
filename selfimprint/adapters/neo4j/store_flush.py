"""Push deleted words out of Neo4j's files (issue 37, docs/tiers.md "Bytes on disk").

Deleting a node leaves its words on disk in three places. The record stores keep the freed
records' bytes until a write reuses them. The full-text index keeps its Lucene segments until a
merge. The transaction log keeps the deletion's before-image until the file rotates, a
checkpoint follows and the retention policy prunes it. The `selfimprint.store.flushDeleted`
procedure (infra/neo4j-local, `ErasureProcedures`; a server plugin elsewhere) overwrites the
freed records, merges the deletes out of the full-text indexes, then rotates the log and
checkpoints. A deletion's records become reusable only at the id maintenance after its
transaction closed, so the procedure runs twice: the first call lets them free, the second
overwrites them.

Where the procedure is not installed (Aura, a server without the plugin) the flush is skipped
with a warning: the erasure itself is complete without it, and the words then leave the files
as Neo4j reuses and prunes them on its own schedule.
"""

from __future__ import annotations

from dataclasses import dataclass

from neo4j import AsyncDriver
from neo4j.exceptions import ClientError

from selfimprint.logging import get_logger

log = get_logger(__name__)

PROCEDURE = "selfimprint.store.flushDeleted"
_MISSING = "Neo.ClientError.Procedure.ProcedureNotFound"


@dataclass(frozen=True)
class StoreFlush:
    """What the second call overwrote, and the transaction log files left on disk."""

    string_blocks: int
    array_blocks: int
    property_records: int
    fulltext_partitions: int
    lowest_log_version: int
    current_log_version: int


async def flush_deleted(driver: AsyncDriver, database: str) -> StoreFlush | None:
    """Run the flush twice in `database`; None where the procedure is not installed."""
    rows = []
    for _ in range(2):
        try:
            records, _, _ = await driver.execute_query(
                f"CALL {PROCEDURE}() YIELD stringBlocks, arrayBlocks, propertyRecords, "
                "fulltextPartitions, lowestLogVersion, currentLogVersion "
                "RETURN stringBlocks, arrayBlocks, propertyRecords, fulltextPartitions, "
                "lowestLogVersion, currentLogVersion",
                database_=database,
            )
        except ClientError as exc:
            if exc.code != _MISSING:
                raise
            log.warning("neo4j.store_flush_unavailable", database=database, procedure=PROCEDURE)
            return None
        rows.append(records[0])
    row = rows[-1]
    flushed = StoreFlush(
        string_blocks=row["stringBlocks"],
        array_blocks=row["arrayBlocks"],
        property_records=row["propertyRecords"],
        fulltext_partitions=row["fulltextPartitions"],
        lowest_log_version=row["lowestLogVersion"],
        current_log_version=row["currentLogVersion"],
    )
    log.info("neo4j.store_flushed", database=database, **vars(flushed))
    return flushed
