"""The ingestion activities against real Neo4j and the real embedder (no Temporal, no LLM):
near-duplicates reinforce, distinct memories stay distinct, and a retry changes nothing."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import UTC, datetime

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.ingestion import (
    STORE_WAIT_ATTEMPTS,
    ApplyInput,
    ExtractInput,
    ExtractionActivities,
    IngestionActivities,
    LoadBatchInput,
)
from selfimprint.adapters.embedders import build_embedder
from selfimprint.adapters.llm import build_llm
from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.adapters.neo4j.message_log import MessageLogs
from selfimprint.adapters.neo4j.records import UserScope
from selfimprint.config import Settings
from selfimprint.domain.messages import Message, Role

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
    gpu = ExtractionActivities(build_llm(settings), build_embedder(settings), use_llm=False)
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


async def test_a_batch_waits_for_messages_not_stored_yet_then_goes_ahead_without_them(
    stack_settings: Settings, graph_store: Neo4jGraphStore, graph_driver: object
) -> None:
    """The API's fast path signals while it stores, so the load can run before the commit."""
    logs = MessageLogs(graph_driver, stack_settings.neo4j_database)  # type: ignore[arg-type]
    scope = UserScope("tingest", f"u{uuid.uuid4().hex[:8]}")
    stored = Message(id="here", role=Role.USER, text="I moved to Porto.", sent_at=NOW)
    await logs.for_user(scope).append([stored])
    cpu = IngestionActivities(graph_store, logs)
    data = LoadBatchInput(
        tenant_id=scope.tenant_id, user_id=scope.user_id, message_ids=["here", "in-flight"]
    )
    env = ActivityEnvironment()
    with pytest.raises(ApplicationError) as err:
        await env.run(cpu.load_batch, data)
    assert err.value.type == "MessagesNotStoredYet" and not err.value.non_retryable
    env.info = dataclasses.replace(env.info, attempt=STORE_WAIT_ATTEMPTS)
    batch = await env.run(cpu.load_batch, data)
    assert [m.id for m in batch.messages] == ["here"]
