"""CPU worker: all workflows, plus graph and storage activities."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass

from temporalio.client import Client

from activities.compaction import CompactionActivities
from activities.ingestion import IngestionActivities
from activities.payload_stage import PayloadStages
from activities.reviews import ReviewActivities
from activities.sleep import SleepActivities
from activities.summaries import ScheduleActivities, SummaryActivities
from activities.tenants import TenantActivities
from selfimprint.adapters.crypto import FileDataKeyStore, load_kek
from selfimprint.adapters.graph_archive import build_archive
from selfimprint.adapters.neo4j import Neo4jGraphStore, open_driver
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.neo4j.message_log import MessageLogs
from selfimprint.config import Settings
from selfimprint.domain.tuning import DomainTuning
from selfimprint.service.summaries import MonthlySchedules
from workers.backlog import watch_backlog
from workers.runner import Registrations, run_worker
from workers.storage import deletion_registrations, forget_registrations, tier_registrations
from workflows.compaction import CompactionWorkflow
from workflows.monthly_summary import MonthlySummaryWorkflow
from workflows.probe import StackProbeWorkflow
from workflows.sleep_phase import SleepPhaseWorkflow
from workflows.user_lifecycle import UserLifecycleWorkflow


@dataclass(frozen=True)
class GraphActivities:
    """The cpu queue's activities that apply the domain's tunable numbers, each given its
    sections of the operator's tuning document (`DomainTuning`)."""

    ingestion: IngestionActivities
    sleep: SleepActivities
    reviews: ReviewActivities
    summaries: SummaryActivities


def graph_activities(
    graph: Neo4jGraphStore,
    logs: MessageLogs,
    accounts: Neo4jAccounts,
    tuning: DomainTuning,
    payload_stages: PayloadStages | None = None,
) -> GraphActivities:
    return GraphActivities(
        ingestion=IngestionActivities(graph, logs, tuning.ingestion, beliefs=tuning.beliefs),
        sleep=SleepActivities(
            graph,
            tuning.patterns,
            tuning.triggers,
            tuning.formation,
            tuning.hypotheses,
            stance=tuning.stance,
            beliefs=tuning.beliefs,
            context=tuning.context,
            inference=tuning.ingestion.inference_policy,
            stages=payload_stages,
            decay=tuning.ingestion.decay,
        ),
        reviews=ReviewActivities(graph, tuning.beliefs, tuning.review),
        summaries=SummaryActivities(graph, accounts, tuning.summary),
    )


async def build(settings: Settings, client: Client) -> Registrations:
    driver = open_driver(settings)
    graph = Neo4jGraphStore(driver, settings.neo4j_database)
    await graph.migrate()  # idempotent; the API runs it too
    tuning = settings.domain_tuning()
    logs = MessageLogs(driver, settings.neo4j_database)
    accounts = Neo4jAccounts(driver, settings.neo4j_database)
    # A sleep pass's texts and vectors wait in Neo4j for the model side (issue 35).
    tuned = graph_activities(graph, logs, accounts, tuning, graph.payload_stages())
    ingestion, sleep = tuned.ingestion, tuned.sleep
    reviews, summaries = tuned.reviews, tuned.summaries
    # Storage tiers, erasure, forget, soft reset: one boto3 client and one key store.
    keys = FileDataKeyStore(settings.data_dir, load_kek(settings, os.environ))
    archive = build_archive(settings, dict(os.environ), keys=keys)
    compaction = CompactionActivities(graph, archive, tuning.compaction)
    # The lifecycle makes sure each user's monthly summary schedule exists, on this client.
    schedules = ScheduleActivities(accounts, MonthlySchedules(client, settings))
    tenants = TenantActivities(accounts)
    storage = [
        tier_registrations(settings, driver, archive),
        deletion_registrations(settings, driver, client, archive, keys),
        forget_registrations(settings, driver, archive),
    ]
    return (
        [
            StackProbeWorkflow,
            UserLifecycleWorkflow,
            SleepPhaseWorkflow,
            CompactionWorkflow,
            MonthlySummaryWorkflow,
            *(w for ws, _ in storage for w in ws),
        ],
        [
            ingestion.pending_messages,
            ingestion.stage_batch,
            ingestion.apply_staged,
            ingestion.load_batch,  # by value: for histories of the previous release
            ingestion.apply_extraction,
            ingestion.mark_failed,
            sleep.begin,
            sleep.finish,
            sleep.detect_patterns,
            sleep.infer_connections,
            sleep.hypothesis_context,
            sleep.store_hypotheses,
            sleep.recalibrate,
            sleep.schedule_triggers,
            sleep.prepare_open_loops,
            sleep.check_hypotheses,
            sleep.stance_candidates,
            compaction.compact,
            compaction.plan_soft_reset,
            compaction.apply_soft_reset,
            reviews.open_session_review,
            summaries.produce_monthly,
            schedules.ensure_schedule,
            tenants.sleep_pause,
            *(a for _, acts in storage for a in acts),
        ],
    )


def main() -> None:
    asyncio.run(run_worker(lambda s: s.task_queue_cpu, build, background=[watch_backlog]))


if __name__ == "__main__":
    main()
