"""Issue 35: a sleep pass whose model server is down, on the stack's Temporal server and Neo4j,
with the product's OpenAI-compatible client pointed at a port that refuses connections. While
it retries, `selfimprint sleep status` shows the step, the attempt and the next try; after the
profile's bounded attempts the pass fails, and it says so everywhere an operator looks: the
user's `(:SleepRun)` in Neo4j ends `failed` with the step and the cause, `sleep status` names
it, and the workers' Prometheus endpoint counts the failed run."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

import httpx
import pytest
from temporalio.worker import Worker

from activities.sleep import SleepActivities, SleepModelActivities
from selfimprint.adapters.llm import OpenAICompatibleLLM
from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.temporal import connect
from selfimprint.cli.sleep import _status_text
from selfimprint.config import Settings
from selfimprint.domain.sleep_policy import Depth
from selfimprint.domain.sleep_writes import SleepStatus
from tests.integration.test_sleep import _seed
from tests.ports import free_port, refused_port
from tests.workflows.support import IngestionStub, TierMoveStub
from tests.workflows.test_metrics import sample
from workers.runner import temporal_runtime
from workflows.lifecycle_state import LifecycleInput, LifecycleState, SleepRequest, TaskQueues
from workflows.options import SLEEP_MODEL
from workflows.sleep_phase import SleepPhaseWorkflow
from workflows.user_lifecycle import UserLifecycleWorkflow, workflow_id

pytestmark = pytest.mark.integration


async def test_a_pass_whose_llm_is_down_is_recorded_failed_in_neo4j_the_cli_and_the_metric(
    stack_settings: Settings, graph_store: Neo4jGraphStore, accounts: Neo4jAccounts
) -> None:
    metrics_port = free_port()
    runtime = temporal_runtime(
        stack_settings.model_copy(update={"worker_sdk_metrics_port": metrics_port})
    )
    client = await connect(stack_settings, runtime=runtime)
    tenant, user, queue = "tdown", f"u{uuid.uuid4().hex[:8]}", f"down-{uuid.uuid4().hex[:8]}"
    store = graph_store.for_user(tenant, user)
    await _seed(store, accounts, tenant)  # memories enough that the pass asks the model
    model_url = f"http://127.0.0.1:{refused_port()}/v1"
    stages = graph_store.payload_stages()
    model = SleepModelActivities(
        OpenAICompatibleLLM(model_url, "llama", "none", timeout_s=5.0), stages=stages
    )
    sleep, ingestion = SleepActivities(graph_store, stages=stages), IngestionStub()
    cpu = Worker(
        client,
        task_queue=queue,
        workflows=[UserLifecycleWorkflow, SleepPhaseWorkflow, TierMoveStub],
        activities=[
            ingestion.pending_messages, ingestion.sleep_pause, ingestion.stage_batch,
            sleep.begin, sleep.finish, sleep.detect_patterns, sleep.infer_connections,
            sleep.hypothesis_context, sleep.store_hypotheses, sleep.recalibrate,
            sleep.schedule_triggers, sleep.prepare_open_loops, sleep.check_hypotheses,
            sleep.stance_candidates,
        ],
        graceful_shutdown_timeout=timedelta(seconds=1),
    )  # fmt: skip
    gpu = Worker(
        client,
        task_queue=f"{queue}-gpu",
        activities=[model.precheck, model.propose_hypotheses, model.judge_stances],
    )
    state = LifecycleState(
        tenant_id=tenant, user_id=user, queues=TaskQueues(cpu=queue, gpu=f"{queue}-gpu")
    )
    async with cpu, gpu:
        handle = await client.start_workflow(
            UserLifecycleWorkflow.run,
            LifecycleInput(state=state),
            id=workflow_id(tenant, user),
            task_queue=queue,
        )
        ack = await handle.execute_update(
            UserLifecycleWorkflow.request_sleep, SleepRequest(depth=Depth.FULL)
        )
        assert ack.accepted, ack.message

        # While it retries: the step, its attempt out of the bounded few, the next try, why.
        retrying = ""
        for _ in range(300):
            retrying = await _status_text(stack_settings, tenant, user)
            if "next try:" in retrying and "LLM unavailable" in retrying:
                break
            await asyncio.sleep(0.2)
        assert "running:     sleep-" in retrying and "(full)" in retrying, retrying
        attempts = SLEEP_MODEL["retry_policy"].maximum_attempts
        assert "step:      sleep.propose_hypotheses, attempt " in retrying, retrying
        assert f"/{attempts}" in retrying, retrying
        # The server keeps the failure whole (not "Failure exceeds size limit.": issue 35).
        assert f"failed:    LLM unavailable at {model_url} (connection)" in retrying, retrying

        for _ in range(600):  # ~35 s of backoff on the real server, then the pass fails
            life = await handle.query(UserLifecycleWorkflow.state)
            if life.sleep.last is not None:
                break
            await asyncio.sleep(0.2)
        shown = await _status_text(stack_settings, tenant, user)
        async with httpx.AsyncClient() as http:
            metrics = (await http.get(f"http://127.0.0.1:{metrics_port}/metrics")).text
        await handle.terminate("test over")

    last = life.sleep.last
    assert last is not None and last.status is SleepStatus.FAILED, life.sleep
    assert last.summary.startswith("Sleep failed: sleep.propose_hypotheses: LLM unavailable at")
    assert model_url in last.summary and life.sleep.running is None
    # The CLI names the failed run; the record in Neo4j is closed with the same words.
    assert f"{last.run_id} failed (full)" in shown and "running:" not in shown, shown
    record = await store.sleep_run(last.run_id)
    assert record is not None and record.status is SleepStatus.FAILED
    assert record.summary == last.summary and record.finished_at is not None
    assert sample(metrics, "selfimprint_sleep_runs_total", depth="full", outcome="failed") == 1.0
    assert sample(metrics, "selfimprint_sleep_runs_total", outcome="completed") is None
