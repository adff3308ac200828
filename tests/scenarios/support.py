"""A user's life over simulated weeks: the real lifecycle, sleep, compaction and tier workflows
on the time-skipping Temporal server, the real activities against the session's Neo4j and S3,
and the public HTTP API (in process, over ASGI) whose clock follows the server's.

Only the model side is scripted: extraction is `verbatim` (each user message one memory, with a
real multilingual-e5 embedding), and the sleep phase's two LLM calls get fixed answers (a real
8B model cannot run here; tests/workflows cover what those answers do).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.ingestion import ExtractionActivities, ExtractionMode
from api.app import create_app
from api.resources import Resources
from selfimprint.adapters.embedders import build_embedder
from selfimprint.adapters.neo4j import open_driver
from selfimprint.adapters.neo4j.ingestion_stage import IngestionStages
from selfimprint.adapters.neo4j.message_log import Neo4jMessageLog
from selfimprint.adapters.neo4j.payload_stage import Neo4jPayloadStages
from selfimprint.adapters.temporal import data_converter
from selfimprint.config import Settings
from selfimprint.domain.sleep_policy import Depth
from selfimprint.domain.structured.extractor import DEFAULT_STRUCTURED, StructuredConfig
from selfimprint.domain.users import UserScope
from selfimprint.ports import LLM
from tests.deadlines import READY_S
from tests.temporal_server import skip_to_time_of_day, start_test_server
from tests.workflows.support import ScriptedLLM
from workers import cpu, gpu
from workflows.ids import lifecycle_workflow_id
from workflows.lifecycle_state import SleepRequest
from workflows.user_lifecycle import UserLifecycleWorkflow


@dataclass
class SimulatedClock:
    """The API's "now": the time-skipping server's, refreshed whenever a scenario skips time."""

    now: datetime = field(default_factory=lambda: datetime.now(UTC))

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Life:
    """One user of one scenario: talk to the API, let days pass, look at what they'd see."""

    env: WorkflowEnvironment
    http: httpx.AsyncClient
    clock: SimulatedClock
    user_id: str
    lifecycle_id: str
    messages: Neo4jMessageLog
    seq: int = 0

    async def sync_clock(self) -> None:
        self.clock.now = await self.env.get_current_time()

    async def days_pass(self, days: float) -> None:
        """Let time run on the server (timers fire: sleeps, compactions, tier moves), then wait
        for whatever the lifecycle started to finish."""
        await self.env.sleep(timedelta(days=days))
        await self.sync_clock()
        await self.settle()

    async def say(
        self, *texts: str, sent_at: datetime | None = None, role: str = "user"
    ) -> list[str]:
        """The user (or with `role="assistant"`, the assistant) writes; returns the message
        ids once every message is extracted."""
        ids, messages = [], []
        for text in texts:
            self.seq += 1
            message_id = f"{self.user_id}-m{self.seq}"
            ids.append(message_id)
            messages.append(
                {
                    "id": message_id,
                    "role": role,
                    "text": text,
                    "sent_at": (sent_at or self.clock.now).isoformat(),
                }
            )
        answer = await self.http.post(
            f"/v1/users/{self.user_id}/messages", json={"messages": messages}
        )
        assert answer.status_code == 202, answer.text
        await self.settle()
        return ids

    async def settle(self, timeout_s: float = READY_S) -> None:
        """Until no message is pending and nothing the lifecycle started is still running."""
        deadline = time.monotonic() + timeout_s
        handle = self.env.client.get_workflow_handle(self.lifecycle_id)
        while True:
            if await self.messages.pending(limit=1):
                await asyncio.sleep(0.2)  # stored, the nudge not yet there or not yet extracted
                if time.monotonic() > deadline:
                    raise TimeoutError(f"messages of {self.user_id} still pending")
                continue
            state = await handle.query(UserLifecycleWorkflow.state)
            described = (await handle.describe()).raw_description
            if (
                not state.ingestion.pending_message_ids
                and not described.pending_activities
                and not described.pending_children
            ):
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"lifecycle of {self.user_id} still busy after {timeout_s}s")
            await asyncio.sleep(0.2)

    async def memories(self) -> list[dict[str, Any]]:
        answer = await self.http.get(f"/v1/users/{self.user_id}/memories", params={"limit": 500})
        assert answer.status_code == 200, answer.text
        found: list[dict[str, Any]] = answer.json()["memories"]
        return found

    async def memory(self, memory_id: str) -> dict[str, Any]:
        answer = await self.http.get(f"/v1/users/{self.user_id}/memories/{memory_id}")
        assert answer.status_code == 200, answer.text
        found: dict[str, Any] = answer.json()
        return found

    async def portrait(self) -> str:
        answer = await self.http.get(f"/v1/users/{self.user_id}/portrait")
        assert answer.status_code == 200, answer.text
        return answer.text

    async def context(self, message: str, budget_tokens: int | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"message": message}
        if budget_tokens is not None:
            body["budget_tokens"] = budget_tokens
        answer = await self.http.post(f"/v1/users/{self.user_id}/context", json=body)
        assert answer.status_code == 200, answer.text
        found: dict[str, Any] = answer.json()
        return found

    async def sleep(self, depth: Depth, timeout_s: float = READY_S) -> None:
        """An operator's pass of `depth`, waited for until its outcome is recorded."""
        handle = self.env.client.get_workflow_handle(self.lifecycle_id)
        before = await handle.query(UserLifecycleWorkflow.state)
        await handle.execute_update(
            UserLifecycleWorkflow.request_sleep, SleepRequest(depth=depth, reason="scenario")
        )
        deadline = time.monotonic() + timeout_s
        while True:
            state = await handle.query(UserLifecycleWorkflow.state)
            last, previous = state.sleep.last, before.sleep.last
            if last is not None and (previous is None or last.run_id != previous.run_id):
                break
            if time.monotonic() > deadline:
                raise TimeoutError("the requested sleep did not finish")
            await asyncio.sleep(0.2)
        await self.settle()

    async def until_hot(self, timeout_s: float = READY_S) -> None:
        deadline = time.monotonic() + timeout_s
        while (await self.context("ping"))["tier"] != "hot":
            if time.monotonic() > deadline:
                raise TimeoutError("the graph did not come back to the hot tier")
            await self.settle()
            await asyncio.sleep(0.2)


