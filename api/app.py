"""FastAPI application factory. Routes for memories arrive with the API issue; this holds the
operational endpoints every deployment needs from day one."""

from __future__ import annotations

from fastapi import FastAPI, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

import selfimprint
from api.health import check_all
from selfimprint.config import Settings


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    app = FastAPI(
        title="SelfImprint",
        version=selfimprint.__version__,
        description="Long-term memory for conversational assistants.",
    )

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
