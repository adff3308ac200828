"""A sleep pass whose model server is down fails fast and says so everywhere an operator looks:
the lifecycle's state (`sleep status`), the pass's `(:SleepRun)` record, the sleep-run metric;
while it retries, `sleep status` shows the step, the attempt and the next retry. A request with
nothing new since a completed pass says so."""

from __future__ import annotations

import uuid
from datetime import timedelta

import httpx
import pytest
from temporalio.testing import WorkflowEnvironment

from selfimprint.adapters.llm import LLMUnavailableError
from selfimprint.cli.sleep import _describe, _describe_running
from selfimprint.domain.sleep_policy import Depth
from selfimprint.domain.sleep_writes import SleepStatus
from tests.workflows.support import (
    Harness,
    IngestionStub,
    MemoryGraphs,
    ScriptedLLM,
    start_lifecycle,
    until,
    workers,
)
from tests.workflows.test_metrics import sample, sdk_metrics  # noqa: F401 (the fixture)
from tests.workflows.test_sleep_phase import _seed
from workflows.lifecycle_state import SleepRequest
from workflows.options import SLEEP_MODEL
from workflows.user_lifecycle import UserLifecycleWorkflow

pytestmark = pytest.mark.workflows

DOWN = "LLM unavailable at http://vllm:8000/v1 (connection): Connection error."


async def test_a_pass_whose_llm_is_down_fails_fast_and_is_recorded_as_failed(
    sdk_metrics: tuple[WorkflowEnvironment, str],  # noqa: F811
) -> None:
    env, url = sdk_metrics
    q = f"q-{uuid.uuid4().hex[:12]}"
    llm = ScriptedLLM(failure=LLMUnavailableError(DOWN))
    h = Harness(MemoryGraphs(), llm, IngestionStub(), q, f"{q}-gpu")
    _seed(h.graphs, "down", await env.get_current_time())  # two memories: the model is asked
    cpu, gpu = workers(env.client, h)
    async with cpu, gpu:
        handle = await start_lifecycle(env.client, h, "down")
        ack = await handle.execute_update(
            UserLifecycleWorkflow.request_sleep, SleepRequest(depth=Depth.FULL)
        )
        assert ack.message.startswith("a full pass starts now")

        async def retrying() -> bool:
            running = (await handle.query(UserLifecycleWorkflow.state)).sleep.running
            if running is None:
                return False
            child = await env.client.get_workflow_handle(running.run_id).describe()
            pending = child.raw_description.pending_activities
            return any(a.activity_type.name == "sleep.propose_hypotheses" for a in pending)

        await until(retrying)
        running = (await handle.query(UserLifecycleWorkflow.state)).sleep.running
        assert running is not None
        child = await env.client.get_workflow_handle(running.run_id).describe()
        shown = _describe_running(running, child)
        assert f"running:     {running.run_id} (full)" in shown
        assert "step:      sleep.propose_hypotheses, attempt" in shown

        async def slept() -> bool:
            await env.sleep(timedelta(seconds=5))  # skips the retries' backoff on the server
            return (await handle.query(UserLifecycleWorkflow.state)).sleep.last is not None

        await until(slept)
        life = await handle.query(UserLifecycleWorkflow.state)
        async with httpx.AsyncClient() as http:
            text = (await http.get(url)).text
        await handle.terminate("test over")

    last = life.sleep.last
    assert last is not None and last.status is SleepStatus.FAILED
    assert last.summary == f"Sleep failed: sleep.propose_hypotheses: {DOWN}"
    assert life.sleep.running is None
    assert f"{last.run_id} failed (full)" in _describe(life)
    # The record in the graph is closed, not left `running`, and names the step and the cause.
    record = h.graphs.for_user("t1", "down").runs[last.run_id]
    assert record.status is SleepStatus.FAILED and record.summary == last.summary
    assert record.finished_at is not None
    # Bounded: the profile's attempts, not a retry for ever.
    assert llm.calls["HypothesesAnswer"] == SLEEP_MODEL["retry_policy"].maximum_attempts == 4
    assert sample(text, "selfimprint_sleep_runs_total", depth="full", outcome="failed") == 1.0


async def test_a_request_with_nothing_new_since_a_completed_pass_says_so(
    env: WorkflowEnvironment,
) -> None:
    q = f"q-{uuid.uuid4().hex[:12]}"
    h = Harness(MemoryGraphs(), ScriptedLLM(), IngestionStub(), q, f"{q}-gpu")
    cpu, gpu = workers(env.client, h)
    async with cpu, gpu:
        handle = await start_lifecycle(env.client, h, "idle")
        first = await handle.execute_update(UserLifecycleWorkflow.request_sleep, SleepRequest())
        assert first.message == "a full pass starts now"

        async def slept() -> bool:
            return (await handle.query(UserLifecycleWorkflow.state)).sleep.last is not None

        await until(slept)
        last = (await handle.query(UserLifecycleWorkflow.state)).sleep.last
        assert last is not None and last.status is SleepStatus.COMPLETED
        again = await handle.execute_update(UserLifecycleWorkflow.request_sleep, SleepRequest())
        assert again.message.startswith("a full pass starts now; nothing new since the last pass")
        assert last.run_id in again.message
        await handle.terminate("test over")
