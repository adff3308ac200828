"""DeletionWorkflow: erase everything of one user (spec §4.3), id `delete-{tenant}-{user}`.

Start it as a top-level workflow, never as a child of the user's lifecycle workflow: it terminates
that workflow first (so nothing writes while the stores are emptied), which would terminate its
children too. Order: stop workflows -> destroy the data key (from here on every SYNX copy anywhere
is unreadable) -> S3 objects (all versions) -> graph -> raw messages -> the user's pseudonym in
CollectiveImprint's patterns still counting -> profile. Each step is idempotent, so the workflow
finishes across crashes and a rerun reports zeros.

Terminating a workflow does not stop an activity already running for it: a tier move or soft
reset in the middle of an upload can still write after the erasure, and would create a fresh
data key to do so. So the erasure ends by starting `ErasureSweepWorkflow` (abandoned: it outlives
this workflow), which waits longer than any activity may run and then destroys the key, the
objects and the graph again and withdraws the pseudonym again, logging whatever it still found.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.deletion import (
        DeleteUserPartInput,
        DeletionActivities,
        DeletionInput,
        DeletionReport,
        StopWorkflowsInput,
        SweepInput,
        SweepReport,
    )
    from activities.store_flush import FlushInput, StoreFlushActivities
    from workflows.options import STORAGE_LONG, STORAGE_SHORT
    from workflows.tiers import tier_workflow_id
    from workflows.user_lifecycle import workflow_id as lifecycle_workflow_id

__all__ = [
    "DeletionInput",
    "DeletionReport",
    "DeletionWorkflow",
    "ErasureSweepWorkflow",
    "deletion_workflow_id",
]


def deletion_workflow_id(tenant_id: str, user_id: str) -> str:
    return f"delete-{tenant_id}-{user_id}"


async def _shred(user: DeleteUserPartInput) -> tuple[bool, int, int]:
    """Destroy the data key, then every object version, then the graph: shared by the erasure
    and its delayed second pass. Returns (key destroyed, objects deleted, memories deleted)."""
    key_destroyed = await workflow.execute_activity_method(
        DeletionActivities.destroy_key,
        user,
        **STORAGE_SHORT,
    )
    objects = await workflow.execute_activity_method(
        DeletionActivities.delete_objects,
        user,
        **STORAGE_LONG,
    )
    memories = await workflow.execute_activity_method(
        DeletionActivities.delete_graph,
        user,
        **STORAGE_LONG,
    )
    return key_destroyed, objects, memories


async def _flush(user: DeleteUserPartInput) -> None:
    await workflow.execute_activity_method(
        StoreFlushActivities.flush_deleted,
        FlushInput(tenant_id=user.tenant_id, user_id=user.user_id),
        **STORAGE_LONG,
    )


@workflow.defn
class DeletionWorkflow:
    @workflow.run
    async def run(self, data: DeletionInput) -> DeletionReport:
        user = DeleteUserPartInput(tenant_id=data.tenant_id, user_id=data.user_id)
        stopped = await workflow.execute_activity_method(
            DeletionActivities.stop_workflows,
            StopWorkflowsInput(
                workflow_ids=[
                    lifecycle_workflow_id(data.tenant_id, data.user_id),
                    tier_workflow_id(data.tenant_id, data.user_id),
                ],
                reason=f"user data erased by {workflow.info().workflow_id}",
            ),
            **STORAGE_SHORT,
        )
        if workflow.patched("monthly-summary-schedule"):
            # No monthly summary starts for a user being erased (its workflow would write).
            await workflow.execute_activity_method(
                DeletionActivities.delete_summary_schedule, user, **STORAGE_SHORT
            )
        key_destroyed, objects, memories = await _shred(user)
        messages = await workflow.execute_activity_method(
            DeletionActivities.delete_messages,
            user,
            **STORAGE_LONG,
        )
        withdrawn = 0
        if workflow.patched("collective-withdraw"):
            # CollectiveImprint patterns still counting hold the user's keyed pseudonym.
            withdrawn = await workflow.execute_activity_method(
                DeletionActivities.withdraw_collective, user, **STORAGE_SHORT
            )
        profile = await workflow.execute_activity_method(
            DeletionActivities.delete_profile,
            user,
            **STORAGE_SHORT,
        )
        if workflow.patched("store-flush"):
            # The words leave Neo4j's files too: freed records, index segments, log (issue 37).
            await _flush(user)
        sweep_id = None
        if data.sweep_after_s > 0 and workflow.patched("erasure-sweep"):
            # The run id: a second erasure of the same user must not collide with this sweep.
            run = workflow.info().run_id
            sweep_id = f"delete-sweep-{data.tenant_id}-{data.user_id}-{run}"
            await workflow.start_child_workflow(
                ErasureSweepWorkflow.run,
                SweepInput(
                    tenant_id=data.tenant_id, user_id=data.user_id, after_s=data.sweep_after_s
                ),
                id=sweep_id,
                parent_close_policy=ParentClosePolicy.ABANDON,
                static_summary="second erasure pass",
            )
        report = DeletionReport(
            tenant_id=data.tenant_id,
            user_id=data.user_id,
            workflows_terminated=stopped,
            memories_deleted=memories,
            objects_deleted=objects,
            messages_deleted=messages,
            profile_deleted=profile,
            key_destroyed=key_destroyed,
            finished_at=workflow.now(),
            sweep_workflow_id=sweep_id,
            collective_patterns_withdrawn=withdrawn,
        )
        workflow.logger.info("user erased: %s", report.model_dump(exclude={"finished_at"}))
        return report


@workflow.defn
class ErasureSweepWorkflow:
    @workflow.run
    async def run(self, data: SweepInput) -> SweepReport:
        await workflow.sleep(timedelta(seconds=data.after_s), summary="let late writers finish")
        user = DeleteUserPartInput(tenant_id=data.tenant_id, user_id=data.user_id)
        key_destroyed, objects, memories = await _shred(user)
        withdrawn = 0
        if workflow.patched("collective-withdraw"):
            # Feedback the API accepted just before the user was marked, counted after the
            # erasure's own withdrawal.
            withdrawn = await workflow.execute_activity_method(
                DeletionActivities.withdraw_collective, user, **STORAGE_SHORT
            )
        report = SweepReport(
            objects_deleted=objects,
            memories_deleted=memories,
            key_destroyed=key_destroyed,
            collective_patterns_withdrawn=withdrawn,
        )
        if workflow.patched("store-flush"):
            await _flush(user)  # what the late writes left, and what the first flush could not
        if objects or memories or key_destroyed or withdrawn:
            workflow.logger.warning("erasure sweep found late writes: %s", report.model_dump())
        return report
