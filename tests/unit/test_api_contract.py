"""The API's documented contract (issue 36): every error answer is an `ErrorBody`, every route
documents the errors it can answer, and docs/api.md's endpoint table is the schema's."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi import FastAPI, Query
from fastapi.testclient import TestClient
from pydantic import BaseModel

from api.app import create_app
from api.errors import ApiError, ErrorBody, install_error_handlers
from api.limits import BodySizeLimit
from tests.unit.scripts import load_script

pytestmark = pytest.mark.unit

REFERENCE = load_script("api_reference")
SCHEMA = REFERENCE.current_schema()
ERROR_REF = "#/components/schemas/ErrorBody"


def _operations() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, operation)
        for path, operations in SCHEMA["paths"].items()
        for method, operation in operations.items()
    ]


def test_the_endpoint_table_is_the_schemas() -> None:
    doc = REFERENCE.DOC.read_text()
    assert doc == REFERENCE.with_table(doc, REFERENCE.render_table(SCHEMA)), (
        "run scripts/api_reference.py"
    )


def test_every_v1_route_documents_its_errors_as_error_bodies() -> None:
    v1 = [(m, p, o) for m, p, o in _operations() if p.startswith("/v1/")]
    assert len(v1) >= 20
    for method, path, operation in v1:
        responses = operation["responses"]
        assert {"401", "422", "503"} <= set(responses), (method, path)
        assert operation.get("description"), (method, path)
        for status, response in responses.items():
            if int(status) < 400:
                continue
            schema = response["content"]["application/json"]["schema"]
            assert schema == {"$ref": ERROR_REF}, (method, path, status)
            assert response["x-error-codes"], (method, path, status)
    # FastAPI's own validation shape is not what the server answers.
    assert "HTTPValidationError" not in SCHEMA["components"]["schemas"]


def test_a_request_body_route_documents_413() -> None:
    for method, path, operation in _operations():
        if "requestBody" in operation:
            assert "413" in operation["responses"], (method, path)


class _Body(BaseModel):
    n: int


def _app() -> FastAPI:
    app = FastAPI()
    install_error_handlers(app)
    app.add_middleware(BodySizeLimit, max_bytes=64)

    @app.post("/items")
    async def items(body: _Body, limit: int = Query(ge=1)) -> dict[str, int]:
        if body.n == 7:
            raise ApiError(409, "conflict_code", "seven is taken", {"ids": ["7"]})
        if body.n == 8:
            raise RuntimeError("a bug")
        return {"n": body.n}

    return app


def test_every_handler_answers_an_error_body() -> None:
    client = TestClient(_app(), raise_server_exceptions=False)
    answers = {
        "api_error": client.post("/items?limit=1", json={"n": 7}),
        "validation": client.post("/items?limit=0", json={"n": "x"}),
        "unknown_path": client.get("/nowhere"),
        "wrong_method": client.get("/items"),
        "too_large": client.post("/items?limit=1", content=b"{" + b" " * 100 + b"}"),
        "bug": client.post("/items?limit=1", json={"n": 8}),
    }
    statuses = {name: r.status_code for name, r in answers.items()}
    assert statuses == {
        "api_error": 409,
        "validation": 422,
        "unknown_path": 404,
        "wrong_method": 405,
        "too_large": 413,
        "bug": 500,
    }
    bodies = {name: ErrorBody.model_validate(r.json()) for name, r in answers.items()}
    assert bodies["api_error"].error.details == {"ids": ["7"]}
    assert bodies["validation"].error.code == "invalid_request"
    assert {tuple(e["loc"]) for e in bodies["validation"].error.details} == {
        ("query", "limit"),
        ("body", "n"),
    }
    assert bodies["bug"].error.code == "internal"


def test_the_docs_pages_load_only_assets_the_api_serves() -> None:
    """/docs and /redoc render offline: every script and style sheet they load is served by the
    API itself, from the packaged assets (issue 36)."""
    client = TestClient(create_app())  # no lifespan: the pages need no resources
    for page in ("/docs", "/redoc"):
        html = client.get(page).text
        assert "cdn" not in html.lower() and "https://" not in html, page
        urls = re.findall(r'(?:src|href)="([^"]+)"|url: *[\'"]([^\'"]+)[\'"]', html)
        loaded = {a or b for a, b in urls} - {"/openapi.json"}
        assert loaded, page
        for url in loaded:
            answer = client.get(url)
            assert answer.status_code == 200, (page, url)
            assert len(answer.content) > 1000, (page, url)


def test_the_typescript_client_has_a_method_for_every_route() -> None:
    """clients/typescript calls each route by its schema template (`this.call("GET",
    "/v1/users/{user_id}", ...)`): a route without a method, or a method whose route the
    schema no longer has, fails here."""
    source = (REFERENCE.ROOT / "clients" / "typescript" / "src" / "index.ts").read_text()
    called = set(re.findall(r'this\.call\(\s*"([A-Z]+)",\s*"([^"]+)"', source))
    routes = {(m.upper(), p) for m, p, _ in _operations() if p.startswith("/v1/")}
    assert routes - called == set(), "routes without a TypeScript client method"
    assert called - routes == set(), "TypeScript client methods for routes the API lacks"


def test_the_typescript_clients_schema_copy_is_current() -> None:
    copy = REFERENCE.SCHEMA_COPY.read_text()
    assert copy == REFERENCE.schema_text(SCHEMA), "run scripts/api_reference.py"
