"""Where one user's ingestion time goes: structured extraction of a backlog on a throw-away local
stack, timed per activity from the lifecycle's own Temporal history (every run of it, across
continue-as-new).

    .venv/bin/python scripts/bench_ingestion_steps.py [--messages 200] [--rounds 2]

Each round sends `--messages` messages (bench_api's synthetic sentences, 4 per request) for a new
user, waits until all are extracted, and prints messages/s and, per activity type, how many ran
and their mean queue and run time, then the workflow tasks. Run it on two trees one after the
other for a side-by-side comparison (BENCHMARKS.md, "API"); the first round warms Neo4j.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import httpx
from bench_api import ingest, issue_key, restart_gpu_worker
from temporalio.api.enums.v1 import EventType

from selfimprint.adapters.temporal import connect
from selfimprint.config import Settings
from selfimprint.devstack import stack
from selfimprint.devstack.ports import isolated_port_settings
from workflows.ids import lifecycle_workflow_id


@dataclass
class StepTimes:
    count: int = 0
    queued_s: float = 0.0
    ran_s: float = 0.0


async def step_times(
    settings: Settings, tenant: str, user: str
) -> tuple[dict[str, StepTimes], StepTimes]:
    """Activity type -> its times, and the workflow tasks' (scheduled to completed)."""
    client = await connect(settings)
    workflow_id = lifecycle_workflow_id(tenant, user)
    steps: dict[str, StepTimes] = defaultdict(StepTimes)
    tasks = StepTimes()
    async for execution in client.list_workflows(f"WorkflowId = '{workflow_id}'"):
        scheduled: dict[int, tuple[str, float]] = {}
        started: dict[int, float] = {}
        task_scheduled: float | None = None
        handle = client.get_workflow_handle(workflow_id, run_id=execution.run_id)
        async for event in handle.fetch_history_events():
            at = event.event_time.ToDatetime().timestamp()
            if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
                name = event.activity_task_scheduled_event_attributes.activity_type.name
                scheduled[event.event_id] = (name, at)
            elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
                started[event.activity_task_started_event_attributes.scheduled_event_id] = at
            elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
                ref = event.activity_task_completed_event_attributes.scheduled_event_id
                name, queued_at = scheduled[ref]
                step = steps[name]
                step.count += 1
                step.queued_s += started[ref] - queued_at
                step.ran_s += at - started[ref]
            elif event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
                task_scheduled = at
            elif (
                event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED
                and task_scheduled is not None
            ):
                tasks.count += 1
                tasks.ran_s += at - task_scheduled
    return dict(steps), tasks


def report(
    label: str, messages: int, seconds: float, steps: dict[str, StepTimes], tasks: StepTimes
) -> None:
    lines = [f"{label}: {messages / seconds:.1f} messages/s ({messages} in {seconds:.1f} s)"]
    for name, step in sorted(steps.items()):
        lines.append(
            f"  {name:32s} n={step.count:4d}  queued {step.queued_s / step.count * 1000:6.1f} ms"
            f"  ran {step.ran_s / step.count * 1000:7.1f} ms  total {step.ran_s:6.1f} s"
        )
    mean = tasks.ran_s / max(tasks.count, 1) * 1000
    lines.append(f"  workflow tasks n={tasks.count} mean {mean:.1f} ms total {tasks.ran_s:.1f} s")
    sys.stdout.write("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="si-bench-steps-"))
    settings = Settings(data_dir=root, neo4j_heap="2g", **isolated_port_settings())  # type: ignore[arg-type]
    stack.up(settings)
    try:
        tenant, key = asyncio.run(issue_key(settings))
        http = httpx.Client(
            base_url=settings.api_url, headers={"Authorization": f"Bearer {key}"}, timeout=300
        )
        restart_gpu_worker(settings.model_copy(update={"extraction": "structured"}))
        for number in range(1, args.rounds + 1):
            user = f"steps-{number}"
            seconds, messages = ingest(http, settings, tenant, args.messages, "steps", user=user)
            steps, tasks = asyncio.run(step_times(settings, tenant, user))
            report(f"round {number}", messages, seconds, steps, tasks)
    finally:
        stack.down(settings)


if __name__ == "__main__":
    main()
