"""Migrations when two processes start together on a database that lacks a rule: both finish
(the API and a worker race on an empty database; one of them used to fail). The evidenced-flag
backfill (0045) commits in batches, and a database that applied its released one-transaction
text starts without running it again."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from neo4j import AsyncDriver

from selfimprint.adapters.neo4j import migrate, open_driver
from selfimprint.adapters.neo4j.migrations import SCHEMA_DIR, is_batched, load_migrations
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


def _operators(plan: Mapping[str, Any]) -> list[str]:
    children = plan.get("children") or []
    return [str(plan.get("operatorType", ""))] + [o for c in children for o in _operators(c)]


async def test_the_evidenced_backfill_commits_in_batches_over_a_large_graph(
    graph_driver: AsyncDriver, stack_settings: Settings, tmp_path: Path
) -> None:
    db = stack_settings.neo4j_database
    (migration,) = [m for m in load_migrations() if m.version == 45]
    # Each statement commits batch by batch (the runner sends it as an auto-commit transaction)
    # and streams its rows into the batches (no eager step holding every memory at once).
    for statement in migration.statements:
        assert is_batched(statement)
        async with graph_driver.session(database=db) as session:
            summary = await (await session.run("EXPLAIN " + statement, batch_rows=1)).consume()
        operators = _operators(summary.plan or {})
        assert any(o.startswith("Transaction") for o in operators), operators
        assert not any(o.startswith("Eager") for o in operators), operators

    # The migration as the runner applies it, under a version of its own, over a graph of
    # many batches: memories stored with evidence before the flag existed, and without.
    text = (SCHEMA_DIR / "0045_memory_evidenced_flag.cypher").read_text()
    (tmp_path / "9045_evidenced_probe.cypher").write_text(text)
    scope = f"t-backfill/u-{uuid.uuid4().hex[:8]}"
    rows = [{"id": f"m{i}", "evidence": [f"e{i}"] if i % 3 else []} for i in range(2_500)]
    try:
        await graph_driver.execute_query(
            """UNWIND $rows AS row
            CREATE (:Memory {scope: $scope, id: row.id, observed_for: row.evidence})""",
            rows=rows,
            scope=scope,
            database_=db,
        )
        report = await migrate(graph_driver, db, tmp_path, batch_rows=300)
        assert report.applied == [9045]
        records, _, _ = await graph_driver.execute_query(
            """MATCH (n:Memory {scope: $scope})
            RETURN n.evidenced AS flag, count(*) AS n ORDER BY flag""",
            scope=scope,
            database_=db,
        )
        assert {r["flag"]: r["n"] for r in records} == {True: 1_666, None: 834}
    finally:
        await graph_driver.execute_query(
            "MATCH (n:Memory {scope: $scope}) DETACH DELETE n",
            scope=scope,
            database_=db,
        )
        await graph_driver.execute_query(
            "MATCH (m:SchemaMigration {version: 9045}) DELETE m", database_=db
        )


# 0045 as it was released: one transaction over every memory. Databases that applied it have
# this text's checksum recorded.
RELEASED_0045 = """\
// Retrieval tests one stored flag, `evidenced`, before computing the belief-confidence factor
// (adapters/neo4j/retrieval.py; every write sets it, records.node_row). Memories whose evidence
// lists were written before the flag existed get it here; a missing flag reads as false.
MATCH (n:Memory)
WHERE n.evidenced IS NULL
  AND size(coalesce(n.observed_for, [])) + size(coalesce(n.observed_against, []))
      + size(coalesce(n.self_report_for, [])) + size(coalesce(n.self_report_against, [])) > 0
SET n.evidenced = true;
"""


async def test_a_database_that_applied_the_released_0045_starts_without_running_it_again(
    graph_driver: AsyncDriver, stack_settings: Settings
) -> None:
    db = stack_settings.neo4j_database
    released = hashlib.sha256(RELEASED_0045.encode()).hexdigest()
    records, _, _ = await graph_driver.execute_query(
        "MATCH (m:SchemaMigration {version: 45}) RETURN m.checksum AS checksum", database_=db
    )
    current = records[0]["checksum"]
    assert current != released  # this database applied the batched text
    await graph_driver.execute_query(
        "MATCH (m:SchemaMigration {version: 45}) SET m.checksum = $c", c=released, database_=db
    )
    try:
        report = await migrate(graph_driver, db)
        assert 45 in report.already_applied and report.applied == []
    finally:
        await graph_driver.execute_query(
            "MATCH (m:SchemaMigration {version: 45}) SET m.checksum = $c", c=current, database_=db
        )
