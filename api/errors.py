"""Every error the API returns is JSON with a stable machine-readable code:
`{"error": {"code": "...", "message": "...", "details": ...}}`. Bad input is a 4xx, never a 500."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from neo4j.exceptions import ServiceUnavailable, SessionExpired
from starlette.exceptions import HTTPException as StarletteHTTPException
from temporalio.service import RPCError, RPCStatusCode

from selfimprint.logging import get_logger

log = get_logger(__name__)


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, details: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details


ORCHESTRATOR_DOWN = ("orchestrator_unavailable", "Temporal cannot be reached; retry the same call")


def error_body(code: str, message: str, details: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        body["details"] = details
    return {"error": body}


_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    503: "unavailable",
}


def _jsonable_errors(exc: RequestValidationError) -> list[dict[str, Any]]:
    # Pydantic puts the offending input in each error; echoing a 1 MB text back helps no one.
    out = []
    for err in exc.errors():
        out.append(
            {
                "loc": [str(p) for p in err.get("loc", ())],
                "msg": str(err.get("msg", "")),
                "type": str(err.get("type", "")),
            }
        )
    return out


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(_: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(
            status_code=exc.status, content=error_body(exc.code, exc.message, exc.details)
        )

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(
            status_code=422,
            content=error_body(
                "invalid_request", "the request is not valid", _jsonable_errors(exc)
            ),
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, "error")
        return JSONResponse(status_code=exc.status_code, content=error_body(code, str(exc.detail)))

    # A dependency that cannot be reached is the server's problem but not a bug: 503, so that
    # clients retry, with a code that says which one.
    @app.exception_handler(RPCError)
    async def temporal_error(request: Request, exc: RPCError) -> JSONResponse:
        if exc.status not in (RPCStatusCode.UNAVAILABLE, RPCStatusCode.DEADLINE_EXCEEDED):
            return await unexpected(request, exc)
        log.warning("api.temporal_unavailable", path=request.url.path, error=str(exc))
        return JSONResponse(status_code=503, content=error_body(*ORCHESTRATOR_DOWN))

    @app.exception_handler(ServiceUnavailable)
    @app.exception_handler(SessionExpired)
    async def neo4j_error(request: Request, exc: Exception) -> JSONResponse:
        log.warning("api.neo4j_unavailable", path=request.url.path, error=str(exc))
        return JSONResponse(
            status_code=503,
            content=error_body("store_unavailable", "the graph store cannot be reached; retry"),
        )

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("api.unhandled", path=request.url.path)
        return JSONResponse(
            status_code=500, content=error_body("internal", "internal error; it has been logged")
        )
