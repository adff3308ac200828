"""Per-user storage that used to grow without bound (review findings, issue 16), on the real Neo4j:
the ids of memories the user deleted (`domain.deleted_memories`) and the sleep's prepared
open-loop questions (`SleepWrites.questions_stale_before`)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from neo4j import AsyncDriver

from selfimprint.adapters.neo4j import Neo4jGraphStore, Neo4jUserGraph
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.config import Settings
from selfimprint.domain.context import DEFAULT_CONTEXT
from selfimprint.domain.deleted_memories import DeletedMemoryConfig
from selfimprint.domain.models import Belief, Edge, EdgeType, Node, NodeType
from selfimprint.domain.scheduled_triggers import OpenLoopQuestion, ScheduledTrigger
from selfimprint.domain.sleep_writes import SleepWrites, WeightChange
from selfimprint.domain.users import UserProfile, UserScope

pytestmark = pytest.mark.integration

T0 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def _node(user: str, nid: str, kind: NodeType = NodeType.EVENT, at: datetime = T0) -> Node:
    return Node(
        id=nid,
        user_id=user,
        type=kind,
        content=f"memory {nid}",
        weight_at=at,
        created_at=at,
        sources=(f"msg-{nid}",),
        belief=Belief(first_seen=at),
    )


async def _user(
    graph_store: Neo4jGraphStore, graph_driver: AsyncDriver, settings: Settings, tenant: str
) -> tuple[UserScope, Neo4jUserGraph]:
    scope = UserScope(tenant, f"u-{uuid.uuid4().hex[:8]}")
    await Neo4jAccounts(graph_driver, settings.neo4j_database).put_profile(scope, UserProfile())
    return scope, graph_store.for_user(scope.tenant_id, scope.user_id)


async def _remembered(graph_driver: AsyncDriver, settings: Settings, scope: UserScope) -> list[str]:
    records, _, _ = await graph_driver.execute_query(
        """MATCH (p:UserProfile {scope: $scope})
        RETURN p.deleted_memory_ids AS ids, p.deleted_memory_at_us AS at_us,
               p.deleted_memory_lock AS lock""",
        scope=scope.key,
        database_=settings.neo4j_database,
    )
    (record,) = records
    assert record["lock"] is None
    ids: list[str] = record["ids"] or []
    assert len(ids) == len(record["at_us"] or [])
    return ids


async def test_deleted_ids_stay_for_the_retention_and_never_pass_the_cap(
    graph_driver: AsyncDriver, stack_settings: Settings
) -> None:
    config = DeletedMemoryConfig(retention=timedelta(days=30), max_ids=3)
    graphs = Neo4jGraphStore(graph_driver, stack_settings.neo4j_database, deletions=config)
    scope, store = await _user(graphs, graph_driver, stack_settings, "t-bounded-deletes")
    user = scope.user_id
    nodes = {f"m{i}": _node(user, f"m{i}") for i in range(6)}
    await store.upsert(list(nodes.values()))

    assert await store.delete_memory("m0", now=T0)
    assert await store.delete_memory("m1", now=T0 + 29 * DAY)
    # Inside the window, what was planned before the delete commits without it: a retried
    # extraction (its upsert and the contradiction it found) and a sleep operation.
    await store.upsert(
        [nodes["m0"]],
        [Edge(source_id="m0", target_id="m5", type=EdgeType.ASSOCIATED_WITH, created_at=T0)],
    )
    writes = SleepWrites(
        nodes=(nodes["m0"],),
        weights=(WeightChange(node_id="m0", weight=0.9, weight_at=T0, expires_at=None),),
    )
    assert await store.apply_sleep_writes("run-1", "op", writes)
    assert await store.get_nodes(["m0", "m1"]) == []
    assert await store.was_deleted("m0") and not await store.delete_memory("m0", now=T0 + DAY)
    assert await _remembered(graph_driver, stack_settings, scope) == ["m0", "m1"]

    # Past the retention, the next delete drops it; the younger one stays.
    assert await store.delete_memory("m2", now=T0 + 31 * DAY)
    assert await _remembered(graph_driver, stack_settings, scope) == ["m1", "m2"]
    assert not await store.was_deleted("m0")

    # The cap: however fast the user deletes, the newest `max_ids` are kept.
    for hours, memory_id in enumerate(("m3", "m4", "m5"), start=1):
        assert await store.delete_memory(memory_id, now=T0 + 31 * DAY + hours * timedelta(hours=1))
        assert len(await _remembered(graph_driver, stack_settings, scope)) <= config.max_ids
    assert await _remembered(graph_driver, stack_settings, scope) == ["m3", "m4", "m5"]
    await store.upsert([nodes["m5"]])  # the newest is still kept out
    assert await store.get_nodes(["m5"]) == []


async def test_ids_deleted_before_times_were_stored_are_kept_a_full_retention(
    graph_store: Neo4jGraphStore, graph_driver: AsyncDriver, stack_settings: Settings
) -> None:
    scope, store = await _user(graph_store, graph_driver, stack_settings, "t-bounded-legacy")
    await graph_driver.execute_query(
        "MATCH (p:UserProfile {scope: $scope}) SET p.deleted_memory_ids = ['legacy']",
        scope=scope.key,
        database_=stack_settings.neo4j_database,
    )
    await store.upsert([_node(scope.user_id, "new"), _node(scope.user_id, "later")])
    assert await store.delete_memory("new", now=T0)
    assert await _remembered(graph_driver, stack_settings, scope) == ["legacy", "new"]
    await store.upsert([_node(scope.user_id, "legacy")])
    assert await store.get_nodes(["legacy"]) == []
    assert await store.delete_memory("later", now=T0 + 31 * DAY)
    assert await _remembered(graph_driver, stack_settings, scope) == ["later"]


def _question(node_id: str) -> OpenLoopQuestion:
    return OpenLoopQuestion(
        id=f"olq-{node_id}", question=f"How is {node_id}?", node_id=node_id, sources=()
    )


def _trigger(node_id: str, start: datetime, end: datetime) -> ScheduledTrigger:
    return ScheduledTrigger(
        id=f"trigger-{node_id}",
        event_date=end.date(),
        activate_from=start,
        activate_until=end,
        content=f"memory {node_id}",
        node_id=node_id,
        node_ids=(node_id,),
        sources=(f"msg-{node_id}",),
    )


async def _question_ids(store: Neo4jUserGraph) -> set[str]:
    return {q["node_id"] for q in await store.sleep_items("OpenLoopQuestion")}


async def _served(store: Neo4jUserGraph, now: datetime) -> set[str]:
    prompts = await store.context_prompts(
        now, now - DEFAULT_CONTEXT.prepared_question_max_age, 50, now
    )
    return {q.node_id for q in prompts.questions}


async def test_a_sleep_preparing_questions_removes_those_the_context_no_longer_serves(
    graph_store: Neo4jGraphStore, graph_driver: AsyncDriver, stack_settings: Settings
) -> None:
    scope, store = await _user(graph_store, graph_driver, stack_settings, "t-bounded-questions")
    now = datetime.now(UTC)  # questions are stamped with the wall clock when written
    user = scope.user_id
    loops = [_node(user, nid, NodeType.OPEN_LOOP, now) for nid in ("loop-a", "loop-b", "loop-c")]
    others = [
        _node(user, "event", NodeType.EVENT, now),
        _node(user, "past", NodeType.EVENT, now),
        _node(user, "fact", NodeType.FACT, now),
        _node(user, "gone", NodeType.EVENT, now),
    ]
    await store.upsert(loops + others)
    # A pass's triggers: the event's window is open, the past one's closed an hour ago.
    triggers = (
        _trigger("event", now - timedelta(hours=1), now + DAY),
        _trigger("past", now - 2 * DAY, now - timedelta(hours=1)),
    )
    assert await store.apply_sleep_writes(
        "run-1", "scheduled_triggers", SleepWrites(triggers=triggers)
    )
    every = tuple(_question(n.id) for n in loops + others)
    stale_before = now - DEFAULT_CONTEXT.prepared_question_max_age
    first = SleepWrites(questions=every, questions_stale_before=stale_before)
    assert await store.apply_sleep_writes("run-1", "open_loop_preparation", first)
    assert await _question_ids(store) == {q.node_id for q in every}  # a pass keeps its own

    # Later: one memory expired (decay deletes the node, not its question), and no pass has
    # prepared loop-b's question for longer than the context serves one.
    database = stack_settings.neo4j_database
    await graph_driver.execute_query(
        "MATCH (n:Memory {scope: $scope, id: 'gone'}) DETACH DELETE n",
        scope=scope.key,
        database_=database,
    )
    await graph_driver.execute_query(
        """MATCH (q:OpenLoopQuestion {scope: $scope, id: 'olq-loop-b'})
        SET q.prepared_at = $at""",
        scope=scope.key,
        at=now - DEFAULT_CONTEXT.prepared_question_max_age - timedelta(hours=1),
        database_=database,
    )
    served = await _served(store, now + timedelta(minutes=1))
    assert served == {"loop-a", "loop-c", "event"}

    second = SleepWrites(questions=(_question("loop-a"),), questions_stale_before=stale_before)
    assert await store.apply_sleep_writes("run-2", "open_loop_preparation", second)
    # Gone: stale (loop-b), memory gone, neither an open loop nor before a window's end (past,
    # fact). Kept: what the context still serves, prepared by this pass or an earlier one.
    assert await _question_ids(store) == {"loop-a", "loop-c", "event"}
    assert await _served(store, now + timedelta(minutes=1)) == served

    # A pass that prepares none still prunes: a week on, nothing prepared now is served.
    week_on = SleepWrites(questions_stale_before=now + timedelta(minutes=5))
    assert await store.apply_sleep_writes("run-3", "open_loop_preparation", week_on)
    assert await _question_ids(store) == set()
