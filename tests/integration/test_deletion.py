"""Erasure on the real stack: after DeletionWorkflow no node, object, object version, message,
profile or data key of the user remains, the lifecycle workflow is gone, and a SYNX copy taken
before the deletion can no longer be decrypted; and what an activity still running at erasure
time writes afterwards is removed by the delayed second pass."""

from __future__ import annotations

import io
import uuid

import pytest
from temporalio.client import WorkflowExecutionStatus
from temporalio.common import WorkflowIDReusePolicy

from activities.deletion import DeletionInput, DeletionReport, SweepReport
from activities.tiers import TierMoveInput
from selfimprint.adapters.crypto import DataKeyNotFoundError
from selfimprint.adapters.s3 import S3ObjectStore
from selfimprint.adapters.synx import SynxWrongKeyError, read_synx
from selfimprint.domain.collective import pattern_pseudonym
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.users import Tier, UserScope
from selfimprint.ports import GraphSnapshot
from tests.integration.tiers_support import NOW, Harness, fresh_queue, harness, memory, seed_graph
from workflows.deletion import DeletionWorkflow, deletion_workflow_id
from workflows.lifecycle_state import LifecycleInput, LifecycleState, TaskQueues
from workflows.tiers import TierMoveWorkflow, tier_workflow_id
from workflows.user_lifecycle import UserLifecycleWorkflow, workflow_id

pytestmark = pytest.mark.integration
__all__ = ["harness"]


async def erase(h: Harness, tenant: str, user: str, queue: str) -> DeletionReport:
    return await h.client.execute_workflow(
        DeletionWorkflow.run,
        DeletionInput(tenant_id=tenant, user_id=user),
        id=deletion_workflow_id(tenant, user),
        task_queue=queue,
        id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
    )


async def test_deletion_leaves_nothing_and_shreds_old_copies(harness: Harness) -> None:
    h = harness
    store = await h.new_user()
    tenant, user = h.tenant_of(store), store.user_id
    scope = UserScope(tenant, user)
    await seed_graph(store, size=12)
    queue = fresh_queue()
    # The lifecycle workflow, parked on a queue no worker polls: it stays running.
    lifecycle = await h.client.start_workflow(
        UserLifecycleWorkflow.run,
        LifecycleInput(
            state=LifecycleState(
                tenant_id=tenant, user_id=user, queues=TaskQueues(cpu="nobody", gpu="nobody")
            )
        ),
        id=workflow_id(tenant, user),
        task_queue=f"nobody-{uuid.uuid4().hex[:6]}",
    )
    await h.message_logs.for_user(scope).append(
        [Message(id=f"m{i}", role=Role.USER, text=f"message {i}", sent_at=NOW) for i in range(5)]
    )
    async with h.worker(queue):
        await h.client.execute_workflow(
            TierMoveWorkflow.run,
            TierMoveInput(tenant_id=tenant, user_id=user, target=Tier.WARM),
            id=tier_workflow_id(tenant, user),
            task_queue=queue,
        )
        # A copy of the encrypted graph taken before erasure (a backup, a download).
        copy = b"".join(h.objects.get(h.archive.key(tenant, user, Tier.WARM)))
        # And memories written to Neo4j since: the user's data is in both stores now.
        await store.upsert([memory("late", user, "written after the move")])

        report = await erase(h, tenant, user, queue)
        assert report.workflows_terminated == [workflow_id(tenant, user)]
        assert (report.memories_deleted, report.objects_deleted, report.messages_deleted) == (
            1,
            1,
            5,
        )
        assert report.profile_deleted and report.key_destroyed

        assert (await store.counts()).nodes == 0
        assert (await store.counts()).tensions == 0
        assert h.objects.list_versions(h.archive.layout.user_prefix(tenant, user)) == []
        assert await h.message_logs.for_user(scope).count() == 0
        assert await h.accounts.get_profile(scope) is None
        assert (await lifecycle.describe()).status is WorkflowExecutionStatus.TERMINATED
        with pytest.raises(DataKeyNotFoundError):
            h.keys.get(tenant, user)
        # Crypto-shredding: a new key for the same ids does not open the old copy.
        with pytest.raises(SynxWrongKeyError):
            read_synx(io.BytesIO(copy), h.keys.get_or_create(tenant, user))
        h.keys.destroy(tenant, user)

        again = await erase(h, tenant, user, queue)  # idempotent: nothing left to remove
        assert (again.memories_deleted, again.objects_deleted, again.messages_deleted) == (0, 0, 0)
        assert again.workflows_terminated == [] and not again.key_destroyed


