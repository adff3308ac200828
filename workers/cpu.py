"""CPU worker: all workflows, plus graph and storage activities."""

from __future__ import annotations

import asyncio

from temporalio.client import Client

from selfimprint.config import Settings
from workers.runner import Registrations, run_worker
from workflows.probe import StackProbeWorkflow


def build(settings: Settings, client: Client) -> Registrations:
    return [StackProbeWorkflow], []


def main() -> None:
    asyncio.run(run_worker(lambda s: s.task_queue_cpu, build))


if __name__ == "__main__":
    main()
