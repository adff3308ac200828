"""Soft reset on the real stack (spec §3.9): the compaction workflow keeps pinned memories and
the last 30 days in Neo4j and moves the rest into an encrypted SYNX archive in S3, read back
before anything is removed; forgetting a topic reaches into that archive, and erasure removes
it."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from temporalio.common import WorkflowIDReusePolicy
from temporalio.testing import ActivityEnvironment
from temporalio.worker import Worker
from typer.testing import CliRunner

from activities.compaction import ApplySoftResetInput, CompactionActivities
from activities.deletion import DeletionInput
from activities.forget import ForgetInput
from selfimprint.adapters.neo4j import Neo4jUserGraph
from selfimprint.cli import sleep as cli_sleep
from selfimprint.domain.models import Edge, EdgeType, NodeType
from selfimprint.service.export import export_user_memory
from tests.integration.tiers_support import Harness, fresh_queue, harness, memory
from tests.workflows.support import IngestionStub, TierMoveStub
from workflows.compaction import CompactionInput, CompactionWorkflow
from workflows.deletion import DeletionWorkflow, deletion_workflow_id
from workflows.forget import ForgetTopicWorkflow
from workflows.lifecycle_state import LifecycleInput, LifecycleState, TaskQueues
from workflows.user_lifecycle import UserLifecycleWorkflow, workflow_id

pytestmark = pytest.mark.integration
__all__ = ["harness"]

TODAY = datetime.now(UTC).replace(microsecond=0)
OLD, RECENT = TODAY - timedelta(days=60), TODAY - timedelta(days=2)
CONTENTS = {  # id: (content, created, pinned)
    "o1": ("Had an interview at Google in the spring", OLD, False),
    "o2": ("An old friend Pavel from school", OLD, False),
    "p1": ("My name is Anna", OLD, True),
    "r1": ("Started a new job at Initech", RECENT, False),
    "r2": ("My manager is Olga", RECENT, False),
}
LINKS = [("o1", "r1"), ("o2", "p1"), ("r1", "r2")]


async def _seed(store: Neo4jUserGraph) -> None:
    # People decay slowly (0.97/day) and every memory has a fresh, confident edge: the weekly
    # compaction that runs first removes nothing, so what leaves Neo4j is the reset's doing.
    nodes = [
        memory(
            i, store.user_id, text, node_type=NodeType.PERSON, weight=0.9, weight_at=at,
            created_at=at, last_reinforced_at=at, is_pinned=pinned,
        )
        for i, (text, at, pinned) in CONTENTS.items()
    ]  # fmt: skip
    edges = [
        Edge(source_id=a, target_id=b, type=EdgeType.ASSOCIATED_WITH, created_at=RECENT,
             confidence=0.95)
        for a, b in LINKS
    ]  # fmt: skip
    await store.upsert(nodes, edges)


async def test_soft_reset_archives_the_rest_and_forget_and_erasure_reach_it(
    harness: Harness,
) -> None:
    h = harness
    store = await h.new_user()
    tenant, user = h.tenant_of(store), store.user_id
    await _seed(store)
    queue = fresh_queue()
    async with h.worker(queue):
        result = await h.client.execute_workflow(
            CompactionWorkflow.run,
            CompactionInput(tenant_id=tenant, user_id=user, soft_reset_requested=True),
            id=f"soft-reset-{tenant}-{user}",
            task_queue=queue,
        )
        assert result.compaction.outcome.nodes_deleted == 0
        assert result.soft_reset is not None and result.soft_reset.due
        applied = result.soft_reset_applied
        assert applied is not None and applied.archive_key is not None
        assert (applied.archived_memories, applied.archived_edges, applied.kept_memories) == (
            2,
            2,
            3,
        )

        hot = await store.export_graph(TODAY)
        assert sorted(n.id for n in hot.nodes) == ["p1", "r1", "r2"]
        assert [(e.source_id, e.target_id) for e in hot.edges] == [("r1", "r2")]
        assert h.archive.reset_archives(tenant, user) == [applied.archive_key]
        archived = h.archive.read_key(tenant, user, applied.archive_key).snapshot
        assert sorted(n.id for n in archived.nodes) == ["o1", "o2"]
        assert sorted((e.source_id, e.target_id) for e in archived.edges) == [
            ("o1", "r1"),
            ("o2", "p1"),
        ]

        # A retry of the same reset (same label) after everything left Neo4j keeps the archive
        # whole: it merges into the object instead of overwriting it with nothing.
        label = applied.archive_key.rsplit("soft-reset-", 1)[1].removesuffix(".synx")
        again = await ActivityEnvironment().run(
            CompactionActivities(h.graph, h.archive).apply_soft_reset,
            ApplySoftResetInput(
                tenant_id=tenant,
                user_id=user,
                now=datetime.strptime(label, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC),
            ),
        )
        assert (again.archive_key, again.archived_memories) == (applied.archive_key, 2)
        archived = h.archive.read_key(tenant, user, applied.archive_key).snapshot
        assert sorted(n.id for n in archived.nodes) == ["o1", "o2"]

        exported = await export_user_memory(
            tenant, user, graph=h.graph, accounts=h.accounts, archive=h.archive
        )
        assert sorted(n.id for n in exported.graph.nodes) == ["p1", "r1", "r2"]
        assert [sorted(n.id for n in a.nodes) for a in exported.soft_reset_archives] == [
            ["o1", "o2"]
        ]

        forgot = await h.client.execute_workflow(
            ForgetTopicWorkflow.run,
            ForgetInput(tenant_id=tenant, user_id=user, topic="Google", dry_run=False),
            id=f"forget-{tenant}-{user}-{uuid.uuid4().hex[:6]}",
            task_queue=queue,
        )
        assert [m.id for m in forgot.memories] == ["o1"]
        assert forgot.places == [applied.archive_key]
        archived = h.archive.read_key(tenant, user, applied.archive_key).snapshot
        assert [n.id for n in archived.nodes] == ["o2"]
        # Versioned bucket: the version that still held the topic is gone too.
        assert len(h.objects.list_versions(applied.archive_key)) == 1

        await h.client.execute_workflow(
            DeletionWorkflow.run,
            DeletionInput(tenant_id=tenant, user_id=user),
            id=deletion_workflow_id(tenant, user),
            task_queue=queue,
            id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
        )
    assert h.archive.reset_archives(tenant, user) == []
    assert h.objects.list_versions(h.archive.layout.user_prefix(tenant, user)) == []


async def test_the_operator_command_resets_through_the_lifecycle(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`selfimprint sleep soft-reset` sends the lifecycle's update, waits for the child
    workflow and prints what was archived; `sleep status` shows it afterwards."""
    h = harness
    store = await h.new_user()
    tenant, user = h.tenant_of(store), store.user_id
    await _seed(store)
    queue = fresh_queue()
    compaction = CompactionActivities(h.graph, h.archive)
    ingestion = IngestionStub()
    worker = Worker(
        h.client,
        task_queue=queue,
        workflows=[UserLifecycleWorkflow, CompactionWorkflow, TierMoveStub],
        activities=[
            ingestion.pending_messages, ingestion.sleep_pause, compaction.compact,
            compaction.plan_soft_reset, compaction.apply_soft_reset,
        ],
        activity_executor=h.pool,
    )  # fmt: skip
    monkeypatch.setattr(cli_sleep, "Settings", lambda: h.settings)
    state = LifecycleState(
        tenant_id=tenant, user_id=user, queues=TaskQueues(cpu=queue, gpu=f"{queue}-gpu")
    )
    runner = CliRunner()
    async with worker:
        handle = await h.client.start_workflow(
            UserLifecycleWorkflow.run,
            LifecycleInput(state=state),
            id=workflow_id(tenant, user),
            task_queue=queue,
        )
        args = ["soft-reset", user, "--tenant", tenant, "--reason", "user asked"]
        result = await asyncio.to_thread(runner.invoke, cli_sleep.sleep_app, args)
        assert result.exit_code == 0, result.output
        assert "archived 2 memories, kept 3" in result.output
        status = await asyncio.to_thread(
            runner.invoke, cli_sleep.sleep_app, ["status", user, "--tenant", tenant]
        )
        assert "soft reset:  " in status.output and "archived 2 memories" in status.output
        await handle.terminate("test over")
    assert sorted(n.id for n in (await store.export_graph(TODAY)).nodes) == ["p1", "r1", "r2"]
    unknown = await asyncio.to_thread(
        runner.invoke, cli_sleep.sleep_app, args[:1] + ["nobody", *args[2:]]
    )
    assert unknown.exit_code == 1 and "no lifecycle" in unknown.output
