"""CPU worker: all workflows, plus graph and storage activities."""

from __future__ import annotations

import asyncio

from temporalio.client import Client

from activities.ingestion import IngestionActivities
from selfimprint.adapters.neo4j import Neo4jGraphStore, open_driver
from selfimprint.adapters.neo4j.message_log import MessageLogs
from selfimprint.config import Settings
from workers.runner import Registrations, run_worker
from workflows.probe import StackProbeWorkflow
from workflows.user_lifecycle import UserLifecycleWorkflow


async def build(settings: Settings, client: Client) -> Registrations:
    driver = open_driver(settings)
    graph = Neo4jGraphStore(driver, settings.neo4j_database)
    await graph.migrate()  # idempotent; the API runs it too
    ingestion = IngestionActivities(graph, MessageLogs(driver, settings.neo4j_database))
    return (
        [StackProbeWorkflow, UserLifecycleWorkflow],
        [
            ingestion.pending_messages,
            ingestion.load_batch,
            ingestion.apply_extraction,
            ingestion.mark_failed,
        ],
    )


def main() -> None:
    asyncio.run(run_worker(lambda s: s.task_queue_cpu, build))


if __name__ == "__main__":
    main()