async def test_a_write_landing_after_the_erasure_is_swept(harness: Harness) -> None:
    h = harness
    store = await h.new_user()
    tenant, user = h.tenant_of(store), store.user_id
    await seed_graph(store, size=6)
    prefix = h.archive.layout.user_prefix(tenant, user)
    queue = fresh_queue()
    async with h.worker(queue):
        report = await h.client.execute_workflow(
            DeletionWorkflow.run,
            DeletionInput(tenant_id=tenant, user_id=user, sweep_after_s=3),
            id=deletion_workflow_id(tenant, user),
            task_queue=queue,
            id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
        )
        assert report.sweep_workflow_id is not None
        # A tier move that was mid-upload when the erasure ran finishes now: it gets a fresh
        # data key (the old one is destroyed) and leaves a readable object behind.
        late = GraphSnapshot(
            user_id=user,
            exported_at=NOW,
            nodes=(memory("late", user, "uploaded after the erasure"),),
            edges=(),
            hypotheses=(),
            tensions=(),
        )
        h.archive.write(tenant, user, Tier.WARM, late)
        assert h.objects.list_versions(prefix) != []
        # And a context feedback the API accepted just before the user was marked is counted
        # now: the user's pseudonym joins a CollectiveImprint pattern after the withdrawal.
        pattern = "v1:en:question:recall:empty"
        pseudonym = pattern_pseudonym(tenant, user, pattern, h.settings.collective_secret())
        await h.collective.contribute(tenant, pattern, pseudonym)
        swept = await h.client.get_workflow_handle(
            report.sweep_workflow_id, result_type=SweepReport
        ).result()
    assert (swept.objects_deleted, swept.key_destroyed) == (1, True)
    assert swept.collective_patterns_withdrawn == 1
    assert (await h.collective.contribute(tenant, pattern, "someone")).contributors == ("someone",)
    assert h.objects.list_versions(prefix) == []
    with pytest.raises(DataKeyNotFoundError):
        h.keys.get(tenant, user)


def test_prefix_delete_removes_every_version(harness: Harness) -> None:
    """In a versioned bucket an overwritten or deleted object keeps old versions: erasure must
    remove them all, and only under the user's own prefix."""
    h = harness
    client = h.objects._client
    bucket = f"ver-{uuid.uuid4().hex[:8]}"
    client.create_bucket(Bucket=bucket)
    client.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    objects = S3ObjectStore(client, bucket)
    for body in (b"one", b"two"):
        objects.put("users/t/u1/warm/graph.synx", io.BytesIO(body), storage_class="STANDARD",
                    metadata={})  # fmt: skip
    objects.put("users/t/u12/warm/graph.synx", io.BytesIO(b"x"), storage_class="STANDARD",
                metadata={})  # fmt: skip
    client.delete_object(Bucket=bucket, Key="users/t/u1/warm/graph.synx")  # a delete marker
    assert len(objects.list_versions("users/t/u1/")) == 3
    with pytest.raises(ValueError):
        objects.delete_prefix("users/t/u1")  # would also match u12
    assert objects.delete_prefix("users/t/u1/") == 3
    assert objects.list_versions("users/t/u1/") == []
    assert len(objects.list_versions("users/t/u12/")) == 1
