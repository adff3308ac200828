"""The extraction backlog gauges: messages accepted (stored in the message log, 202 answered) and
not yet extracted, and the age of the oldest of them.

They are read from the message log itself, every `REFRESH_S`, by the CPU worker: the log is the
one place that knows about every accepted message, whichever API process stored it and whichever
worker extracts it, so a count kept by any single process would be wrong. The query is one index
seek on the pending state (migration 0040), proportional to the backlog, not to the log.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime

from neo4j import AsyncDriver

from selfimprint.adapters.neo4j import open_driver
from selfimprint.adapters.neo4j.message_log import Backlog, MessageLogs
from selfimprint.config import Settings
from selfimprint.logging import get_logger
from selfimprint.telemetry.metrics import EXTRACTION_LAG, PENDING_MESSAGES, expose_backlog_gauges

log = get_logger(__name__)

# A scrape interval's worth: the gauges are at most this stale, and the query runs twice a
# minute whatever the number of users.
REFRESH_S = 30.0


def record_backlog(backlog: Backlog, now: datetime) -> None:
    PENDING_MESSAGES.set(backlog.pending)
    oldest = backlog.oldest_received_at
    EXTRACTION_LAG.set(0.0 if oldest is None else max(0.0, (now - oldest).total_seconds()))


async def refresh_backlog(
    logs: MessageLogs, clock: Callable[[], datetime] = lambda: datetime.now(UTC)
) -> Backlog:
    backlog = await logs.backlog()
    record_backlog(backlog, clock())
    return backlog


async def watch_backlog(settings: Settings, every_s: float = REFRESH_S) -> None:
    """Refresh the gauges until cancelled. A failed read (Neo4j down) keeps the last values and
    is logged; the worker goes on either way. Nothing to do when the metrics are not served."""
    if settings.worker_metrics_port == 0:
        return
    expose_backlog_gauges()
    driver: AsyncDriver = open_driver(settings)
    logs = MessageLogs(driver, settings.neo4j_database)
    failing = False
    try:
        while True:
            try:
                await refresh_backlog(logs)
                if failing:
                    log.info("backlog.refresh_recovered")
                failing = False
            except Exception as exc:  # a metrics read must never stop the worker
                if not failing:
                    log.warning("backlog.refresh_failed", error=str(exc)[:300])
                failing = True
            await asyncio.sleep(every_s)
    finally:
        await driver.close()
