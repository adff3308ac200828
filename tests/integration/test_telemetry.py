"""Telemetry on the real stack: tier moves counted by a real TierMoveWorkflow (and its Neo4j and
S3 calls traced under the activities that made them), the backlog gauges read from the real
message log, and the token counts llama.cpp reports for a real completion."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from neo4j import AsyncDriver
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client import REGISTRY
from pydantic import BaseModel, Field
from temporalio.client import Client

from selfimprint.adapters.llm import LLMAnswerInvalidError, build_llm
from selfimprint.adapters.neo4j import message_log
from selfimprint.adapters.neo4j.message_log import ExtractionState, MessageLogs
from selfimprint.config import Settings
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.users import Tier, UserScope
from selfimprint.telemetry import tracing
from selfimprint.telemetry.metrics import PENDING_MESSAGES, expose_backlog_gauges
from tests.integration.test_tiers import move
from tests.integration.tiers_support import Harness, fresh_queue, harness, seed_graph
from workers.backlog import refresh_backlog, watch_backlog

pytestmark = pytest.mark.integration
__all__ = ["harness"]  # the fixture, imported for pytest


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.use_provider(provider)
    yield exporter
    tracing.use_provider(None)


def _span_id(span: ReadableSpan) -> int:
    assert span.context is not None
    return int(span.context.span_id)


async def test_a_tier_round_trip_counts_each_move_and_traces_neo4j_and_s3(
    harness: Harness, spans: InMemorySpanExporter
) -> None:
    config = harness.client.config()
    config["interceptors"] = tracing.client_interceptors()
    h = dataclasses.replace(harness, client=Client(**config))
    store = await h.new_user()
    await seed_graph(store)
    moves = [("hot", "warm"), ("warm", "cold"), ("cold", "hot")]
    before = {m: value("selfimprint_tier_moves_total", from_tier=m[0], to_tier=m[1]) for m in moves}
    queue = fresh_queue()
    async with h.worker(queue):
        with tracing.span("operator"):
            for target in (Tier.WARM, Tier.WARM, Tier.COLD, Tier.HOT):  # the second: no move
                await move(h, store, target, queue)
    after = {m: value("selfimprint_tier_moves_total", from_tier=m[0], to_tier=m[1]) for m in moves}
    assert {m: after[m] - before[m] for m in moves} == dict.fromkeys(moves, 1.0)

    finished = spans.get_finished_spans()
    (operator,) = [s for s in finished if s.name == "operator"]
    assert operator.context is not None
    activities = {_span_id(s): s.name for s in finished if s.name.startswith("RunActivity:")}
    assert "RunActivity:tiers.archive_hot" in activities.values()

    def calls_under(prefix: str) -> set[tuple[str, str]]:
        return {
            (activities[s.parent.span_id], s.name)
            for s in finished
            if s.name.startswith(prefix) and s.parent is not None
            if s.parent.span_id in activities
            and s.context is not None
            and s.context.trace_id == operator.context.trace_id
        }

    neo4j, s3 = calls_under("neo4j "), calls_under("s3 ")
    assert ("RunActivity:tiers.archive_hot", "neo4j Neo4jUserGraph.export_graph") in neo4j
    assert ("RunActivity:tiers.record_tier", "neo4j Neo4jAccounts.set_tier") in neo4j
    assert ("RunActivity:tiers.archive_hot", "s3 S3ObjectStore.put") in s3
    assert ("RunActivity:tiers.copy_archive", "s3 S3ObjectStore.copy") in s3


async def test_the_backlog_gauges_follow_the_message_log(
    graph_driver: AsyncDriver, stack_settings: Settings
) -> None:
    expose_backlog_gauges()
    logs = MessageLogs(graph_driver, stack_settings.neo4j_database)
    # Other tests share this database and may leave messages pending: compare with before.
    before = await refresh_backlog(logs)
    scope = UserScope(f"t{uuid.uuid4().hex[:8]}", "backlogged")
    user_log = logs.for_user(scope)
    sent = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    stored = await user_log.append(
        [Message(id=f"m{i}", role=Role.USER, text=f"note {i}", sent_at=sent) for i in range(3)]
    )
    assert len(stored.new_ids) == 3
    later = datetime(2100, 1, 1, tzinfo=UTC)  # the lag is measured from now: far in the future
    waiting = await refresh_backlog(logs, clock=lambda: later)
    assert waiting.pending == before.pending + 3
    assert REGISTRY.get_sample_value("selfimprint_pending_messages") == waiting.pending
    assert waiting.oldest_received_at is not None
    lag = REGISTRY.get_sample_value("selfimprint_extraction_lag_seconds")
    assert lag == (later - waiting.oldest_received_at).total_seconds() > 0

    await user_log.set_state(stored.new_ids, ExtractionState.EXTRACTED)
    assert (await refresh_backlog(logs)).pending == before.pending
    await user_log.delete_all()

    # The query is an index seek on the pending state, not a scan of the whole log.
    async with graph_driver.session(database=stack_settings.neo4j_database) as session:
        plan = await (await session.run("EXPLAIN " + message_log._BACKLOG)).consume()
    assert plan.plan is not None

    def operators(node: dict[str, Any]) -> list[tuple[str, str]]:
        here = (str(node.get("operatorType")), str(node.get("args", {}).get("Details", "")))
        return [here, *(op for child in node.get("children", []) for op in operators(child))]

    seeks = [details for op, details in operators(plan.plan) if op.startswith("NodeIndexSeek")]
    assert seeks, operators(plan.plan)
    assert "RawMessage(extraction_state, received_at)" in seeks[0], seeks


class CityAnswer(BaseModel):
    city: str = Field(max_length=40)


async def test_llama_cpp_reports_the_tokens_of_a_real_completion(
    stack_settings: Settings, spans: InMemorySpanExporter
) -> None:
    labels = {"operation": "city"}
    prompt_before = value("selfimprint_llm_tokens_total", direction="prompt", **labels)
    completion_before = value("selfimprint_llm_tokens_total", direction="completion", **labels)
    calls_before = value("selfimprint_llm_request_duration_seconds_count", **labels)
    llm = build_llm(stack_settings)
    try:
        await llm.complete_json(
            [{"role": "user", "content": "Which city is the capital of France?"}],
            CityAnswer,
            max_tokens=12,
        )
    except LLMAnswerInvalidError:
        pass  # a 135M model may not finish the JSON in 12 tokens; the tokens are spent anyway
    prompt = value("selfimprint_llm_tokens_total", direction="prompt", **labels) - prompt_before
    completion = (
        value("selfimprint_llm_tokens_total", direction="completion", **labels) - completion_before
    )
    assert prompt > 5
    assert 0 < completion <= 12
    assert value("selfimprint_llm_request_duration_seconds_count", **labels) == calls_before + 1
    (call,) = [s for s in spans.get_finished_spans() if s.name == "chat city"]
    assert call.attributes is not None
    assert call.attributes["gen_ai.usage.input_tokens"] == prompt
    assert call.attributes["gen_ai.usage.output_tokens"] == completion


async def test_the_cpu_workers_watcher_refreshes_the_gauges_until_cancelled(
    stack_settings: Settings,
) -> None:
    settings = stack_settings.model_copy(update={"worker_metrics_port": 9464})  # never bound here
    PENDING_MESSAGES.set(-1)
    watcher = asyncio.create_task(watch_backlog(settings, every_s=0.1))
    try:
        for _ in range(100):
            if REGISTRY.get_sample_value("selfimprint_pending_messages") != -1:
                break
            await asyncio.sleep(0.1)
        refreshed = REGISTRY.get_sample_value("selfimprint_pending_messages")
        assert refreshed is not None and refreshed >= 0
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
    assert watcher.cancelled()
