"""`selfimprint db ...`: the graph database's schema (wired into the main CLI as `db`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import typer
from neo4j import AsyncDriver

from selfimprint.adapters.neo4j import MigrationError, MigrationReport, migrate, open_driver
from selfimprint.adapters.neo4j.migrations import (
    applied_versions,
    is_recorded_as,
    load_migrations,
)
from selfimprint.adapters.neo4j.search_terms import backfill_search_terms
from selfimprint.config import Settings
from selfimprint.logging import configure_logging

db_app = typer.Typer(no_args_is_help=True, help="The Neo4j graph database: schema migrations.")


T = TypeVar("T")


async def _on_database(settings: Settings, work: Callable[[AsyncDriver, str], Awaitable[T]]) -> T:
    """`work(driver, database)` with a driver opened for it and closed after."""
    driver = open_driver(settings)
    try:
        return await work(driver, settings.neo4j_database)
    finally:
        await driver.close()


async def _migrate(settings: Settings) -> MigrationReport:
    return await _on_database(settings, migrate)


@db_app.command("migrate")
def db_migrate() -> None:
    """Apply the schema migrations in infra/neo4j/schema/ that are not yet applied."""
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    try:
        report = asyncio.run(_migrate(settings))
    except MigrationError as exc:
        typer.echo(f"migration refused: {exc}", err=True)
        raise typer.Exit(1) from exc
    applied = ", ".join(f"{v:04d}" for v in report.applied) or "none"
    typer.echo(
        f"database {report.database}: applied {applied}; "
        f"{len(report.already_applied)} already applied"
    )


async def _applied(settings: Settings) -> dict[int, str]:
    return await _on_database(settings, applied_versions)


@db_app.command("status")
def db_status() -> None:
    """List each migration file as applied, pending, or changed since it was applied."""
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    applied = asyncio.run(_applied(settings))
    pending = False
    for migration in load_migrations():
        recorded = applied.get(migration.version)
        state = (
            "pending"
            if recorded is None
            else "applied"
            if is_recorded_as(migration, recorded)
            else "CHANGED"
        )
        pending |= state != "applied"
        typer.echo(f"  {migration.version:04d}_{migration.name:<28} {state}")
    if pending:
        raise typer.Exit(1)


async def _backfill_terms(settings: Settings) -> int:
    return await _on_database(settings, backfill_search_terms)


@db_app.command("backfill-terms")
def db_backfill_terms() -> None:
    """Give memories stored before lexical retrieval their search terms (safe to repeat)."""
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    written = asyncio.run(_backfill_terms(settings))
    typer.echo(f"database {settings.neo4j_database}: search terms written for {written} memories")
