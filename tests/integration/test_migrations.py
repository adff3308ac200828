"""Migrations when two processes start together on a database that lacks a rule: both finish
(the API and a worker race on an empty database; one of them used to fail)."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

from neo4j import AsyncDriver

from selfimprint.adapters.neo4j import migrate, open_driver
from selfimprint.config import Settings


async def test_two_processes_applying_one_new_migration_both_succeed(
    graph_driver: AsyncDriver, stack_settings: Settings, tmp_path: Path
) -> None:
    name = f"race_{uuid.uuid4().hex[:8]}"
    (tmp_path / "9001_race.cypher").write_text(
        f"CREATE INDEX {name} IF NOT EXISTS FOR (n:RaceProbe) ON (n.key);\n"
    )
    drivers = [open_driver(stack_settings) for _ in range(4)]
    db = stack_settings.neo4j_database
    try:
        reports = await asyncio.gather(*(migrate(d, db, tmp_path) for d in drivers))
        assert sum(9001 in r.applied for r in reports) >= 1
        assert all(9001 in r.applied or 9001 in r.already_applied for r in reports)
        records, _, _ = await graph_driver.execute_query(
            "SHOW INDEXES YIELD name WHERE name = $name RETURN name", name=name, database_=db
        )
        assert len(records) == 1
    finally:
        await graph_driver.execute_query(f"DROP INDEX {name} IF EXISTS", database_=db)
        await graph_driver.execute_query(
            "MATCH (m:SchemaMigration {version: 9001}) DELETE m", database_=db
        )
        for d in drivers:
            await d.close()
