"""OpenTelemetry tracing, off unless the standard `OTEL_*` variables turn it on.

On: `OTEL_TRACES_EXPORTER=otlp` (or `console`, or both, comma-separated), or an OTLP endpoint
(`OTEL_EXPORTER_OTLP_ENDPOINT` / `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) with the exporter unset.
`OTEL_SDK_DISABLED=true` wins over both. Everything else (endpoint, headers, timeout, sampler,
batch sizes, resource attributes, `OTEL_SERVICE_NAME`) is read by the OpenTelemetry SDK itself.

Off means no tracer provider, no exporter, no Temporal interceptor: `span` hands out the
non-recording span and `traced_calls` wrappers call straight through.

The OTLP exporter is HTTP/protobuf (port 4318): it needs only `requests` and protobuf, which the
Temporal SDK already brings, where the gRPC exporter would add grpcio (a large native wheel) to
every process for the same spans.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

from opentelemetry import trace
from opentelemetry.sdk.resources import SERVICE_NAME, SERVICE_VERSION, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter
from opentelemetry.trace import Span, SpanKind, Tracer
from temporalio.client import Interceptor
from temporalio.contrib.opentelemetry import TracingInterceptor

import selfimprint
from selfimprint.logging import get_logger

log = get_logger(__name__)

T = TypeVar("T")

TRACER_NAME = "selfimprint"
SUPPORTED_EXPORTERS = ("otlp", "console")
SUPPORTED_PROTOCOL = "http/protobuf"

# Attributes of the adapters' spans (OpenTelemetry semantic conventions).
NEO4J = {"db.system.name": "neo4j"}
S3 = {"rpc.system": "aws-api", "rpc.service": "S3"}

_provider: TracerProvider | None = None


class TracingConfigError(ValueError):
    """The OTEL_* variables ask for something this build cannot do; the process refuses to start
    rather than run without the traces the operator asked for."""


def trace_exporters(env: Mapping[str, str]) -> list[str]:
    """The exporters the environment asks for; empty = tracing off."""
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return []
    named = env.get("OTEL_TRACES_EXPORTER")
    if named is None:
        # The OpenTelemetry default would be otlp to localhost; here an endpoint must be given.
        endpoint = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or env.get(
            "OTEL_EXPORTER_OTLP_ENDPOINT"
        )
        return ["otlp"] if endpoint else []
    exporters = [e.strip().lower() for e in named.split(",") if e.strip()]
    if exporters == ["none"] or not exporters:
        return []
    unknown = [e for e in exporters if e not in SUPPORTED_EXPORTERS]
    if unknown:
        raise TracingConfigError(
            f"OTEL_TRACES_EXPORTER={named!r}: {', '.join(unknown)} not supported "
            f"(use {' or '.join(SUPPORTED_EXPORTERS)}, or none)"
        )
    if "otlp" in exporters:
        protocol = env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get(
            "OTEL_EXPORTER_OTLP_PROTOCOL", SUPPORTED_PROTOCOL
        )
        if protocol != SUPPORTED_PROTOCOL:
            raise TracingConfigError(
                f"OTLP protocol {protocol!r} is not supported: SelfImprint exports OTLP over "
                f"{SUPPORTED_PROTOCOL} (collector port 4318); unset OTEL_EXPORTER_OTLP_PROTOCOL"
            )
    return exporters


def configure_tracing(role: str, env: Mapping[str, str] | None = None) -> TracerProvider | None:
    """Call once at process start. `role` names the process (api, worker-cpu, ...): the service
    name is `selfimprint-<role>` unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES set one.
    Returns the provider to `shutdown_tracing` at exit, or None when tracing is off."""
    exporters = trace_exporters(os.environ if env is None else env)
    if not exporters:
        return None
    resource = Resource.create({SERVICE_VERSION: selfimprint.__version__})
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: f"selfimprint-{role}"}))
    provider = TracerProvider(resource=resource)  # the sampler comes from OTEL_TRACES_SAMPLER
    for name in exporters:
        provider.add_span_processor(BatchSpanProcessor(_exporter(name)))
    trace.set_tracer_provider(provider)
    use_provider(provider)
    log.info(
        "tracing.on", service=resource.attributes.get(SERVICE_NAME), exporters=",".join(exporters)
    )
    return provider


def _exporter(name: str) -> SpanExporter:
    if name == "console":
        return ConsoleSpanExporter()
    # Imported here: its requests/protobuf imports cost start-up time nobody needs when off.
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()  # endpoint, headers, timeout, TLS from OTEL_EXPORTER_OTLP_*


def use_provider(provider: TracerProvider | None) -> None:
    """The provider SelfImprint's spans and the Temporal interceptor use (None = off). Tests hand
    in one with an in-memory exporter without touching the process-global provider."""
    global _provider
    _provider = provider


def shutdown_tracing(provider: TracerProvider | None) -> None:
    """Flush what is still batched; spans of the last seconds are lost without it."""
    if provider is not None:
        provider.shutdown()
        if _provider is provider:
            use_provider(None)


def enabled() -> bool:
    return _provider is not None


def tracer() -> Tracer:
    if _provider is None:
        return trace.NoOpTracer()
    return _provider.get_tracer(TRACER_NAME, selfimprint.__version__)


def client_interceptors() -> list[Interceptor]:
    """For `Client.connect`: workers built from the client trace workflows and activities too,
    and every start, signal and signal-with-start carries the caller's trace context."""
    return [TracingInterceptor(tracer())] if enabled() else []


@contextmanager
def span(
    name: str,
    attributes: Mapping[str, str | int | float | bool] | None = None,
    kind: SpanKind = SpanKind.INTERNAL,
) -> Iterator[Span]:
    """A span around a block, child of the current one; failures are recorded on it. When
    tracing is off, the block gets the non-recording span (its setters do nothing)."""
    if _provider is None:
        yield trace.INVALID_SPAN
        return
    with tracer().start_as_current_span(name, kind=kind, attributes=attributes) as current:
        yield current


def traced_calls(
    system: str, attributes: Mapping[str, str] | None = None, skip: Collection[str] = ()
) -> Callable[[type[T]], type[T]]:
    """Class decorator for an adapter: each public method (but those in `skip`, which do no
    I/O) becomes a CLIENT span named `<system> <Class>.<method>` with these attributes (e.g.
    `db.system.name`), so every call to the outside system shows in the trace of the request or
    activity that made it."""
    fixed = dict(attributes or {})

    def decorate(cls: type[T]) -> type[T]:
        for name, member in list(vars(cls).items()):
            if name.startswith("_") or name in skip or not inspect.isfunction(member):
                continue  # private helpers, properties, static and class methods
            if inspect.isasyncgenfunction(member) or inspect.isgeneratorfunction(member):
                continue
            setattr(cls, name, _wrap(member, f"{system} {cls.__name__}.{name}", fixed))
        return cls

    return decorate


def _wrap(fn: Callable[..., Any], name: str, attributes: Mapping[str, str]) -> Callable[..., Any]:
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def traced_async(*args: Any, **kwargs: Any) -> Any:
            if _provider is None:
                return await fn(*args, **kwargs)
            with span(name, attributes, SpanKind.CLIENT):
                return await fn(*args, **kwargs)

        return traced_async

    @functools.wraps(fn)
    def traced_sync(*args: Any, **kwargs: Any) -> Any:
        if _provider is None:
            return fn(*args, **kwargs)
        with span(name, attributes, SpanKind.CLIENT):
            return fn(*args, **kwargs)

    return traced_sync
