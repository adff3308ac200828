"""GPU worker: LLM and embedding activities, with bounded concurrency (one model per process)."""

from __future__ import annotations

import asyncio

from temporalio.client import Client

from activities.probe import ProbeActivities
from selfimprint.adapters.embedders import build_embedder
from selfimprint.config import Settings
from workers.runner import Registrations, run_worker

# Model calls saturate the device; more parallel calls only queue inside the model server.
MAX_CONCURRENT_MODEL_CALLS = 4


def build(settings: Settings, client: Client) -> Registrations:
    probe = ProbeActivities(build_embedder(settings))
    return [], [probe.embed]


def main() -> None:
    asyncio.run(
        run_worker(
            lambda s: s.task_queue_gpu, build, max_concurrent_activities=MAX_CONCURRENT_MODEL_CALLS
        )
    )


if __name__ == "__main__":
    main()
