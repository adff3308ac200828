"""The app's own Prometheus metrics (prometheus_client, default registry).

Workers serve them on `worker_metrics_port` (`serve_app_metrics`), the API on its `/metrics`.
Two kinds live elsewhere, and docs/operations.md ("Metrics") lists every name:
- sleep runs (`selfimprint_sleep_runs_total`, `selfimprint_sleep_duration_seconds`) are counted
  by the lifecycle workflow through `workflow.metric_meter()`, which is replay-safe, so they are
  served with the Temporal SDK's metrics on `worker_sdk_metrics_port`;
- the message backlog gauges below are registered only where they are refreshed (the CPU
  worker's `backlog.watch_backlog`), so that other processes do not serve a stale 0.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from wsgiref.simple_server import WSGIServer

from prometheus_client import REGISTRY, Counter, Gauge, Histogram, start_http_server

from selfimprint.logging import get_logger

log = get_logger(__name__)

# --- LLM calls (adapters/llm.py) -------------------------------------------------------------
# `operation` is what the call is for, named after its answer model (extraction, refinement,
# precheck, hypotheses, prose_summary): a handful of values fixed by the code.
LLM_REQUEST_DURATION = Histogram(
    "selfimprint_llm_request_duration_seconds",
    "Wall time of one LLM call, answer streamed to the end (failed calls included)",
    ["operation"],
    buckets=(0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0),
)
LLM_ERRORS = Counter(
    "selfimprint_llm_errors_total",
    "LLM calls that failed, by kind: timeout, connection, http_<status>, invalid_answer, other",
    ["operation", "kind"],
)
LLM_TOKENS = Counter(
    "selfimprint_llm_tokens_total",
    "Tokens the model server reported (direction: prompt or completion)",
    ["operation", "direction"],
)

# --- sleep phase (activities/sleep.py) ---------------------------------------------------------
HYPOTHESES_REJECTED = Counter(
    "selfimprint_hypotheses_rejected_total",
    "Hypotheses the sleep model proposed that were not stored, by reason (inference_policy: a "
    "category the deployment never infers)",
    ["reason"],
)

# --- storage tiers and compaction (activities/tiers.py, activities/compaction.py) ------------
TIER_MOVES = Counter(
    "selfimprint_tier_moves_total",
    "Users' graphs moved between storage tiers (counted when the new tier is recorded)",
    ["from_tier", "to_tier"],
)
COMPACTION_DURATION = Histogram(
    "selfimprint_compaction_duration_seconds",
    "Wall time of one completed compaction of one user's graph (prune, plan, apply)",
    buckets=(0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0),
)

# --- accepted messages not yet extracted (backlog.py) -----------------------------------------
EXTRACTION_LAG = Gauge(
    "selfimprint_extraction_lag_seconds",
    "Age of the oldest message accepted but not yet extracted (0 when none)",
    registry=None,
)
PENDING_MESSAGES = Gauge(
    "selfimprint_pending_messages",
    "Messages accepted but not yet extracted, all users",
    registry=None,
)
_backlog_exposed = False
_backlog_lock = threading.Lock()


def expose_backlog_gauges() -> None:
    """Serve the backlog gauges from this process (idempotent)."""
    global _backlog_exposed
    with _backlog_lock:
        if not _backlog_exposed:
            REGISTRY.register(EXTRACTION_LAG)
            REGISTRY.register(PENDING_MESSAGES)
            _backlog_exposed = True


def serve_app_metrics(host: str, port: int) -> Callable[[], None]:
    """Serve the default registry at http://host:port/metrics from a daemon thread (port 0 =
    off). Returns the function that stops it."""
    if port == 0:
        return lambda: None
    server: WSGIServer
    server, thread = start_http_server(port, addr=host)
    log.info("metrics.serving", url=f"http://{host}:{port}/metrics")

    def stop() -> None:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

    return stop
