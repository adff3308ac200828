"""What the server really answers is what its schema documents (issue 36).

Every error answer is an `ErrorBody`, and every (route, status) the API answered to the e2e
suite, counted by the stack's API process (its `/metrics`) and by in-process apps (this
process's registry), is documented in `/openapi.json`. The last check runs right after the last
e2e test (`after_e2e`), so it sees what the whole e2e suite provoked; the integration suite
that follows restarts the stack, which resets the API's counters."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterable
from datetime import UTC, datetime

import httpx
import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from api.errors import ErrorBody
from selfimprint.config import Settings

pytestmark = pytest.mark.e2e

REQUESTS = "selfimprint_http_requests"
# Pages about the API, not the API: left out of the schema on purpose.
NOT_IN_SCHEMA = {
    "/metrics",
    "/openapi.json",
    "/docs",
    "/docs/oauth2-redirect",
    "/docs/assets",
    "/redoc",
}


@pytest.fixture
async def api(stack_settings: Settings, tenant_key: str) -> AsyncIterator[httpx.AsyncClient]:
    headers = {"Authorization": f"Bearer {tenant_key}"}
    async with httpx.AsyncClient(
        base_url=stack_settings.api_url, headers=headers, timeout=60
    ) as client:
        yield client


def _answered(families: Iterable[object]) -> set[tuple[str, str, str]]:
    seen = set()
    for family in families:
        for sample in getattr(family, "samples", ()):
            if sample.name == f"{REQUESTS}_total" and sample.value > 0:
                labels = sample.labels
                seen.add((labels["method"], labels["route"], labels["status"]))
    return seen


def _undocumented(
    answered: set[tuple[str, str, str]], schema: dict[str, object]
) -> list[tuple[str, str, str]]:
    paths = schema["paths"]
    assert isinstance(paths, dict)
    missing = []
    for method, route, status in sorted(answered):
        if route == "unmatched" or route in NOT_IN_SCHEMA or method == "HEAD":
            continue  # no route matched (a 404 or 405 of no route): nothing to document
        operation = paths.get(route, {}).get(method.lower())
        if operation is None or status not in operation["responses"]:
            missing.append((method, route, status))
    return missing


async def test_provoked_errors_are_error_bodies_the_schema_documents(
    api: httpx.AsyncClient,
) -> None:
    user = f"u-{uuid.uuid4().hex[:8]}"
    message = {
        "id": f"m-{uuid.uuid4().hex[:8]}",
        "role": "user",
        "text": "I moved to Porto in May.",
        "sent_at": datetime(2026, 5, 2, 9, tzinfo=UTC).isoformat(),
    }
    assert (await api.put(f"/v1/users/{user}", json={})).status_code == 200
    assert (
        await api.post(f"/v1/users/{user}/messages", json={"messages": [message]})
    ).status_code == 202
    provoked = {
        ("GET", "/v1/users/{user_id}", 401): await api.get(
            f"/v1/users/{user}", headers={"Authorization": "Bearer nope"}
        ),
        ("GET", "/v1/users/{user_id}", 404): await api.get(f"/v1/users/x{user}"),
        ("GET", "/v1/users/{user_id}/memories", 422): await api.get(
            f"/v1/users/{user}/memories", params={"limit": 0}
        ),
        ("POST", "/v1/users/{user_id}/messages", 409): await api.post(
            f"/v1/users/{user}/messages",
            json={"messages": [{**message, "text": "I moved to Lisbon in May."}]},
        ),
        ("POST", "/v1/users/{user_id}/context", 422): await api.post(
            f"/v1/users/{user}/context", json={"message": "where?", "after_message": "m-none"}
        ),
        ("GET", "/v1/users/{user_id}/memories/{memory_id}", 404): await api.get(
            f"/v1/users/{user}/memories/m-none"
        ),
        ("POST", "/v1/users/{user_id}/messages", 413): await api.post(
            f"/v1/users/{user}/messages",
            content=b'{"messages": []' + b" " * (3 * 1024 * 1024) + b"}",
            headers={"content-type": "application/json"},
        ),
    }
    schema = (await api.get("/openapi.json")).json()
    for (method, route, status), answer in provoked.items():
        assert answer.status_code == status, (method, route, answer.text)
        body = ErrorBody.model_validate(answer.json())
        documented = schema["paths"][route][method.lower()]["responses"][str(status)]
        assert body.error.code in documented["x-error-codes"], (method, route, body)


@pytest.mark.after_e2e
async def test_every_answer_to_the_e2e_suite_is_documented(stack_settings: Settings) -> None:
    async with httpx.AsyncClient(base_url=stack_settings.api_url, timeout=30) as client:
        schema = (await client.get("/openapi.json")).json()
        exposition = (await client.get("/metrics")).text
    answered = _answered(text_string_to_metric_families(exposition))
    answered |= _answered(REGISTRY.collect())
    # The previous test alone answers 200, 202, 401, 404, 409, 413 and 422.
    assert len({status for _, _, status in answered}) >= 7
    assert _undocumented(answered, schema) == []
