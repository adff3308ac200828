"""Reaching a user's lifecycle workflow from outside it (the API, operator commands):
signal-with-start, so the first message or profile change creates the workflow and later ones
reach the running one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pydantic import BaseModel
from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy

from selfimprint.adapters.neo4j.message_log import Neo4jMessageLog
from selfimprint.config import Settings
from selfimprint.domain.users import UserScope
from workflows.lifecycle_state import LifecycleInput, LifecycleState, MessagesReceived, TaskQueues
from workflows.user_lifecycle import UserLifecycleWorkflow, workflow_id

RETOLD_PER_SIGNAL = 1000  # MessagesReceived's limit
# A server that accepts the call and never answers fails it here, not never.
SIGNAL_RPC_TIMEOUT = timedelta(seconds=10)


def _initial(settings: Settings, scope: UserScope) -> LifecycleInput:
    return LifecycleInput(
        state=LifecycleState(
            tenant_id=scope.tenant_id,
            user_id=scope.user_id,
            queues=TaskQueues(cpu=settings.task_queue_cpu, gpu=settings.task_queue_gpu),
            timings=settings.lifecycle_timings(),
            publish_search_attributes=settings.temporal_search_attributes,
            model_stance=settings.model_stance,
        )
    )


async def signal_with_start(
    client: Client, settings: Settings, scope: UserScope, signal: str, argument: BaseModel
) -> None:
    """Signal the user's lifecycle workflow, starting it first if it is not running."""
    await client.start_workflow(
        UserLifecycleWorkflow.run,
        _initial(settings, scope),
        id=workflow_id(scope.tenant_id, scope.user_id),
        task_queue=settings.task_queue_cpu,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        start_signal=signal,
        start_signal_args=[argument],
        rpc_timeout=SIGNAL_RPC_TIMEOUT,
    )


async def retell_pending(
    client: Client, settings: Settings, message_log: Neo4jMessageLog, scope: UserScope
) -> int:
    """Tell the lifecycle about every stored message of the user not extracted yet, whether or
    not its nudge has landed (it may still be on its way from another API process, or lost):
    queued, not counted as new activity. Returns how many were told."""
    pending = await message_log.pending(limit=100_000)
    for start in range(0, len(pending), RETOLD_PER_SIGNAL):
        retold = MessagesReceived(
            message_ids=pending[start : start + RETOLD_PER_SIGNAL],
            last_sent_at=datetime.now(UTC),
            activity=False,
        )
        await signal_with_start(client, settings, scope, "messages_received", retold)
    return len(pending)
