"""The one async Neo4j driver a process opens, from settings."""

from __future__ import annotations

from neo4j import AsyncDriver, AsyncGraphDatabase

from selfimprint.config import Settings


def open_driver(settings: Settings) -> AsyncDriver:
    """A pooled driver for the whole process; close it at shutdown. Transactions are retried by
    the driver's managed-transaction loop (execute_read/execute_write), never by us."""
    return AsyncGraphDatabase.driver(
        settings.neo4j_target,
        auth=settings.neo4j_auth(),
        # Neo4j's notifications (e.g. "unknown property" on a fresh database) are not errors.
        notifications_min_severity="OFF",
    )
