"""A sleep operation that read the graph before the user deleted a memory commits after it: its
writes must not bring the memory, its words or its id back (review finding, issue 16)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from neo4j import AsyncDriver

from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.config import Settings
from selfimprint.domain.models import Belief, Edge, EdgeType, Hypothesis, Node, NodeType
from selfimprint.domain.scheduled_triggers import OpenLoopQuestion, ScheduledTrigger
from selfimprint.domain.sleep_writes import SleepWrites, WeightChange
from selfimprint.domain.users import UserProfile, UserScope

pytestmark = pytest.mark.integration

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def _node(user: str, nid: str, text: str, kind: NodeType = NodeType.EVENT) -> Node:
    return Node(
        id=nid,
        user_id=user,
        type=kind,
        content=text,
        weight_at=NOW,
        created_at=NOW,
        sources=(f"msg-{nid}",),
        is_inference=kind is NodeType.HYPOTHESIS,
        belief=Belief(first_seen=NOW),
    )


async def test_writes_planned_before_a_delete_leave_the_deleted_memory_out(
    graph_store: Neo4jGraphStore, graph_driver: AsyncDriver, stack_settings: Settings
) -> None:
    user = f"u-{uuid.uuid4().hex[:8]}"
    scope = UserScope("t-delete-race", user)
    await Neo4jAccounts(graph_driver, stack_settings.neo4j_database).put_profile(
        scope, UserProfile()
    )
    store = graph_store.for_user(scope.tenant_id, user)
    gone = _node(user, "therapy", "I started seeing a therapist on Monday.")
    kept = _node(user, "run", "I run every morning.", NodeType.FACT)
    hypothesis = _node(user, "h1", "The user looks after their health.", NodeType.HYPOTHESIS)
    await store.upsert([gone, kept])
    # What the pass planned from its snapshot, with both memories still there ...
    planned = SleepWrites(
        nodes=(hypothesis, gone.model_copy(update={"weight": 0.9})),
        hypotheses=(
            Hypothesis(
                node_id="h1",
                supporting=("therapy", "run"),
                created_at=NOW,
                deadline=NOW + timedelta(days=14),
            ),
        ),
        edges=(
            Edge(
                source_id="run", target_id="therapy", type=EdgeType.ASSOCIATED_WITH, created_at=NOW
            ),
        ),
        weights=(WeightChange(node_id="therapy", weight=0.8, weight_at=NOW, expires_at=None),),
        triggers=(
            ScheduledTrigger(
                id="trigger-therapy",
                event_date=NOW.date(),
                activate_from=NOW - timedelta(days=1),
                activate_until=NOW + timedelta(days=1),
                content=gone.content,
                node_id="therapy",
                node_ids=("therapy", "run"),
                sources=gone.sources,
            ),
        ),
        questions=(
            OpenLoopQuestion(
                id="olq-therapy", question="How was the therapist?", node_id="therapy", sources=()
            ),
        ),
    )
    # ... commits after the user deleted one of them.
    assert await store.delete_memory("therapy")
    assert await store.apply_sleep_writes("run-1", "op", planned)

    assert {n.id for n in await store.get_nodes(["therapy", "run", "h1"])} == {"run", "h1"}
    (record,) = await store.hypotheses()
    assert record.hypothesis.supporting == ("run",)
    database = stack_settings.neo4j_database
    records, _, _ = await graph_driver.execute_query(
        """MATCH (x {scope: $scope})
        WHERE x.id IN ['trigger-therapy', 'olq-therapy'] OR x.content CONTAINS 'therapist'
           OR x.question CONTAINS 'therapist'
        RETURN labels(x) AS labels, x.id AS id""",
        scope=f"t-delete-race/{user}",
        database_=database,
    )
    assert records == [], [dict(r) for r in records]
    edges, _, _ = await graph_driver.execute_query(
        "MATCH (a:Memory {scope: $scope})-[r]-() RETURN count(r) AS n",
        scope=f"t-delete-race/{user}",
        database_=database,
    )
    assert edges[0]["n"] == 0
