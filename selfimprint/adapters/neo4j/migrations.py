"""Versioned schema migrations: `infra/neo4j/schema/NNNN_name.cypher`, applied in order.

Every statement in a migration must be idempotent (`IF NOT EXISTS`), so that two processes
starting together (API and worker) or a crash half-way through a file are harmless. Applied
versions are recorded as `(:SchemaMigration {version, name, checksum, applied_at})`; a file
whose content changed after it was applied is refused: write a new migration instead. The one
exception is `REWRITTEN`: a migration whose text changed only in how it runs, not in what it
does, lists the checksums of its earlier texts, which count as applied.

Each statement runs in its own managed transaction (retried by the driver), except a data
migration over the whole graph, written `CALL { ... } IN TRANSACTIONS OF $batch_rows ROWS`: Neo4j
runs that only as an auto-commit transaction, which commits one batch at a time (bounded memory
and locks on a large graph). It gets the parameter `batch_rows` and is retried here on transient
errors, so it must be rerunnable from any batch (filter on what it sets).
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from neo4j import AsyncDriver, AsyncManagedTransaction, AsyncSession
from neo4j.exceptions import ClientError, DriverError, Neo4jError

from selfimprint.logging import get_logger

log = get_logger(__name__)

SCHEMA_DIR = Path(__file__).resolve().parents[3] / "infra" / "neo4j" / "schema"
_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.cypher$")
INDEX_WAIT_S = 300
# Rows per transaction of a batched data migration (`$batch_rows`): a few MB of changes each.
BATCH_ROWS = 10_000
# A batched statement is an auto-commit transaction, which the driver does not retry: two
# processes migrating together may deadlock on a batch, a transient error; retried here.
BATCHED_ATTEMPTS = 5
BATCHED_RETRY_S = 1.0
_BATCHED = re.compile(r"\bIN\s+(?:\S+\s+)?(?:CONCURRENT\s+)?TRANSACTIONS\b", re.IGNORECASE)

# Migrations rewritten after they were released, without changing their effect: version -> the
# checksums of the earlier texts. A database that recorded one of them applied the migration.
REWRITTEN: dict[int, frozenset[str]] = {
    # 0045_memory_evidenced_flag: one transaction over every memory, now batched (the same
    # backfill; docs/decisions.md, "Bounded storage").
    45: frozenset({"a90124f6d119b2d3530e12465f2f661f04a975abf5cf84f2d808b8fa1e236ae2"}),
}

_BOOTSTRAP = (
    "CREATE CONSTRAINT schema_migration_version IF NOT EXISTS "
    "FOR (m:SchemaMigration) REQUIRE m.version IS UNIQUE"
)
_APPLIED = "MATCH (m:SchemaMigration) RETURN m.version AS version, m.checksum AS checksum"
_RECORD = """
MERGE (m:SchemaMigration {version: $version})
  ON CREATE SET m.name = $name, m.checksum = $checksum, m.applied_at = datetime()
