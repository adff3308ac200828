"""GPU worker: LLM and embedding activities, with bounded concurrency (one model per process)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from temporalio.client import Client

from activities.forget import ForgetEmbeddingActivities
from activities.ingestion import ExtractionActivities, ExtractionMode
from activities.payload_stage import PayloadStages
from activities.probe import ProbeActivities
from activities.sleep import SleepModelActivities
from selfimprint.adapters.embedders import build_embedder
from selfimprint.adapters.llm import build_llm
from selfimprint.adapters.neo4j import open_driver
from selfimprint.adapters.neo4j.ingestion_stage import IngestionStages
from selfimprint.adapters.neo4j.payload_stage import Neo4jPayloadStages
from selfimprint.config import Settings
from selfimprint.ports import LLM, Embedder
from workers.runner import Registrations, run_worker

# Model calls saturate the device; more parallel calls only queue inside the model server.
MAX_CONCURRENT_MODEL_CALLS = 4


def model_activities(
    embedder: Embedder,
    extraction: ExtractionActivities,
    sleep_llm: LLM,
    payload_stages: PayloadStages | None = None,
) -> list[Callable[..., Any]]:
    """Every activity of the gpu task queue (the scenario tests register the same list with a
    scripted LLM)."""
    probe = ProbeActivities(embedder)
    sleep = SleepModelActivities(sleep_llm, embedder, payload_stages)
    forget = ForgetEmbeddingActivities(embedder, payload_stages)
    return [
        probe.embed,
        extraction.extract_staged,
        extraction.extract,  # by value: for histories of the previous release
        forget.embed_topic,
        sleep.precheck,
        sleep.propose_hypotheses,
        sleep.judge_stances,
    ]


async def build(settings: Settings, client: Client) -> Registrations:
    embedder = build_embedder(settings)
    llm = build_llm(settings)
    tuning = settings.domain_tuning()
    driver = open_driver(settings)
    extraction = ExtractionActivities(
        llm,
        embedder,
        mode=ExtractionMode(settings.extraction),
        verbatim=tuning.verbatim.model_copy(
            update={"long_messages": settings.verbatim_long_messages}
        ),
        structured=tuning.structured,
        # The batch in extraction is read from and written to Neo4j, not carried in the
        # workflow's history (issue 35): this worker needs the graph's address and password.
        stages=IngestionStages(driver, settings.neo4j_database),
    )
    # ... and so are a sleep pass's texts and vectors.
    stages = Neo4jPayloadStages(driver, settings.neo4j_database)
    return [], model_activities(embedder, extraction, llm, stages)


def main() -> None:
    asyncio.run(
        run_worker(
            lambda s: s.task_queue_gpu, build, max_concurrent_activities=MAX_CONCURRENT_MODEL_CALLS
        )
    )


if __name__ == "__main__":
    main()
