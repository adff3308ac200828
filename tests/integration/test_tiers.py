"""Tier moves on the real stack (Temporal dev server, Neo4j, SeaweedFS): the round trip
hot -> warm -> cold -> hot gives back the same graph, and a worker killed between steps loses
nothing."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from temporalio import activity
from temporalio.client import WorkflowHandle

from activities.tiers import (
    ArchiveHotInput,
    ArchiveInfo,
    DropHotInput,
    DropHotOutcome,
    TierActivities,
    TierMoveInput,
    TierMoveOutcome,
)
from selfimprint.adapters.neo4j import Neo4jUserGraph
from selfimprint.domain.users import Tier, UserScope
from tests.integration.tiers_support import NOW, Harness, fresh_queue, harness, memory, seed_graph
from workflows.tiers import TierMoveWorkflow, tier_workflow_id

pytestmark = pytest.mark.integration
__all__ = ["harness"]  # the fixture, imported for pytest


async def move(h: Harness, store: Neo4jUserGraph, target: Tier, queue: str) -> TierMoveOutcome:
    return await h.client.execute_workflow(
        TierMoveWorkflow.run,
        TierMoveInput(tenant_id=h.tenant_of(store), user_id=store.user_id, target=target),
        id=f"{tier_workflow_id(h.tenant_of(store), store.user_id)}-{uuid.uuid4().hex[:6]}",
        task_queue=queue,
    )


async def tier_of(h: Harness, store: Neo4jUserGraph) -> Tier | None:
    return await h.accounts.get_tier(UserScope(h.tenant_of(store), store.user_id))


async def test_hot_warm_cold_hot_returns_the_same_graph(harness: Harness) -> None:
    h = harness
    store = await h.new_user()
    await seed_graph(store)
    original = await store.export_graph(NOW)
    queue = fresh_queue()
    async with h.worker(queue):
        warm = await move(h, store, Tier.WARM, queue)
        assert (warm.tier, warm.moved, warm.nodes, warm.edges) == (Tier.WARM, True, 25, 24)
        assert (await store.counts()).nodes == 0
        assert h.where(store) == {Tier.WARM: True, Tier.COLD: False}
        assert await tier_of(h, store) is Tier.WARM
        # What is in S3 is the graph, field for field (weights, their clocks, belief metadata).
        stored = h.archive.read(h.tenant_of(store), store.user_id, Tier.WARM).snapshot
        assert stored.model_copy(update={"exported_at": NOW}) == original

        again = await move(h, store, Tier.WARM, queue)
        assert (again.tier, again.moved) == (Tier.WARM, False)

        cold = await move(h, store, Tier.COLD, queue)
        assert (cold.tier, cold.moved, cold.nodes) == (Tier.COLD, True, 25)
        assert h.where(store) == {Tier.WARM: False, Tier.COLD: True}
        head = h.archive.head(h.tenant_of(store), store.user_id, Tier.COLD)
        assert head is not None and head.storage_class == h.settings.s3_storage_class_cold
        assert await tier_of(h, store) is Tier.COLD

        hot = await move(h, store, Tier.HOT, queue)
        assert (hot.tier, hot.moved, hot.nodes, hot.edges) == (Tier.HOT, True, 25, 24)
    assert await store.export_graph(NOW) == original
    assert h.where(store) == {Tier.WARM: False, Tier.COLD: False}
    assert await tier_of(h, store) is Tier.HOT


async def test_memories_written_while_warm_are_kept_on_rehydrate(harness: Harness) -> None:
    h = harness
    store = await h.new_user()
    await seed_graph(store, size=8)
    queue = fresh_queue()
    async with h.worker(queue):
        await move(h, store, Tier.WARM, queue)
        await store.upsert([memory("late", store.user_id, "said while the graph was warm")])
        hot = await move(h, store, Tier.HOT, queue)
    assert hot.nodes == 10
    assert [n.id for n in await store.get_nodes(["n000", "late", "h001"])] != []
    assert len(await store.get_nodes(["n000", "late", "h001"])) == 3
    assert h.where(store) == {Tier.WARM: False, Tier.COLD: False}


@pytest.mark.parametrize("crash_after", ["tiers.archive_hot", "tiers.drop_hot"])
async def test_worker_killed_between_steps_loses_nothing(
    harness: Harness, crash_after: str
) -> None:
    """The activity does its work, then its worker dies before reporting it: a new worker must
    finish the move from the workflow's history, repeating the step safely."""
    h = harness
    store = await h.new_user()
    await seed_graph(store)
    tenant, original = h.tenant_of(store), await store.export_graph(NOW)
    real = TierActivities(h.graph, h.accounts, h.archive)
    step_done = asyncio.Event()

    @activity.defn(name="tiers.archive_hot")
    async def archive_then_die(data: ArchiveHotInput) -> ArchiveInfo:
        result = await real.archive_hot(data)
        if crash_after == "tiers.archive_hot":
            step_done.set()
            await asyncio.Event().wait()  # the worker is shut down here
        return result

    @activity.defn(name="tiers.drop_hot")
    async def drop_then_die(data: DropHotInput) -> DropHotOutcome:
        result = await real.drop_hot(data)
        step_done.set()
        await asyncio.Event().wait()
        return result

    overrides: dict[str, Any] = {"tiers.archive_hot": archive_then_die}
    if crash_after == "tiers.drop_hot":
        overrides["tiers.drop_hot"] = drop_then_die
    queue = fresh_queue()
    first = h.worker(queue, overrides)
    running = asyncio.create_task(first.run())
    handle: WorkflowHandle[Any, TierMoveOutcome] = await h.client.start_workflow(
        TierMoveWorkflow.run,
        TierMoveInput(tenant_id=tenant, user_id=store.user_id, target=Tier.WARM),
        id=f"{tier_workflow_id(tenant, store.user_id)}-crash",
        task_queue=queue,
    )
    await asyncio.wait_for(step_done.wait(), timeout=60)
    await first.shutdown()
    await running

    # Mid-move: the graph is whole somewhere, and the tier is still hot.
    assert await tier_of(h, store) is Tier.HOT
    archived = h.archive.read(tenant, store.user_id, Tier.WARM).snapshot
    assert archived.model_copy(update={"exported_at": NOW}) == original
    in_neo4j = (await store.counts()).nodes
    assert in_neo4j == (25 if crash_after == "tiers.archive_hot" else 0)

    async with h.worker(queue):
        outcome = await asyncio.wait_for(handle.result(), timeout=120)
    assert (outcome.tier, outcome.nodes) == (Tier.WARM, 25)
    # Exactly one place now: S3, not Neo4j.
    assert (await store.counts()).nodes == 0
    assert h.where(store) == {Tier.WARM: True, Tier.COLD: False}
    assert await tier_of(h, store) is Tier.WARM
    async with h.worker(queue):
        await move(h, store, Tier.HOT, queue)
    assert await store.export_graph(NOW) == original
