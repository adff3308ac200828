"""Shared worker process plumbing: settings, logging, telemetry, connect, graceful shutdown on
SIGTERM."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

from temporalio.client import Client
from temporalio.runtime import PrometheusConfig, Runtime, TelemetryConfig
from temporalio.worker import Worker

from selfimprint.adapters.temporal import connect
from selfimprint.config import Settings
from selfimprint.logging import configure_logging, get_logger
from selfimprint.telemetry import tracing
from selfimprint.telemetry.metrics import serve_app_metrics

log = get_logger(__name__)

# What a worker module hands the runner: its workflow classes and activity callables.
Registrations = tuple[Sequence[type], Sequence[Callable[..., Any]]]
# Work a worker process does beside polling (e.g. refreshing gauges), until cancelled.
Background = Callable[[Settings], Coroutine[Any, Any, None]]

# The sleep-run histogram (recorded by the lifecycle through workflow.metric_meter()): passes
# take seconds on a small graph and up to the LLM retry budget (~30 min) on a failing one.
SLEEP_DURATION_BUCKETS = (1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1200.0, 1800.0, 3600.0)


def temporal_runtime(settings: Settings) -> Runtime | None:
    """A Temporal runtime serving the SDK's metrics (and the workflows' metric_meter ones) for
    Prometheus on worker_sdk_metrics_port; None when that port is 0.

    Prometheus naming: counters end in `_total`, durations are seconds and their names end in
    `_seconds` (a timedelta histogram named `selfimprint_sleep_duration` is served as
    `selfimprint_sleep_duration_seconds`). docs/operations.md lists the names as served."""
    if settings.worker_sdk_metrics_port == 0:
        return None
    prometheus = PrometheusConfig(
        bind_address=f"{settings.bind_host}:{settings.worker_sdk_metrics_port}",
        counters_total_suffix=True,
        durations_as_seconds=True,
        unit_suffix=True,
        histogram_bucket_overrides={"selfimprint_sleep_duration": SLEEP_DURATION_BUCKETS},
    )
    return Runtime(telemetry=TelemetryConfig(metrics=prometheus))


def process_role(settings: Settings, task_queue: str) -> str:
    """The name this worker goes by in traces (`selfimprint-<role>`)."""
    if task_queue == settings.task_queue_cpu:
        return "worker-cpu"
    if task_queue == settings.task_queue_gpu:
        return "worker-gpu"
    return f"worker-{task_queue}"


async def run_worker(
    task_queue_of: Callable[[Settings], str],
    build: Callable[[Settings, Client], Awaitable[Registrations]],
    *,
    max_concurrent_activities: int | None = None,
    background: Sequence[Background] = (),
) -> None:
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    task_queue = task_queue_of(settings)
    provider = tracing.configure_tracing(process_role(settings, task_queue))
    stop_metrics = serve_app_metrics(settings.bind_host, settings.worker_metrics_port)
    try:
        client = await connect(settings, runtime=temporal_runtime(settings))
        workflows, activities = await build(settings, client)
        await _poll(
            client,
            settings,
            task_queue,
            workflows,
            activities,
            max_concurrent_activities,
            background,
        )
    finally:
        stop_metrics()
        tracing.shutdown_tracing(provider)
    log.info("worker.stopped", task_queue=task_queue)


async def _poll(
    client: Client,
    settings: Settings,
    task_queue: str,
    workflows: Sequence[type],
    activities: Sequence[Callable[..., Any]],
    max_concurrent_activities: int | None,
    background: Sequence[Background],
) -> None:
    with ThreadPoolExecutor(max_workers=max_concurrent_activities or 8) as pool:
        worker = Worker(
            client,
            task_queue=task_queue,
            workflows=list(workflows),
            activities=list(activities),
            activity_executor=pool,
            max_concurrent_activities=max_concurrent_activities,
            max_cached_workflows=settings.worker_max_cached_workflows,
            graceful_shutdown_timeout=timedelta(seconds=20),
        )
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        side_tasks = [asyncio.create_task(work(settings)) for work in background]
        log.info("worker.started", task_queue=task_queue)
        try:
            async with worker:
                await stop.wait()
                log.info("worker.stopping", task_queue=task_queue)
        finally:
            for task in side_tasks:
                task.cancel()
            for outcome in await asyncio.gather(*side_tasks, return_exceptions=True):
                if not isinstance(outcome, (asyncio.CancelledError, type(None))):
                    log.error("worker.background_failed", error=repr(outcome)[:300])
