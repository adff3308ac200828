"""Every error the API returns is JSON with a stable machine-readable code:
`{"error": {"code": "...", "message": "...", "details": ...}}`. Bad input is a 4xx, never a 500."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from neo4j.exceptions import ServiceUnavailable, SessionExpired
from pydantic import BaseModel, ConfigDict, Field
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


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str = Field(description="Stable, machine-readable: branch on this, not on the text.")
    message: str = Field(description="For people; may change between versions.")
    details: Any = Field(
        default=None, description="Per code: the invalid fields, the conflicting ids, ..."
    )


class ErrorBody(BaseModel):
    """The body of every 4xx and 5xx answer (issue 36: one model for handlers and schema)."""

    model_config = ConfigDict(extra="forbid")

    error: ErrorDetail


def error_body(code: str, message: str, details: Any = None) -> dict[str, Any]:
    """An `ErrorBody` as JSON (`details` only when there are any)."""
    body: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        body["details"] = details
    return {"error": body}


ErrorCode = tuple[int, str]

UNAUTHORIZED: ErrorCode = (401, "unauthorized")
UNKNOWN_USER: ErrorCode = (404, "unknown_user")
TOO_LARGE: ErrorCode = (413, "payload_too_large")
INVALID: ErrorCode = (422, "invalid_request")
STORE_DOWN: ErrorCode = (503, "store_unavailable")
ORCHESTRATOR_UNAVAILABLE: ErrorCode = (503, ORCHESTRATOR_DOWN[0])
# What any /v1 route can answer: the key, its path and query checked, a dependency down.
EVERY_ROUTE = (UNAUTHORIZED, INVALID, STORE_DOWN, ORCHESTRATOR_UNAVAILABLE)
# What a route taking a body can answer besides.
WITH_BODY = (TOO_LARGE,)


def documented(*errors: ErrorCode) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI `responses` of these error codes: one entry per status, `ErrorBody` typed,
    its description naming the codes a client can branch on."""
    codes: dict[int, list[str]] = defaultdict(list)
    for status, code in errors:
        if code not in codes[status]:
            codes[status].append(code)
    return {
        status: {
            "model": ErrorBody,
            "description": "error.code: " + ", ".join(names),
            "x-error-codes": names,
        }
        for status, names in sorted(codes.items())
    }


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
