"""Versioned schema migrations: `infra/neo4j/schema/NNNN_name.cypher`, applied in order.

Every statement in a migration must be idempotent (`IF NOT EXISTS`), so that two processes
starting together (API and worker) or a crash half-way through a file are harmless. Applied
versions are recorded as `(:SchemaMigration {version, name, checksum, applied_at})`; a file
whose content changed after it was applied is refused: write a new migration instead.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from neo4j import AsyncDriver, AsyncManagedTransaction, AsyncSession
from neo4j.exceptions import ClientError

from selfimprint.logging import get_logger

log = get_logger(__name__)

SCHEMA_DIR = Path(__file__).resolve().parents[3] / "infra" / "neo4j" / "schema"
_FILE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.cypher$")
INDEX_WAIT_S = 300

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


async def migrate(
    driver: AsyncDriver, database: str, directory: Path = SCHEMA_DIR
) -> MigrationReport:
    """Apply every migration not yet recorded, then wait until all indexes are online."""
    migrations = load_migrations(directory)
    report = MigrationReport(database=database)
    async with driver.session(database=database) as session:
        await _run_schema(session, _BOOTSTRAP)
        result = await session.run(_APPLIED)
        applied = {int(r["version"]): str(r["checksum"]) async for r in result}
        for migration in migrations:
            known = applied.get(migration.version)
            if known is not None:
                if known != migration.checksum:
                    raise MigrationError(
                        f"migration {migration.version:04d}_{migration.name} changed after it "
                        "was applied; add a new migration instead of editing an applied one"
                    )
                report.already_applied.append(migration.version)
                continue
            # Schema and data changes cannot share a transaction: one per statement.
            for statement in migration.statements:
                await _run_schema(session, statement)
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
