"""How the API reaches a user's lifecycle workflow: signal-with-start, so the first message or
profile change creates the workflow and later ones reach the running one."""

from __future__ import annotations

from datetime import datetime

from temporalio.common import WorkflowIDConflictPolicy

from api.resources import Resources
from selfimprint.adapters.neo4j.records import UserScope
from workflows.user_lifecycle import (
    LifecycleInput,
    LifecycleState,
    MessagesReceived,
    ProfileChanged,
    TaskQueues,
    UserLifecycleWorkflow,
    workflow_id,
)


def _initial(resources: Resources, scope: UserScope) -> LifecycleInput:
    s = resources.settings
    return LifecycleInput(
        state=LifecycleState(
            tenant_id=scope.tenant_id,
            user_id=scope.user_id,
            queues=TaskQueues(cpu=s.task_queue_cpu, gpu=s.task_queue_gpu),
        )
    )


async def signal_messages(
    resources: Resources, scope: UserScope, message_ids: list[str], last_sent_at: datetime
) -> None:
    client = await resources.temporal()
    await client.start_workflow(
        UserLifecycleWorkflow.run,
        _initial(resources, scope),
        id=workflow_id(scope.tenant_id, scope.user_id),
        task_queue=resources.settings.task_queue_cpu,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        start_signal="messages_received",
        start_signal_args=[MessagesReceived(message_ids=message_ids, last_sent_at=last_sent_at)],
    )


async def signal_profile(resources: Resources, scope: UserScope, change: ProfileChanged) -> None:
    client = await resources.temporal()
    await client.start_workflow(
        UserLifecycleWorkflow.run,
        _initial(resources, scope),
        id=workflow_id(scope.tenant_id, scope.user_id),
        task_queue=resources.settings.task_queue_cpu,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        start_signal="profile_changed",
        start_signal_args=[change],
    )
