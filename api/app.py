"""FastAPI application factory: routes, error handling, size limits, shared clients."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial

from fastapi import FastAPI, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

import selfimprint
from api.errors import install_error_handlers
from api.health import check_all
from api.lifecycle import signal_messages
from api.limits import BodySizeLimit
from api.metrics import RequestMetrics
from api.notifier import LifecycleNotifier
from api.resources import Resources
from api.routes import collective as collective_routes
from api.routes import context, erasure, memories, messages, users
from api.routes import reviews as review_routes
from api.routes import summaries as summary_routes
from api.routes import tensions as tension_routes
from selfimprint.config import Settings
from selfimprint.logging import get_logger
from selfimprint.telemetry.asgi import RequestTracing

log = get_logger(__name__)

# 2 MiB: a full batch of long messages fits; a 1 MB single message is refused by the message
# model (32k characters) with a 422 that names the field, bigger bodies by this limit (413).
MAX_BODY_BYTES = 2 * 1024 * 1024
# At shutdown, how long nudges still waiting may take to reach their lifecycle workflows; what
# is left waits for each workflow's reconcile (docs/api.md, "Messages").
NUDGE_DRAIN_S = 5.0


def create_app(
    settings: Settings | None = None, open_resources: Callable[[Settings], Resources] | None = None
) -> FastAPI:
    """`open_resources`: how the process-wide clients are made (default `Resources.open`);
    scenario tests hand in ones bound to a time-skipping Temporal server and its clock."""
    settings = settings or Settings()
    opener = open_resources or Resources.open

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        resources = opener(settings)
        try:
            report = await resources.graph.migrate()
            log.info("neo4j.schema", applied=report.applied)
        except Exception as exc:  # serve /healthz and /readyz even when Neo4j is down
            log.error("neo4j.migrate_failed", error=str(exc))
        app.state.resources = resources
        app.state.notifier = LifecycleNotifier(partial(signal_messages, resources))
        yield
        await app.state.notifier.close(timeout_s=NUDGE_DRAIN_S)
        await resources.close()

    app = FastAPI(
        title="SelfImprint",
        version=selfimprint.__version__,
        description="Long-term memory for conversational assistants.",
        lifespan=lifespan,
    )
    install_error_handlers(app)
    app.add_middleware(BodySizeLimit, max_bytes=MAX_BODY_BYTES)
    app.add_middleware(RequestMetrics)
    app.add_middleware(RequestTracing)  # outermost: the span covers the whole request
    app.include_router(users.router)
    app.include_router(messages.router)
    app.include_router(context.router)
    app.include_router(memories.router)
    app.include_router(review_routes.router)
    app.include_router(tension_routes.router)
    app.include_router(summary_routes.router)
    app.include_router(erasure.router)
    app.include_router(collective_routes.router)

    @app.get("/healthz", tags=["operations"])
    async def healthz() -> dict[str, str]:
        """Liveness: the process serves requests. Dependencies are /readyz's business."""
        return {"status": "ok"}

    @app.get("/readyz", tags=["operations"])
    async def readyz() -> JSONResponse:
        """Readiness: Temporal, Neo4j, S3, the LLM server and the embedder all answer."""
        checks = await check_all(settings)
        ready = all(c.ok for c in checks)
        return JSONResponse(
            status_code=200 if ready else 503,
            content={"ready": ready, "checks": [c.model_dump() for c in checks]},
        )

    @app.get("/metrics", tags=["operations"], include_in_schema=False)
    async def metrics() -> Response:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    return app
