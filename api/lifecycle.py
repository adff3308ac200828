"""How the API reaches a user's lifecycle workflow: signal-with-start, so the first message or
profile change creates the workflow and later ones reach the running one."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel
from temporalio.common import WorkflowIDConflictPolicy

from api.resources import Resources
from selfimprint.adapters.neo4j.records import UserScope
from selfimprint.logging import get_logger
from workflows.user_lifecycle import (
    ContextRequested,
    FeedbackReceived,
    LifecycleInput,
    LifecycleState,
    MessagesReceived,
    ProfileChanged,
    TaskQueues,
    UserLifecycleWorkflow,
    workflow_id,
)

log = get_logger(__name__)

RETOLD_PER_SIGNAL = 1000  # MessagesReceived's limit


def _initial(resources: Resources, scope: UserScope) -> LifecycleInput:
    s = resources.settings
    return LifecycleInput(
        state=LifecycleState(
            tenant_id=scope.tenant_id,
            user_id=scope.user_id,
            queues=TaskQueues(cpu=s.task_queue_cpu, gpu=s.task_queue_gpu),
            timings=s.lifecycle_timings(),
        )
    )


async def _signal_with_start(
    resources: Resources, scope: UserScope, signal: str, argument: BaseModel
) -> None:
    """Signal the user's lifecycle workflow, starting it first if it is not running."""
    client = await resources.temporal()
    await client.start_workflow(
        UserLifecycleWorkflow.run,
        _initial(resources, scope),
        id=workflow_id(scope.tenant_id, scope.user_id),
        task_queue=resources.settings.task_queue_cpu,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        start_signal=signal,
        start_signal_args=[argument],
    )


async def signal_messages(
    resources: Resources, scope: UserScope, message_ids: list[str], last_sent_at: datetime
) -> None:
    received = MessagesReceived(
        message_ids=message_ids,
        last_sent_at=last_sent_at,
        timings=resources.settings.lifecycle_timings(),
    )
    await _signal_with_start(resources, scope, "messages_received", received)


async def retell_pending(resources: Resources, scope: UserScope) -> None:
    """Tell the lifecycle about every stored message not extracted yet, whether or not its nudge
    has landed (it may still be on its way from another API process). A forget sends this
    first: a message accepted before the forget is then queued when the forget ends, and the
    lifecycle forgets again after extracting it."""
    pending = await resources.messages(scope).pending(limit=100_000)
    for start in range(0, len(pending), RETOLD_PER_SIGNAL):
        retold = MessagesReceived(
            message_ids=pending[start : start + RETOLD_PER_SIGNAL],
            last_sent_at=datetime.now(UTC),
            activity=False,
        )
        await _signal_with_start(resources, scope, "messages_received", retold)


async def signal_profile(resources: Resources, scope: UserScope, change: ProfileChanged) -> None:
    timed = change.model_copy(update={"timings": resources.settings.lifecycle_timings()})
    await _signal_with_start(resources, scope, "profile_changed", timed)


async def signal_feedback(
    resources: Resources, scope: UserScope, feedback: FeedbackReceived
) -> None:
    await _signal_with_start(resources, scope, "feedback_received", feedback)


async def request_rehydration(resources: Resources, scope: UserScope) -> None:
    """Ask the lifecycle workflow to bring a warm or cold graph back (best effort: the caller
    answers a degraded context either way)."""
    try:
        requested = ContextRequested(requested_at=datetime.now(UTC))
        await _signal_with_start(resources, scope, "context_requested", requested)
    except Exception as exc:
        log.warning("lifecycle.rehydrate_signal_failed", user_id=scope.user_id, error=str(exc))
