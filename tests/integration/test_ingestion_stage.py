"""Ingestion by reference (issue 35) against real Neo4j and the real embedder, without Temporal:
what the workflow receives holds no text or vector, and each staged activity is safe to repeat
or to come late."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from neo4j import AsyncDriver
from temporalio.exceptions import ApplicationError

from activities.ingestion import (
    BAD_BATCH,
    ExtractionActivities,
    ExtractionMode,
    IngestionActivities,
    LoadBatchInput,
    MarkFailedInput,
    StageRef,
)
from selfimprint.adapters.embedders import build_embedder
from selfimprint.adapters.llm import build_llm
from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.neo4j.ingestion_stage import IngestionStages
from selfimprint.adapters.neo4j.message_log import MessageLogs
from selfimprint.config import Settings
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.users import UserProfile, UserScope

pytestmark = pytest.mark.integration

NOW = datetime(2026, 3, 20, 10, tzinfo=UTC)
TEXTS = {"m1": "I adopted a dog named Pixel.", "m2": "My sister Anna moved to Lisbon."}


@pytest.fixture
async def scope(stack_settings: Settings, graph_driver: AsyncDriver) -> UserScope:
    """A user with a profile and two stored messages."""
    scope = UserScope("tstage", f"u{uuid.uuid4().hex[:8]}")
    await Neo4jAccounts(graph_driver, stack_settings.neo4j_database).put_profile(
        scope, UserProfile()
    )
    messages = [Message(id=i, role=Role.USER, text=t, sent_at=NOW) for i, t in TEXTS.items()]
    await MessageLogs(graph_driver, stack_settings.neo4j_database).for_user(scope).append(messages)
    return scope


def activities(
    settings: Settings, store: Neo4jGraphStore, driver: AsyncDriver
) -> tuple[IngestionActivities, ExtractionActivities]:
    cpu = IngestionActivities(store, MessageLogs(driver, settings.neo4j_database))
    gpu = ExtractionActivities(
        build_llm(settings),
        build_embedder(settings),
        mode=ExtractionMode.VERBATIM,
        stages=IngestionStages(driver, settings.neo4j_database),
    )
    return cpu, gpu


def load(scope: UserScope, ids: list[str]) -> LoadBatchInput:
    return LoadBatchInput(
        tenant_id=scope.tenant_id, user_id=scope.user_id, message_ids=ids, now=NOW
    )


async def stages_of(
    driver: AsyncDriver, settings: Settings, scope: UserScope
) -> list[dict[str, str]]:
    records, _, _ = await driver.execute_query(
        "MATCH (s:IngestionStage {scope: $scope}) "
        "RETURN s.id AS id, s.batch AS batch, s.extracted AS extracted, s.outcome AS outcome",
        scope=scope.key,
        database_=settings.neo4j_database,
    )
    return [dict(r) for r in records]


async def test_a_batch_travels_by_reference_and_each_step_repeats_safely(
    stack_settings: Settings,
    graph_store: Neo4jGraphStore,
    graph_driver: AsyncDriver,
    scope: UserScope,
) -> None:
    cpu, gpu = activities(stack_settings, graph_store, graph_driver)
    staged = await cpu.stage_batch(load(scope, list(TEXTS)))
    assert staged.message_ids == list(TEXTS)
    assert await cpu.stage_batch(load(scope, list(TEXTS))) == staged  # a retried load
    ref = StageRef(tenant_id=scope.tenant_id, user_id=scope.user_id, batch_id=staged.batch_id)
    summary = await gpu.extract_staged(ref)
    assert summary.candidates == 2
    # What reaches the history: ids and counts, neither the user's words nor vectors.
    for payload in (staged, ref, summary):
        assert "Pixel" not in payload.model_dump_json()
    assert set(summary.model_dump()) == {"mode", "candidates", "batch_size"}

    outcome = await cpu.apply_staged(ref)
    assert outcome.created == 2
    assert await cpu.apply_staged(ref) == outcome  # a retry after it finished: no second apply
    nodes = await graph_store.for_user(scope.tenant_id, scope.user_id).recent(10)
    assert sorted(n.content for n in nodes) == sorted(TEXTS.values())
    # Applied: the outcome stays (for a retry), the messages and vectors are gone.
    (stage,) = await stages_of(graph_driver, stack_settings, scope)
    assert stage["batch"] is None and stage["extracted"] is None and stage["outcome"]
    with pytest.raises(ApplicationError) as late:  # an extraction attempt that came too late
        await gpu.extract_staged(ref)
    assert late.value.type == BAD_BATCH and late.value.non_retryable


async def test_an_extraction_is_not_recorded_once_the_apply_claimed_the_stage(
    stack_settings: Settings, graph_driver: AsyncDriver, scope: UserScope
) -> None:
    stage = IngestionStages(graph_driver, stack_settings.neo4j_database).for_user(scope)
    assert await stage.open("b1", '{"batch": 1}')
    assert await stage.record_extraction("b1", '{"answer": 1}')
    claimed = await stage.claim("b1")
    assert claimed is not None and claimed.extracted == '{"answer": 1}'
    assert not await stage.record_extraction("b1", '{"answer": 2}')  # a late attempt
    assert await stage.open("b1", '{"batch": 2}')  # a late load changes nothing either
    assert await stage.claim("b1") == claimed


async def test_failed_batches_are_discarded_and_erasure_takes_every_stage(
    stack_settings: Settings,
    graph_store: Neo4jGraphStore,
    graph_driver: AsyncDriver,
    scope: UserScope,
) -> None:
    cpu, _ = activities(stack_settings, graph_store, graph_driver)
    failed = await cpu.stage_batch(load(scope, ["m1"]))
    await cpu.mark_failed(
        MarkFailedInput(
            tenant_id=scope.tenant_id,
            user_id=scope.user_id,
            message_ids=failed.message_ids,
            reason="test",
        )
    )
    assert await stages_of(graph_driver, stack_settings, scope) == []
    await cpu.stage_batch(load(scope, ["m2"]))
    logs = MessageLogs(graph_driver, stack_settings.neo4j_database)
    await logs.for_user(scope).delete_all()
    assert await stages_of(graph_driver, stack_settings, scope) == []


async def test_nothing_is_staged_for_a_user_without_a_profile(
    stack_settings: Settings,
    graph_store: Neo4jGraphStore,
    graph_driver: AsyncDriver,
    scope: UserScope,
) -> None:
    await Neo4jAccounts(graph_driver, stack_settings.neo4j_database).delete_profile(scope)
    cpu, _ = activities(stack_settings, graph_store, graph_driver)
    assert (await cpu.stage_batch(load(scope, list(TEXTS)))).message_ids == []
    assert await stages_of(graph_driver, stack_settings, scope) == []
