"""The ingestion activities against real Neo4j and the real embedder (no Temporal, no LLM):
near-duplicates reinforce, distinct memories stay distinct, and a retry changes nothing."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from temporalio.exceptions import ApplicationError

from activities.ingestion import (
    USER_GONE,
    ApplyInput,
    ExtractInput,
    ExtractionActivities,
    ExtractionMode,
    IngestionActivities,
    LoadBatchInput,
    PendingInput,
)
from selfimprint.adapters.embedders import build_embedder
from selfimprint.adapters.llm import build_llm
from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.neo4j.message_log import (
    AppendOutcome,
    MessageConflictError,
    MessageLogs,
    UnknownUserError,
)
from selfimprint.config import Settings
from selfimprint.domain.belief import Evidence, EvidenceStream
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.models import Belief, Node, NodeType
from selfimprint.domain.permanence import with_evidence
from selfimprint.domain.users import UserProfile, UserScope
from selfimprint.ports import Downweight

pytestmark = pytest.mark.integration

NOW = datetime(2026, 3, 20, 10, tzinfo=UTC)


async def ingest(
    settings: Settings,
    store: Neo4jGraphStore,
    logs: MessageLogs,
    scope: UserScope,
    texts: dict[str, str],
) -> None:
    messages = [Message(id=i, role=Role.USER, text=t, sent_at=NOW) for i, t in texts.items()]
    await logs.for_user(scope).append(messages)
    cpu = IngestionActivities(store, logs)
    gpu = ExtractionActivities(
        build_llm(settings), build_embedder(settings), mode=ExtractionMode.VERBATIM
    )
    batch = await cpu.load_batch(
        LoadBatchInput(tenant_id=scope.tenant_id, user_id=scope.user_id, message_ids=list(texts))
    )
    extracted = await gpu.extract(ExtractInput(batch=batch))
    data = ApplyInput(batch=batch, extracted=extracted)
    await cpu.apply_extraction(data)
    await cpu.apply_extraction(data)  # a retried activity


async def test_near_duplicates_reinforce_and_distinct_memories_stay(
    stack_settings: Settings, graph_store: Neo4jGraphStore, graph_driver: object
) -> None:
    logs = MessageLogs(graph_driver, stack_settings.neo4j_database)  # type: ignore[arg-type]
    scope = UserScope("tingest", f"u{uuid.uuid4().hex[:8]}")
    # The profile holds the user's decay clock: messages sent months ago (NOW) paused it a week
    # later, so their memories are still alive for the second batch's duplicate check.
    accounts = Neo4jAccounts(graph_driver, stack_settings.neo4j_database)  # type: ignore[arg-type]
    await accounts.put_profile(scope, UserProfile())
    await ingest(
        stack_settings,
        graph_store,
        logs,
        scope,
        {
            "m1": "My sister Ana lives in Lisbon.",
            "m2": "I adopted a dog named Pixel last week.",
            "m3": "I work as a backend developer at Initech.",
        },
    )
    await ingest(
        stack_settings, graph_store, logs, scope, {"m4": "My sister Ana lives in Lisbon now."}
    )
    store = graph_store.for_user(scope.tenant_id, scope.user_id)
    rows = await store.list_memories(limit=50)
    by_content = {node.content: node for node, _ in rows}
    assert len(rows) == 3, sorted(by_content)  # three distinct memories, no duplicate of Ana
    ana = by_content["My sister Ana lives in Lisbon."]
    assert set(ana.sources) == {"m1", "m4"}  # the repeat joined the memory's evidence
    assert ana.last_reinforced_at is not None
    # The restatement confirmed the belief, once although the activity ran twice.
    assert ana.belief.observed_for == ("m4",)
    assert ana.belief.confirmed_at == NOW
    assert (
        ana.belief.confidence
        > by_content["I adopted a dog named Pixel last week."].belief.confidence
    )


async def test_a_challenged_belief_is_stored_whole_and_a_retry_writes_the_same(
    graph_store: Neo4jGraphStore,
) -> None:
    scope = UserScope("tingest", f"u{uuid.uuid4().hex[:8]}")
    store = graph_store.for_user(scope.tenant_id, scope.user_id)
    seen = NOW - timedelta(days=30)
    node = Node(
        id="m-old",
        user_id=scope.user_id,
        type=NodeType.FACT,
        content="Works at Initech.",
        weight=0.8,
        weight_at=seen,
        created_at=seen,
        belief=Belief(first_seen=seen),
    )
    await store.upsert([node])
    challenged = with_evidence(
        node, Evidence(id="m9", stream=EvidenceStream.OBSERVED, supports=False, at=NOW)
    ).belief
    change = Downweight(
        node_id="m-old",
        weight=0.4,
        weight_at=NOW,
        expires_at=None,
        expected_weight_at=seen,
        belief=challenged,
    )
    assert await store.downweight(change)
    assert await store.downweight(change)  # the retry lands on the same values
    (stored,) = await store.get_nodes(["m-old"])
    assert stored.belief == challenged
    assert stored.belief.challenged_at == NOW and stored.belief.observed_against == ("m9",)
    assert stored.weight == 0.4
    # A change without a belief leaves the stored one as it is.
    plain = change.model_copy(update={"belief": None, "weight": 0.3})
    assert await store.downweight(plain)
    (again,) = await store.get_nodes(["m-old"])
    assert again.belief == challenged and again.weight == 0.3


async def test_a_user_being_erased_gets_no_more_messages(
    stack_settings: Settings, graph_driver: object
) -> None:
    """From the erasure request on, the message log refuses the user (the API answers 404 and
    sends no signal that could start a new lifecycle behind the deletion)."""
    database = stack_settings.neo4j_database
    logs = MessageLogs(graph_driver, database)  # type: ignore[arg-type]
    accounts = Neo4jAccounts(graph_driver, database)  # type: ignore[arg-type]
    scope = UserScope("tingest", f"u{uuid.uuid4().hex[:8]}")
    await accounts.put_profile(scope, UserProfile())
    message = Message(id="m1", role=Role.USER, text="Hello again.", sent_at=NOW)
    assert (await logs.for_user(scope).append([message], require_profile=True)).new_ids == ["m1"]
    assert await accounts.mark_deleting(scope)
    later = Message(id="m2", role=Role.USER, text="Are you there?", sent_at=NOW)
    with pytest.raises(UnknownUserError):
        await logs.for_user(scope).append([later], require_profile=True)
    assert await logs.for_user(scope).count() == 1


async def test_the_reconcile_refuses_a_user_without_a_profile(
    stack_settings: Settings, graph_store: Neo4jGraphStore, graph_driver: object
) -> None:
    """The lifecycle's reconcile activity finds pending messages for a live user, and refuses
    (non-retryable, USER_GONE) once the erasure has begun or the profile is gone."""
    database = stack_settings.neo4j_database
    logs = MessageLogs(graph_driver, database)  # type: ignore[arg-type]
    accounts = Neo4jAccounts(graph_driver, database)  # type: ignore[arg-type]
    cpu = IngestionActivities(graph_store, logs)
    never = PendingInput(tenant_id="tingest", user_id=f"u{uuid.uuid4().hex[:8]}")
    scope = UserScope("tingest", f"u{uuid.uuid4().hex[:8]}")
    live = PendingInput(tenant_id=scope.tenant_id, user_id=scope.user_id)
    await accounts.put_profile(scope, UserProfile())
    message = Message(id="m1", role=Role.USER, text="Still here.", sent_at=NOW)
    await logs.for_user(scope).append([message], require_profile=True)
    assert await cpu.pending_messages(live) == ["m1"]
    await accounts.mark_deleting(scope)
    for gone in (live, never):
        with pytest.raises(ApplicationError) as refused:
            await cpu.pending_messages(gone)
        assert refused.value.type == USER_GONE and refused.value.non_retryable


async def test_concurrent_appends_of_one_id_store_one_content_and_refuse_the_other(
    stack_settings: Settings, graph_driver: object
) -> None:
    """Two requests racing with the same new id and different texts: one is stored, the other
    is a conflict (or, with the same text, a duplicate); never a 202 for a text not stored."""
    database = stack_settings.neo4j_database
    logs = MessageLogs(graph_driver, database)  # type: ignore[arg-type]
    accounts = Neo4jAccounts(graph_driver, database)  # type: ignore[arg-type]
    scope = UserScope("tingest", f"u{uuid.uuid4().hex[:8]}")
    await accounts.put_profile(scope, UserProfile())
    log = logs.for_user(scope)
    for i in range(30):
        texts = [f"version A of {i}", f"version B of {i}"]
        outcomes = await asyncio.gather(
            *(
                log.append([Message(id=f"r{i}", role=Role.USER, text=t, sent_at=NOW)])
                for t in texts
            ),
            return_exceptions=True,
        )
        stored = [t for t, o in zip(texts, outcomes, strict=True) if isinstance(o, AppendOutcome)]
        refused = [o for o in outcomes if isinstance(o, MessageConflictError)]
        assert len(stored) == 1 and len(refused) == 1, outcomes
        assert stored[0] == (await log.get([f"r{i}"]))[0].text
