"""Metrics served by the Temporal runtime a worker builds (workers/runner.py): the SDK's task
slots and the lifecycle's sleep-run metrics, scraped as Prometheus would; and a real worker
process (`python -m workers.gpu`) serving both of its endpoints."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from selfimprint.config import Settings
from selfimprint.domain.sleep_policy import Depth
from selfimprint.domain.sleep_writes import SleepStatus
from tests.ports import free_port
from tests.temporal_server import start_test_server
from tests.workflows.support import (
    Harness,
    IngestionStub,
    MemoryGraphs,
    ScriptedLLM,
    start_lifecycle,
    until,
    workers,
)
from workers.runner import SLEEP_DURATION_BUCKETS, temporal_runtime
from workflows.lifecycle_state import SleepRequest
from workflows.user_lifecycle import UserLifecycleWorkflow

pytestmark = pytest.mark.workflows

REPO = Path(__file__).resolve().parents[2]


def sample(text: str, name: str, **labels: str) -> float | None:
    """The value of the first sample `name{...}` whose labels include these."""
    for line in text.splitlines():
        found = re.fullmatch(r"([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)", line)
        if found is None or found.group(1) != name:
            continue
        have = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', found.group(2) or ""))
        if all(have.get(k) == v for k, v in labels.items()):
            return float(found.group(3))
    return None


@pytest.fixture
async def sdk_metrics() -> AsyncIterator[tuple[WorkflowEnvironment, str]]:
    """A time-skipping server whose client (and so its workers) use the runtime the worker
    process would build, serving Prometheus on a free port."""
    port = free_port()
    runtime = temporal_runtime(Settings(bind_host="127.0.0.1", worker_sdk_metrics_port=port))
    assert runtime is not None
    environment = await start_test_server(pydantic_data_converter, runtime)
    yield environment, f"http://127.0.0.1:{port}/metrics"
    await environment.shutdown()


def test_no_runtime_when_the_sdk_metrics_port_is_zero() -> None:
    assert temporal_runtime(Settings(worker_sdk_metrics_port=0)) is None


async def test_a_sleep_run_and_the_worker_slots_are_served_for_prometheus(
    sdk_metrics: tuple[WorkflowEnvironment, str],
) -> None:
    env, url = sdk_metrics
    q = f"q-{uuid.uuid4().hex[:12]}"
    h = Harness(MemoryGraphs(), ScriptedLLM(), IngestionStub(), q, f"{q}-gpu")
    cpu, gpu = workers(env.client, h)
    async with cpu, gpu:
        handle = await start_lifecycle(env.client, h, "metered")
        ack = await handle.execute_update(
            UserLifecycleWorkflow.request_sleep, SleepRequest(depth=Depth.FULL)
        )
        assert ack.accepted

        async def slept() -> bool:
            return (await handle.query(UserLifecycleWorkflow.state)).sleep.last is not None

        await until(slept)
        last = (await handle.query(UserLifecycleWorkflow.state)).sleep.last
        assert last is not None and last.status is SleepStatus.COMPLETED
        async with httpx.AsyncClient() as http:
            text = (await http.get(url)).text
        await handle.terminate("test over")

    runs = sample(text, "selfimprint_sleep_runs_total", depth="full", outcome="completed")
    assert runs == 1.0
    assert sample(text, "selfimprint_sleep_duration_seconds_count", depth="full") == 1.0
    # The bucket override reached the runtime: its edges, not the SDK's defaults.
    top = f"{SLEEP_DURATION_BUCKETS[-1]:g}"
    assert sample(text, "selfimprint_sleep_duration_seconds_bucket", depth="full", le=top) == 1.0
    for name in ("temporal_worker_task_slots_available", "temporal_worker_task_slots_used"):
        for worker_type in ("WorkflowWorker", "ActivityWorker"):
            assert sample(text, name, worker_type=worker_type, task_queue=q) is not None, name
    # Durations are seconds with Prometheus names (see docs/operations.md, "Metrics").
    assert sample(text, "temporal_activity_execution_latency_seconds_count") is not None
    assert sample(text, "temporal_request_total") is not None


async def test_the_gpu_worker_process_serves_app_and_sdk_metrics(
    tmp_path: Path, env: WorkflowEnvironment
) -> None:
    app_port, sdk_port = free_port(), free_port()
    queue = f"gpu-{uuid.uuid4().hex[:10]}"
    environ = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("SELFIMPRINT_", "OTEL_"))},
        "SELFIMPRINT_DATA_DIR": str(tmp_path),
        "SELFIMPRINT_TEMPORAL_ADDRESS": env.client.service_client.config.target_host,
        "SELFIMPRINT_TEMPORAL_ENCRYPT_PAYLOADS": "false",
        # Required since batches are staged in Neo4j (issue 35); unused here: the driver
        # connects on the first staged batch.
        "SELFIMPRINT_NEO4J_PASSWORD": "unused",
        "SELFIMPRINT_TASK_QUEUE_GPU": queue,
        "SELFIMPRINT_WORKER_METRICS_PORT": str(app_port),
        "SELFIMPRINT_WORKER_SDK_METRICS_PORT": str(sdk_port),
        "SELFIMPRINT_LOG_FORMAT": "json",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "workers.gpu"],
        cwd=REPO,
        env=environ,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        async with httpx.AsyncClient(timeout=2.0) as http:

            async def slots_served() -> bool:
                assert proc.poll() is None, "the worker exited"
                try:
                    answer = await http.get(f"http://127.0.0.1:{sdk_port}/metrics")
                except httpx.HTTPError:
                    return False
                name = "temporal_worker_task_slots_available"
                return sample(answer.text, name, task_queue=queue) is not None

            await until(slots_served, timeout=timedelta(seconds=60))
            app = (await http.get(f"http://127.0.0.1:{app_port}/metrics")).text
        # The GPU worker's own metrics: the LLM families exist before the first call.
        assert "# TYPE selfimprint_llm_request_duration_seconds histogram" in app
        assert "# TYPE selfimprint_llm_errors_total counter" in app
        # Only the CPU worker refreshes the backlog; nobody else serves a stale 0.
        assert "selfimprint_pending_messages" not in app
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            _, err = await asyncio.to_thread(proc.communicate, timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert b"worker.stopped" in err, err.decode()[-2000:]
