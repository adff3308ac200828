"""The lifecycle makes sure its user's monthly summary schedule exists (issue 16 review): once per
lifecycle, across loop turns and continue-as-new, retried while ingestion goes on; and a run of
the previous release (no such step) gets it on the first turn the new release runs live."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from temporalio import workflow
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHandle
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from tests.workflows.support import (
    Harness,
    IngestionStub,
    MemoryGraphs,
    ScriptedLLM,
    TierMoveStub,
    until,
    workers,
)
from workflows.compaction import CompactionWorkflow
from workflows.lifecycle_state import LifecycleInput, LifecycleState, MessagesReceived, TaskQueues
from workflows.sleep_phase import SleepPhaseWorkflow
from workflows.user_lifecycle import UserLifecycleWorkflow

pytestmark = pytest.mark.workflows

Lifecycle = WorkflowHandle[UserLifecycleWorkflow, None]


@workflow.defn(name="UserLifecycleWorkflow", sandboxed=False)
class PreviousRelease(UserLifecycleWorkflow):
    """This release's lifecycle without the schedule step: a run of the previous release."""

    @workflow.run
    async def run(self, data: LifecycleInput) -> None:
        await super().run(data)

    def _ensure_summary_schedule(self, turn: int) -> None:
        return


def _harness() -> Harness:
    q = f"q-{uuid.uuid4().hex[:12]}"
    return Harness(MemoryGraphs(), ScriptedLLM(), IngestionStub(), q, f"{q}-gpu")


def _input(h: Harness, user: str, continue_as_new_after: int | None = None) -> LifecycleInput:
    state = LifecycleState(
        tenant_id="t1",
        user_id=user,
        queues=TaskQueues(cpu=h.task_queue, gpu=h.gpu_queue),
        publish_search_attributes=False,  # the test server cannot register custom attributes
    )
    return LifecycleInput(state=state, continue_as_new_after=continue_as_new_after)


async def _idle(handle: Lifecycle) -> bool:
    """The latest run waits: its last workflow task is done (the test server does not show one
    in flight in `describe`) and no activity or child is running or retrying."""
    raw = (await handle.describe()).raw_description
    if raw.workflow_execution_info.status != 1 or raw.pending_activities or raw.pending_children:
        return False  # 1: RUNNING
    last = (await handle.fetch_history()).events[-1]
    return last.event_type in (
        EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
        EventType.EVENT_TYPE_TIMER_STARTED,
    )


async def _write(env: WorkflowEnvironment, handle: Lifecycle, ids: list[str]) -> None:
    """Messages on an idle run (the test server fails a task that cancels a timer which fired
    while it ran), then until the run is idle again."""
    await until(lambda: _idle(handle), timedelta(seconds=60))
    now = await env.get_current_time()
    await handle.signal(
        UserLifecycleWorkflow.messages_received,
        MessagesReceived(message_ids=ids, last_sent_at=now),
    )
    await until(lambda: _idle(handle), timedelta(seconds=60))


async def test_the_schedule_is_made_sure_of_once_across_turns_and_continue_as_new(
    own_env: WorkflowEnvironment,
) -> None:
    env = own_env
    h = _harness()
    h.schedules.failures = 1  # Temporal retries it; the messages are extracted meanwhile
    user = f"sched-{uuid.uuid4().hex[:6]}"
    cpu, gpu = workers(env.client, h)
    async with cpu, gpu:
        handle = await env.client.start_workflow(
            UserLifecycleWorkflow.run,
            _input(h, user, continue_as_new_after=2),
            id=f"user-t1-{user}",
            task_queue=h.task_queue,
        )
        first_run = (await handle.describe()).run_id
        latest: Lifecycle = env.client.get_workflow_handle(handle.id)
        for day in range(4):
            await _write(env, latest, [f"d{day}m{i}" for i in range(3)])
            await env.sleep(timedelta(hours=25))
        await until(lambda: _idle(latest), timedelta(seconds=60))
        state = await latest.query(UserLifecycleWorkflow.state)
        assert (await latest.describe()).run_id != first_run
        assert state.ingestion.stats.messages_received == 12
        assert h.schedules.users == [user] and h.schedules.failures == 0
        assert state.summary_schedule_ensured
        await latest.terminate("test over")


async def test_a_run_of_the_previous_release_gets_the_schedule_on_its_next_turn(
    own_env: WorkflowEnvironment,
) -> None:
    """Its history replays on this release without the step; the first turn this release runs
    live makes sure of the schedule, and that history replays too."""
    env = own_env
    h = _harness()
    user = f"old-{uuid.uuid4().hex[:6]}"
    handle: Lifecycle
    # No cache: the old worker keeps no sticky queue that the next task would wait on.
    old_cpu, old_gpu = workers(env.client, h, lifecycle=PreviousRelease, max_cached_workflows=0)
    async with old_cpu, old_gpu:
        handle = await env.client.start_workflow(
            UserLifecycleWorkflow.run,
            _input(h, user),
            id=f"user-t1-{user}",
            task_queue=h.task_queue,
        )
        for n in range(3):
            await _write(env, handle, [f"old{n}"])
        assert h.schedules.users == []
    cpu, gpu = workers(env.client, h)  # new workers: the run is replayed from its history
    async with cpu, gpu:
        await _write(env, handle, ["new0"])
        assert h.schedules.users == [user]
        await _write(env, handle, ["new1"])
        state = await handle.query(UserLifecycleWorkflow.state)
        assert state.summary_schedule_ensured and h.schedules.users == [user]
        assert state.ingestion.stats.messages_received == 5
        history = await handle.fetch_history()
        await handle.terminate("test over")
    replayer = Replayer(
        workflows=[UserLifecycleWorkflow, SleepPhaseWorkflow, CompactionWorkflow, TierMoveStub],
        data_converter=pydantic_data_converter,
    )
    await replayer.replay_workflow(history)
