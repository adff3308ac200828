"""ASGI middleware: one SERVER span per HTTP request, the parent of everything the request does
(Neo4j calls, the embedder, the Temporal signal that the notifier sends after the answer).

The span continues the caller's trace when the request carries W3C `traceparent` (the
propagators of OTEL_PROPAGATORS). It is named after the route template (`POST
/v1/users/{user_id}/messages`), never the raw path, so user ids stay out of span names.
"""

from __future__ import annotations

from collections.abc import Collection

from opentelemetry import propagate
from opentelemetry.trace import SpanKind, Status, StatusCode
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from selfimprint.telemetry import tracing


class ResponseStatus:
    """The status an ASGI app answered with, seen on its way out (500 until it answers: an app
    that raises before answering is a server error)."""

    def __init__(self, send: Send) -> None:
        self.code = 500
        self._send = send

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.code = int(message["status"])
        await self._send(message)


# Probes and scrapes: frequent, and nothing in them is worth a trace.
UNTRACED_PATHS = ("/healthz", "/readyz", "/metrics")


class RequestTracing:
    def __init__(self, app: ASGIApp, untraced: Collection[str] = UNTRACED_PATHS) -> None:
        self.app = app
        self.untraced = frozenset(untraced)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not tracing.enabled() or scope["path"] in self.untraced:
            await self.app(scope, receive, send)
            return
        carrier = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        method = str(scope.get("method", "GET"))
        status = ResponseStatus(send)
        with tracing.tracer().start_as_current_span(
            method,
            context=propagate.extract(carrier),
            kind=SpanKind.SERVER,
            attributes={"http.request.method": method, "url.scheme": str(scope["scheme"])},
        ) as span:
            try:
                await self.app(scope, receive, status.send)
            finally:
                route = getattr(scope.get("route"), "path", None)
                if route is not None:
                    span.update_name(f"{method} {route}")
                    span.set_attribute("http.route", route)
                span.set_attribute("http.response.status_code", status.code)
                if status.code >= 500:
                    span.set_status(Status(StatusCode.ERROR))
