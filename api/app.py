"""FastAPI application factory: routes, error handling, size limits, shared clients."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from functools import partial

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

import selfimprint
from api.docs_pages import install_docs
from api.errors import install_error_handlers
from api.health import Check, LlmWatch, readiness, timed
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
from selfimprint.service.embedding_lane import embed_off_loop
from selfimprint.telemetry.asgi import RequestTracing

log = get_logger(__name__)

# 2 MiB: a full batch of long messages fits; a 1 MB single message is refused by the message
# model (32k characters) with a 422 that names the field, bigger bodies by this limit (413).
MAX_BODY_BYTES = 2 * 1024 * 1024
# At shutdown, how long nudges still waiting may take to reach their lifecycle workflows; what
# is left waits for each workflow's reconcile (docs/api.md, "Messages").
NUDGE_DRAIN_S = 5.0


async def _warm_embedder(resources: Resources) -> Check:
    """One embedding at start-up: the model is loaded and its first (slow) call paid before the
    start-up probe lets traffic in."""

    async def embed() -> None:
        await embed_off_loop(
            resources.embedder.embed_queries, ["warm-up"], resources.settings.api_embed_threads
        )

    check = await timed("embedder", embed, timeout_s=120.0)
    log.info("embedder.warm", ok=check.ok, ms=check.ms, error=check.error)
    return check


def _needs(resources: Resources, embedder: Check) -> dict[str, Callable[[], Awaitable[object]]]:
    async def neo4j() -> None:
        database = resources.settings.neo4j_database
        await resources.driver.execute_query("RETURN 1", database_=database)

    async def temporal() -> None:
        client = await resources.temporal()
        await client.service_client.check_health()

    async def s3() -> None:
        await asyncio.to_thread(resources.objects().check_bucket)

    async def embedder_loaded() -> None:
        if not embedder.ok:
            raise RuntimeError(f"the embedder failed to load at start-up: {embedder.error}")

    return {"neo4j": neo4j, "temporal": temporal, "s3": s3, "embedder": embedder_loaded}


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
        app.state.embedder_warm = await _warm_embedder(resources)
        app.state.llm_watch = LlmWatch(resources.llm, settings.api_llm_probe_interval_s)
        app.state.llm_watch.start()
        yield
        await app.state.llm_watch.close()
        await app.state.notifier.close(timeout_s=NUDGE_DRAIN_S)
        await resources.close()

    app = FastAPI(
        title="SelfImprint",
        version=selfimprint.__version__,
        description="Long-term memory for conversational assistants.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    install_docs(app)
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

    @app.get(
        "/readyz",
        tags=["operations"],
        responses={503: {"description": "Not ready: `checks` names the failing dependency."}},
    )
    async def readyz(request: Request) -> JSONResponse:
        """Readiness: what the API needs to serve (Neo4j, Temporal, S3, the embedder warmed at
        start-up). The LLM is reported under `degraded` and never makes this 503."""
        resources: Resources = request.app.state.resources
        checks = await readiness(
            _needs(resources, request.app.state.embedder_warm), settings.api_readiness_timeout_s
        )
        llm = await request.app.state.llm_watch.current()
        ready = all(c.ok for c in checks)
        return JSONResponse(
            status_code=200 if ready else 503,
            content={
                "ready": ready,
                "checks": [c.model_dump() for c in checks],
                "degraded": [] if llm.ok else [llm.model_dump()],
            },
        )

    @app.get(
        "/healthz/llm",
        tags=["operations"],
        responses={503: {"description": "The model server is down (the API still serves)."}},
    )
    async def healthz_llm(request: Request) -> JSONResponse:
        """The model server, as last probed (every `api_llm_probe_interval_s`): 503 while it
        is down. Only prose context and refine/llm extraction need it."""
        llm = await request.app.state.llm_watch.current()
        return JSONResponse(status_code=200 if llm.ok else 503, content=llm.model_dump())

    @app.get("/metrics", tags=["operations"], include_in_schema=False)
    async def metrics() -> Response:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    return app