def _queues(settings: Settings) -> Settings:
    tag = uuid.uuid4().hex[:8]
    return settings.model_copy(
        update={
            "task_queue_cpu": f"scenario-cpu-{tag}",
            "task_queue_gpu": f"scenario-gpu-{tag}",
            "extraction": "verbatim",
            # The time-skipping server cannot register custom search attributes.
            "temporal_search_attributes": False,
        }
    )


@asynccontextmanager
async def a_life(
    stack_settings: Settings,
    tenant_key: str,
    *,
    plan: str = "paid",
    extractor: LLM | None = None,
    extraction: ExtractionMode = ExtractionMode.VERBATIM,
    tuning_file: Path | None = None,
    model_stance: bool = False,
    structured: StructuredConfig = DEFAULT_STRUCTURED,
) -> AsyncIterator[Life]:
    """A fresh time-skipping server, both workers (the cpu worker's real registrations; on the
    gpu queue `extraction` (verbatim unless asked), or `extractor` as the extraction LLM, the
    real embedder and a scripted sleep LLM), the API in process with the server's clock, and a
    new user on it. `model_stance`: full sleeps ask the sleep LLM for hypothesis evidence, as a
    deployment whose extraction runs on the model server does (`Settings.model_stance`);
    `structured`: the structured extractor's settings (a rule switched on or off, to show it
    acts)."""
    settings = _queues(stack_settings).model_copy(update={"tuning_file": tuning_file})
    if model_stance:
        # The user's lifecycle takes the flag from the API's settings; the gpu queue's
        # extraction mode is set explicitly below, so this changes nothing else.
        settings = settings.model_copy(update={"extraction": "refine"})
    env = await start_test_server(data_converter(settings))
    await skip_to_time_of_day(env)
    clock = SimulatedClock()
    stack = ExitStack()
    # The gpu worker reads staged batches and records their extraction (issue 35).
    driver = open_driver(settings)
    try:
        workflows, cpu_activities = await cpu.build(settings, env.client)
        embedder = build_embedder(settings)
        extraction_activities = ExtractionActivities(
            extractor or ScriptedLLM(),
            embedder,
            mode=ExtractionMode.LLM if extractor is not None else extraction,
            structured=structured,
            stages=IngestionStages(driver, settings.neo4j_database),
        )
        gpu_activities = gpu.model_activities(
            embedder,
            extraction_activities,
            ScriptedLLM(worth_reasoning=True),
            Neo4jPayloadStages(driver, settings.neo4j_database),
        )

        def opened(s: Settings) -> Resources:
            resources = Resources.open(s)
            resources._temporal = env.client
            resources.clock = clock
            return resources

        app = create_app(settings, opened)
        pool = ThreadPoolExecutor(max_workers=4)  # the sync activities (as workers.runner)
        stack.callback(pool.shutdown)
        async with (
            Worker(
                env.client,
                task_queue=settings.task_queue_cpu,
                workflows=list(workflows),
                activities=list(cpu_activities),
                activity_executor=pool,
            ),
            Worker(
                env.client,
                task_queue=settings.task_queue_gpu,
                activities=gpu_activities,
                activity_executor=pool,
            ),
            app.router.lifespan_context(app),
            httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app),
                base_url="http://scenario",
                headers={"authorization": f"Bearer {tenant_key}"},
                timeout=60.0,
            ) as http,
        ):
            user_id = f"u{uuid.uuid4().hex[:10]}"
            # Keys read si_<tenant>_<secret>; the session's tenant id has no underscore.
            tenant = tenant_key.split("_")[1]
            life = Life(
                env=env,
                http=http,
                clock=clock,
                user_id=user_id,
                lifecycle_id=lifecycle_workflow_id(tenant, user_id),
                messages=app.state.resources.messages(UserScope(tenant, user_id)),
            )
            await life.sync_clock()
            made = await http.put(f"/v1/users/{user_id}", json={"plan": plan})
            assert made.status_code in (200, 201), made.text
            yield life
    finally:
        stack.close()
        await driver.close()
        await env.shutdown()
