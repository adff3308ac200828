"""The cpu worker's storage features (tiers, erasure, forget a topic): each one's workflows and
the activities that serve them, built from one archive and key store per process."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from neo4j import AsyncDriver
from temporalio.client import Client

from activities.deletion import DeletionActivities
from activities.forget import ForgetActivities
from activities.store_flush import StoreFlushActivities
from activities.tiers import TierActivities
from selfimprint.adapters.graph_archive import GraphArchive
from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.neo4j.collective import Neo4jCollective
from selfimprint.adapters.neo4j.message_log import MessageLogs
from selfimprint.adapters.word_meaning import word_meaning
from selfimprint.config import Settings
from selfimprint.ports import DataKeyStore
from workflows.deletion import DeletionWorkflow, ErasureSweepWorkflow
from workflows.forget import ForgetTopicWorkflow
from workflows.tiers import TierMoveWorkflow


def tier_registrations(
    settings: Settings, driver: AsyncDriver, archive: GraphArchive
) -> tuple[list[type], list[Callable[..., Any]]]:
    """Workflows and activities for the cpu worker."""
    acts = TierActivities(
        Neo4jGraphStore(driver, settings.neo4j_database),
        Neo4jAccounts(driver, settings.neo4j_database),
        archive,
    )
    return [TierMoveWorkflow], [
        acts.locate,
        acts.archive_hot,
        acts.verify_archive,
        acts.drop_hot,
        acts.record_tier,
        acts.copy_archive,
        acts.delete_archive,
        acts.rehydrate,
    ]


def deletion_registrations(
    settings: Settings,
    driver: AsyncDriver,
    client: Client,
    archive: GraphArchive,
    keys: DataKeyStore,
) -> tuple[list[type], list[Callable[..., Any]]]:
    """Workflows and activities for the cpu worker; pass the same archive and key store as the
    tier registrations (one boto3 client, one key store per process). Resolves the collective
    pseudonym key here, at start-up: a worker without one fails now, not at an erasure."""
    acts = DeletionActivities(
        client,
        Neo4jGraphStore(driver, settings.neo4j_database),
        MessageLogs(driver, settings.neo4j_database),
        Neo4jAccounts(driver, settings.neo4j_database),
        archive,
        keys,
        Neo4jCollective(driver, settings.neo4j_database),
        settings.collective_secret(),
    )
    # Forget a topic runs the same flush on this worker (registered once, here).
    flush = StoreFlushActivities(
        Neo4jGraphStore(driver, settings.neo4j_database), settings.neo4j_flush_deleted
    )
    return [DeletionWorkflow, ErasureSweepWorkflow], [
        flush.flush_deleted,
        acts.stop_workflows,
        acts.destroy_key,
        acts.delete_objects,
        acts.delete_graph,
        acts.delete_messages,
        acts.delete_profile,
        acts.delete_summary_schedule,
        acts.withdraw_collective,
    ]


def forget_registrations(
    settings: Settings, driver: AsyncDriver, archive: GraphArchive
) -> tuple[list[type], list[Callable[..., Any]]]:
    """cpu worker: the workflow and the graph/object activity. The gpu worker registers
    `ForgetEmbeddingActivities(embedder, stages).embed_topic`."""
    graph = Neo4jGraphStore(driver, settings.neo4j_database)
    # The topic's vector arrives staged in Neo4j (issue 35).
    acts = ForgetActivities(graph, archive, graph.payload_stages(), word_meaning(settings))
    return [ForgetTopicWorkflow], [acts.forget_place, acts.forget_derived, acts.drop_topic]