"""


class MigrationError(RuntimeError):
    pass


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    checksum: str
    statements: tuple[str, ...]


@dataclass
class MigrationReport:
    database: str
    applied: list[int] = field(default_factory=list)
    already_applied: list[int] = field(default_factory=list)


def _statements(text: str) -> tuple[str, ...]:
    # Comments are whole lines starting with //; statements end with ';'.
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    return tuple(s.strip() for s in body.split(";") if s.strip())


def load_migrations(directory: Path = SCHEMA_DIR) -> list[Migration]:
    migrations: dict[int, Migration] = {}
    for path in sorted(directory.glob("*.cypher")):
        match = _FILE.match(path.name)
        if match is None:
            raise MigrationError(f"{path.name}: migration files are named NNNN_name.cypher")
        version = int(match[1])
        if version in migrations:
            raise MigrationError(f"two migrations with version {version}")
        raw = path.read_bytes()
        migrations[version] = Migration(
            version=version,
            name=match[2],
            checksum=hashlib.sha256(raw).hexdigest(),
            statements=_statements(raw.decode("utf-8")),
        )
    return [migrations[v] for v in sorted(migrations)]


# Two processes creating the same index at once: the loser's `IF NOT EXISTS` still fails with
# this code when the winner's rule is not yet committed (seen with the API and a worker starting
# together on an empty database). The rule exists either way: the statement has done its work.
_ALREADY_THERE = {
    "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
    "Neo.ClientError.Schema.IndexAlreadyExists",
    "Neo.ClientError.Schema.ConstraintAlreadyExists",
}


async def _run(tx: AsyncManagedTransaction, statement: str) -> None:
    await (await tx.run(statement)).consume()


async def _run_schema(session: AsyncSession, statement: str) -> None:
    try:
        await session.execute_write(_run, statement)
    except ClientError as exc:
        if exc.code not in _ALREADY_THERE:
            raise
        log.info("neo4j.migration.raced", code=exc.code)


def is_batched(statement: str) -> bool:
    """Whether the statement commits in batches (`CALL { } IN TRANSACTIONS`): auto-commit only."""
    return _BATCHED.search(statement) is not None


async def _run_batched(session: AsyncSession, statement: str, batch_rows: int) -> None:
    for attempt in range(1, BATCHED_ATTEMPTS + 1):
        try:
            await (await session.run(statement, batch_rows=batch_rows)).consume()
            return
        except (Neo4jError, DriverError) as exc:
            if attempt == BATCHED_ATTEMPTS or not exc.is_retryable():
                raise
            log.info("neo4j.migration.batch_retried", attempt=attempt)
            await asyncio.sleep(BATCHED_RETRY_S * attempt)


async def run_statement(
    session: AsyncSession, statement: str, batch_rows: int = BATCH_ROWS
) -> None:
    """One statement of a migration: a batched one as an auto-commit transaction (with
    `$batch_rows`), any other in a managed transaction."""
    if is_batched(statement):
        await _run_batched(session, statement, batch_rows)
    else:
        await _run_schema(session, statement)


def is_recorded_as(migration: Migration, recorded: str) -> bool:
    """Whether a recorded checksum is this migration's: its text, or an earlier text of it
    that `REWRITTEN` lists."""
    return recorded == migration.checksum or recorded in REWRITTEN.get(
        migration.version, frozenset()
    )


async def migrate(
    driver: AsyncDriver,
    database: str,
    directory: Path = SCHEMA_DIR,
    *,
    batch_rows: int = BATCH_ROWS,
) -> MigrationReport:
    """Apply every migration not yet recorded, then wait until all indexes are online.
    `batch_rows`: rows per transaction of a batched data migration."""
    migrations = load_migrations(directory)
    report = MigrationReport(database=database)
    async with driver.session(database=database) as session:
        await _run_schema(session, _BOOTSTRAP)
        result = await session.run(_APPLIED)
        applied = {int(r["version"]): str(r["checksum"]) async for r in result}
        for migration in migrations:
            known = applied.get(migration.version)
            if known is not None:
                if not is_recorded_as(migration, known):
                    raise MigrationError(
                        f"migration {migration.version:04d}_{migration.name} changed after it "
                        "was applied; add a new migration instead of editing an applied one"
                    )
                report.already_applied.append(migration.version)
                continue
            # Schema and data changes cannot share a transaction: one per statement.
            for statement in migration.statements:
                await run_statement(session, statement, batch_rows)
            await session.execute_write(_record, migration)
            report.applied.append(migration.version)
            log.info("neo4j.migration.applied", database=database, version=migration.version)
        await (await session.run("CALL db.awaitIndexes($s)", s=INDEX_WAIT_S)).consume()
    return report


async def applied_versions(driver: AsyncDriver, database: str) -> dict[int, str]:
    """Recorded migrations: version -> checksum."""
    async with driver.session(database=database) as session:
        result = await session.run(_APPLIED)
        return {int(r["version"]): str(r["checksum"]) async for r in result}


async def _record(tx: AsyncManagedTransaction, migration: Migration) -> None:
    await (
        await tx.run(
            _RECORD,
            version=migration.version,
            name=migration.name,
            checksum=migration.checksum,
        )
    ).consume()
