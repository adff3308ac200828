"""Shared worker process plumbing: settings, logging, connect, graceful shutdown on SIGTERM."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

from temporalio.client import Client
from temporalio.worker import Worker

from selfimprint.adapters.temporal import connect
from selfimprint.config import Settings
from selfimprint.logging import configure_logging, get_logger

log = get_logger(__name__)

# What a worker module hands the runner: its workflow classes and activity callables.
Registrations = tuple[Sequence[type], Sequence[Callable[..., Any]]]


async def run_worker(
    task_queue_of: Callable[[Settings], str],
    build: Callable[[Settings, Client], Awaitable[Registrations]],
    *,
    max_concurrent_activities: int | None = None,
) -> None:
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    client = await connect(settings)
    workflows, activities = await build(settings, client)
    task_queue = task_queue_of(settings)
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
        log.info("worker.started", task_queue=task_queue)
        async with worker:
            await stop.wait()
            log.info("worker.stopping", task_queue=task_queue)
    log.info("worker.stopped", task_queue=task_queue)
