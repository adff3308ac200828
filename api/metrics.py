"""Prometheus metrics for the HTTP API: request counts and latency by route template (not by
raw path, so user ids never become label values)."""

from __future__ import annotations

import time

from prometheus_client import Counter, Histogram
from starlette.types import ASGIApp, Receive, Scope, Send

from selfimprint.telemetry.asgi import ResponseStatus

REQUESTS = Counter(
    "selfimprint_http_requests_total", "HTTP requests", ["method", "route", "status"]
)
LATENCY = Histogram(
    "selfimprint_http_request_seconds",
    "HTTP request latency",
    ["method", "route"],
    buckets=(0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0),
)


class RequestMetrics:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = ResponseStatus(send)
        try:
            await self.app(scope, receive, status.send)
        finally:
            route = getattr(scope.get("route"), "path", "unmatched")
            method = scope.get("method", "GET")
            REQUESTS.labels(method, route, str(status.code)).inc()
            LATENCY.labels(method, route).observe(time.perf_counter() - started)
