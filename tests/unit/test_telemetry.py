"""Telemetry without services: which OTEL_* settings turn tracing on, a real OTLP/HTTP export to a
collector stand-in (and none when off), the API's request spans, and the app metrics that move
when an LLM call fails, a compaction completes or the backlog is read."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from opentelemetry import trace
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from prometheus_client import REGISTRY
from pydantic import BaseModel
from temporalio.testing import ActivityEnvironment

from activities.compaction import CompactInput, CompactionActivities
from api.notifier import LifecycleNotifier
from selfimprint.adapters.llm import OpenAICompatibleLLM, operation_of
from selfimprint.adapters.neo4j.message_log import Backlog
from selfimprint.config import Settings
from selfimprint.domain.models import Belief, Node, NodeType
from selfimprint.domain.users import UserScope
from selfimprint.prompts.extraction import ExtractionAnswer
from selfimprint.prompts.hypotheses import HypothesesAnswer, PrecheckAnswer
from selfimprint.telemetry import tracing
from selfimprint.telemetry.asgi import RequestTracing
from selfimprint.telemetry.metrics import expose_backlog_gauges, serve_app_metrics
from selfimprint.telemetry.tracing import TracingConfigError, trace_exporters
from tests.ports import free_port, refused_port
from tests.workflows.support import MemoryGraphs
from workers.backlog import record_backlog, watch_backlog

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[2]


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


# --- which settings turn tracing on ---------------------------------------------------------


def test_tracing_is_off_without_otel_variables() -> None:
    assert trace_exporters({}) == []
    assert trace_exporters({"OTEL_SERVICE_NAME": "x", "OTEL_TRACES_SAMPLER": "always_on"}) == []


def test_an_otlp_endpoint_or_a_named_exporter_turns_it_on() -> None:
    assert trace_exporters({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}) == ["otlp"]
    assert trace_exporters({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}) == [
        "otlp"
    ]
    assert trace_exporters({"OTEL_TRACES_EXPORTER": "otlp, console"}) == ["otlp", "console"]


def test_sdk_disabled_and_exporter_none_win() -> None:
    endpoint = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}
    assert trace_exporters({**endpoint, "OTEL_SDK_DISABLED": "TRUE"}) == []
    assert trace_exporters({**endpoint, "OTEL_TRACES_EXPORTER": "none"}) == []


def test_what_this_build_cannot_export_refuses_to_start() -> None:
    with pytest.raises(TracingConfigError, match="zipkin"):
        trace_exporters({"OTEL_TRACES_EXPORTER": "zipkin"})
    with pytest.raises(TracingConfigError, match="grpc"):
        trace_exporters({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"})


# --- a real export, in a fresh process (the global provider can be set once per process) ------


class _Collector(BaseHTTPRequestHandler):
    bodies: list[tuple[str, bytes]] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = self.rfile.read(int(self.headers["Content-Length"]))
        _Collector.bodies.append((self.path, body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[str]:
    """An OTLP/HTTP receiver stand-in: keeps what is posted to it."""
    _Collector.bodies = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


# configure_tracing as a process does it, one adapter call under a request-like span, shutdown.
_PROCESS = textwrap.dedent(
    """
    import asyncio, json, boto3
    from botocore.config import Config
    from opentelemetry import trace
    from selfimprint.adapters.s3 import S3ObjectStore
    from selfimprint.telemetry import tracing

    provider = tracing.configure_tracing("worker-cpu")
    client = boto3.client("s3", endpoint_url="http://127.0.0.1:{port}", region_name="us-east-1",
                          aws_access_key_id="k", aws_secret_access_key="s",
                          config=Config(retries={{"total_max_attempts": 1}}))
    with tracing.span("request") as root:
        recording = root.is_recording()
        try:
            S3ObjectStore(client, "bucket").head("key")
        except Exception:
            pass
    print(json.dumps({{"enabled": tracing.enabled(), "recording": recording,
                      "global": type(trace.get_tracer_provider()).__name__,
                      "interceptors": len(tracing.client_interceptors())}}))
    tracing.shutdown_tracing(provider)
    """
)


def _run_process(env: dict[str, str]) -> dict[str, object]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", _PROCESS.format(port=refused_port())],
        env={**clean, **env},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    answer: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def test_otlp_export_reaches_the_collector_with_the_service_name(collector: str) -> None:
    seen = _run_process({"OTEL_EXPORTER_OTLP_ENDPOINT": collector})
    assert seen == {
        "enabled": True,
        "recording": True,
        "global": "TracerProvider",
        "interceptors": 1,
    }
    assert [path for path, _ in _Collector.bodies] == ["/v1/traces"]
    export = ExportTraceServiceRequest()
    export.ParseFromString(_Collector.bodies[0][1])
    (resource_spans,) = export.resource_spans
    attributes = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
    assert attributes["service.name"] == "selfimprint-worker-cpu"
    spans = {s.name: s for scope in resource_spans.scope_spans for s in scope.spans}
    assert set(spans) == {"request", "s3 S3ObjectStore.head"}
    assert spans["s3 S3ObjectStore.head"].parent_span_id == spans["request"].span_id
    assert spans["s3 S3ObjectStore.head"].trace_id == spans["request"].trace_id


def test_otel_service_name_overrides_the_role(collector: str) -> None:
    _run_process({"OTEL_EXPORTER_OTLP_ENDPOINT": collector, "OTEL_SERVICE_NAME": "memory-eu"})
    export = ExportTraceServiceRequest()
    export.ParseFromString(_Collector.bodies[0][1])
    names = [
        a.value.string_value
        for a in export.resource_spans[0].resource.attributes
        if a.key == "service.name"
    ]
    assert names == ["memory-eu"]


def test_disabled_or_unset_exports_nothing_and_installs_nothing(collector: str) -> None:
    off = {"enabled": False, "recording": False, "global": "ProxyTracerProvider", "interceptors": 0}
    assert _run_process({}) == off
    disabled = {"OTEL_EXPORTER_OTLP_ENDPOINT": collector, "OTEL_SDK_DISABLED": "true"}
    assert _run_process(disabled) == off
    assert _Collector.bodies == []


# --- the API's request spans --------------------------------------------------------------------


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.use_provider(provider)
    yield exporter
    tracing.use_provider(None)


def _app() -> FastAPI:
    app = FastAPI()

    @app.get("/v1/users/{user_id}/ping")
    async def ping(user_id: str) -> dict[str, str]:
        with tracing.span("inner"):
            return {"user": user_id}

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/boom")
    async def boom() -> None:
        raise RuntimeError("broken")

    app.add_middleware(RequestTracing)
    return app


async def test_a_request_span_continues_the_callers_trace_and_parents_the_work(
    spans: InMemorySpanExporter,
) -> None:
    trace_id, caller = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    transport = httpx.ASGITransport(app=_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://api") as http:
        answer = await http.get(
            "/v1/users/alice/ping", headers={"traceparent": f"00-{trace_id}-{caller}-01"}
        )
        assert answer.status_code == 200
        assert (await http.get("/healthz")).status_code == 200
    finished = {s.name: s for s in spans.get_finished_spans()}
    assert set(finished) == {"GET /v1/users/{user_id}/ping", "inner"}  # probes are not traced
    request = finished["GET /v1/users/{user_id}/ping"]
    assert request.kind is SpanKind.SERVER
    assert request.context is not None and request.parent is not None
    assert f"{request.context.trace_id:032x}" == trace_id
    assert f"{request.parent.span_id:016x}" == caller
    assert request.attributes is not None
    assert request.attributes["http.route"] == "/v1/users/{user_id}/ping"
    assert request.attributes["http.response.status_code"] == 200
    assert "alice" not in request.name
    inner = finished["inner"]
    assert inner.parent is not None and inner.parent.span_id == request.context.span_id


async def test_a_failing_request_is_an_error_span(spans: InMemorySpanExporter) -> None:
    transport = httpx.ASGITransport(app=_app(), raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://api") as http:
        assert (await http.get("/boom")).status_code == 500
    (failed,) = spans.get_finished_spans()
    assert failed.name == "GET /boom"
    assert failed.status.status_code is StatusCode.ERROR
    assert [e.name for e in failed.events] == ["exception"]


async def test_without_tracing_the_middleware_passes_requests_through() -> None:
    assert not tracing.enabled()
    transport = httpx.ASGITransport(app=_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://api") as http:
        assert (await http.get("/v1/users/bob/ping")).json() == {"user": "bob"}


# --- app metrics --------------------------------------------------------------------------------


class ProbeAnswer(BaseModel):
    ok: bool


def test_llm_operations_are_named_after_their_answer_models() -> None:
    assert operation_of(ExtractionAnswer) == "extraction"
    assert operation_of(PrecheckAnswer) == "precheck"
    assert operation_of(HypothesesAnswer) == "hypotheses"
    assert operation_of(ProbeAnswer) == "probe"


async def test_an_llm_call_to_a_server_that_is_down_counts_as_a_connection_error() -> None:
    errors = ("selfimprint_llm_errors_total", {"operation": "probe", "kind": "connection"})
    timed = ("selfimprint_llm_request_duration_seconds_count", {"operation": "probe"})
    before_errors, before_timed = value(errors[0], **errors[1]), value(timed[0], **timed[1])
    llm = OpenAICompatibleLLM(f"http://127.0.0.1:{refused_port()}/v1", "none", "x", 2.0)
    with pytest.raises(Exception, match="Connection"):
        await llm.complete_json([{"role": "user", "content": "hi"}], ProbeAnswer, max_tokens=4)
    assert value(errors[0], **errors[1]) == before_errors + 1
    assert value(timed[0], **timed[1]) == before_timed + 1
    prompt = value("selfimprint_llm_tokens_total", operation="probe", direction="prompt")
    assert prompt == 0  # nothing was generated, nothing is counted


async def test_a_completed_compaction_is_timed() -> None:
    now = datetime(2026, 3, 1, tzinfo=UTC)
    graphs = MemoryGraphs()
    graph = graphs.for_user("t", "u")
    for i in range(3):
        node = Node(
            id=f"n{i}",
            user_id="u",
            type=NodeType.FACT,
            content=f"fact number {i}",
            weight_at=now - timedelta(days=10),
            created_at=now - timedelta(days=10),
            sources=(f"m{i}",),
            belief=Belief(first_seen=now - timedelta(days=10)),
        )
        graph.nodes[node.id] = node
    before = value("selfimprint_compaction_duration_seconds_count")
    compaction = CompactionActivities(graphs)
    await ActivityEnvironment().run(
        compaction.compact, CompactInput(tenant_id="t", user_id="u", now=now)
    )
    assert value("selfimprint_compaction_duration_seconds_count") == before + 1
    assert value("selfimprint_compaction_duration_seconds_sum") > 0


def test_the_backlog_gauges_show_count_and_the_oldest_age() -> None:
    expose_backlog_gauges()
    expose_backlog_gauges()  # idempotent: the CPU worker and a test may both call it
    now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    record_backlog(Backlog(pending=7, oldest_received_at=now - timedelta(minutes=5)), now)
    assert value("selfimprint_pending_messages") == 7
    assert value("selfimprint_extraction_lag_seconds") == 300
    record_backlog(Backlog(pending=0, oldest_received_at=None), now)
    assert value("selfimprint_pending_messages") == 0
    assert value("selfimprint_extraction_lag_seconds") == 0


def test_worker_metrics_are_served_over_http_and_port_zero_serves_nothing() -> None:
    port = free_port()
    stop = serve_app_metrics("127.0.0.1", port)
    try:
        text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
        assert "# TYPE selfimprint_tier_moves_total counter" in text
        assert "# TYPE selfimprint_compaction_duration_seconds histogram" in text
    finally:
        stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=2)
    serve_app_metrics("127.0.0.1", 0)()  # off: nothing to stop


async def test_the_nudge_sent_after_the_answer_belongs_to_the_request(
    spans: InMemorySpanExporter,
) -> None:
    """The API answers 202, then the notifier signals the lifecycle from a task of its own: that
    task keeps the request's context, so the Temporal client span is the request's child."""
    current: list[int] = []

    async def send(scope: UserScope, ids: list[str], last_sent_at: datetime) -> None:
        current.append(trace.get_current_span().get_span_context().span_id)

    notifier = LifecycleNotifier(send)
    scope = UserScope("t1", "u1")
    with tracing.span("POST /v1/users/{user_id}/messages", kind=SpanKind.SERVER) as request:
        notifier.notify(scope, ["m1"], datetime.now(UTC))
    await notifier.settle(scope)  # the request span has ended by now
    assert current == [request.get_span_context().span_id]


async def test_the_backlog_watcher_does_nothing_when_metrics_are_off() -> None:
    # Returns at once: no driver opened (there is no Neo4j here), no gauges exposed.
    await asyncio.wait_for(watch_backlog(Settings(worker_metrics_port=0)), timeout=5)
