"""Bad input through the HTTP API gets the documented error and changes nothing."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

import httpx
import pytest

from selfimprint.adapters.neo4j import open_driver
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.neo4j.message_log import MessageLogs
from selfimprint.adapters.temporal import connect
from selfimprint.client import ApiError, SelfImprintClient
from selfimprint.config import Settings
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.users import UserProfile, UserScope
from workflows.user_lifecycle import UserLifecycleWorkflow, workflow_id

pytestmark = pytest.mark.e2e

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


@pytest.fixture
async def user(client: SelfImprintClient) -> str:
    user_id = f"u-{uuid.uuid4().hex[:8]}"
    await client.put_user(user_id, UserProfile())
    return user_id


def tenant_of(key: str) -> str:
    return key.split("_")[1]


async def message_count(settings: Settings, tenant: str, user_id: str) -> int:
    driver = open_driver(settings)
    try:
        logs = MessageLogs(driver, settings.neo4j_database)
        return await logs.for_user(UserScope(tenant, user_id)).count()
    finally:
        await driver.close()


def raw_post(settings: Settings, key: str, path: str, body: bytes) -> httpx.Response:
    return httpx.post(
        f"{settings.api_url}{path}",
        content=body,
        headers={"Authorization": f"Bearer {key}", "content-type": "application/json"},
        timeout=30,
    )


def batch(text: str, message_id: str = "m1") -> bytes:
    row = {"id": message_id, "role": "user", "text": text, "sent_at": NOW.isoformat()}
    return json.dumps({"messages": [row]}).encode()


async def test_bad_messages_are_rejected_with_codes_and_store_nothing(
    stack_settings: Settings, tenant_key: str, user: str
) -> None:
    path = f"/v1/users/{user}/messages"
    cases = {
        "empty text": (batch(""), 422, "invalid_request"),
        "whitespace text": (batch("   \n "), 422, "invalid_request"),
        "1 MB text": (batch("a" * 1_000_000), 422, "invalid_request"),
        "3 MB body": (batch("a" * 3_000_000), 413, "payload_too_large"),
        # A lone UTF-16 surrogate, as JSON lets a client send it.
        "unpaired surrogate": (
            b'{"messages":[{"id":"m1","role":"user","text":"x\\ud800y",'
            b'"sent_at":"2026-03-01T12:00:00Z"}]}',
            422,
            "invalid_request",
        ),
        "not json": (b"{nope", 422, "invalid_request"),
        "naive timestamp": (
            json.dumps(
                {"messages": [{"id": "m1", "role": "user", "text": "hi", "sent_at": "2026-03-01"}]}
            ).encode(),
            422,
            "invalid_request",
        ),
        "hostile id": (batch("hello there", "m1'}) DETACH DELETE n //"), 422, "invalid_request"),
    }
    for name, (body, status, code) in cases.items():
        answer = raw_post(stack_settings, tenant_key, path, body)
        assert answer.status_code == status, (name, answer.text[:300])
        assert answer.json()["error"]["code"] == code, name
    assert await message_count(stack_settings, tenant_of(tenant_key), user) == 0


async def test_auth_and_tenancy(stack_settings: Settings, tenant_key: str, user: str) -> None:
    path = f"/v1/users/{user}/messages"
    body = batch("I like tea.")
    no_key = httpx.post(f"{stack_settings.api_url}{path}", content=body, timeout=30)
    assert no_key.status_code == 401 and no_key.json()["error"]["code"] == "unauthorized"
    wrong = raw_post(stack_settings, "si_nobody_" + "x" * 32, path, body)
    assert wrong.status_code == 401

    # Another tenant cannot see, or write to, this tenant's user: to it the user does not exist.
    driver = open_driver(stack_settings)
    try:
        other = await Neo4jAccounts(driver, stack_settings.neo4j_database).issue_key(
            f"t{uuid.uuid4().hex[:10]}", "other tenant"
        )
    finally:
        await driver.close()
    for answer in (
        raw_post(stack_settings, other.api_key, path, body),
        raw_post(stack_settings, other.api_key, f"/v1/users/{user}/context", b'{"message":"hi"}'),
        httpx.get(
            f"{stack_settings.api_url}/v1/users/{user}/memories",
            headers={"Authorization": f"Bearer {other.api_key}"},
        ),
    ):
        assert answer.status_code == 404, answer.text
        assert answer.json()["error"]["code"] == "unknown_user"
    assert await message_count(stack_settings, tenant_of(tenant_key), user) == 0


async def test_unknown_user_is_404(client: SelfImprintClient) -> None:
    with pytest.raises(ApiError) as err:
        await client.post_messages(
            "nobody-here", [Message(id="m1", role=Role.USER, text="hi", sent_at=NOW)]
        )
    assert (err.value.status, err.value.code) == (404, "unknown_user")
    with pytest.raises(ApiError) as err:
        await client.context("nobody-here", "hello?")
    assert (err.value.status, err.value.code) == (404, "unknown_user")


async def test_same_id_different_content_is_409_and_writes_nothing(
    stack_settings: Settings, tenant_key: str, client: SelfImprintClient, user: str
) -> None:
    first = Message(id="m1", role=Role.USER, text="I live in Lisbon.", sent_at=NOW)
    accepted = await client.post_messages(user, [first])
    assert (accepted.accepted, accepted.duplicates) == (1, 0)
    again = await client.post_messages(user, [first])  # a retry is idempotent
    assert (again.accepted, again.duplicates) == (0, 1)

    changed = first.model_copy(update={"text": "I live in Porto."})
    fresh = Message(id="m2", role=Role.USER, text="I have a cat.", sent_at=NOW)
    with pytest.raises(ApiError) as err:
        await client.post_messages(user, [fresh, changed])
    assert (err.value.status, err.value.code) == (409, "message_conflict")
    assert err.value.details == {"ids": ["m1"]}
    # The whole batch was refused: m2 was not stored either.
    assert await message_count(stack_settings, tenant_of(tenant_key), user) == 1


async def test_bad_profile_and_bad_context_requests(client: SelfImprintClient, user: str) -> None:
    with pytest.raises(ApiError) as err:
        await client.request("PUT", f"/v1/users/{user}", json={"time_zone": "Mars/Olympus"})
    assert (err.value.status, err.value.code) == (422, "invalid_request")
    with pytest.raises(ApiError) as err:
        await client.request(
            "POST", f"/v1/users/{user}/context", json={"message": "hi", "budget_tokens": 5}
        )
    assert err.value.status == 422
    with pytest.raises(ApiError) as err:
        await client.request("GET", f"/v1/users/{user}/memories/does-not-exist")
    assert (err.value.status, err.value.code) == (404, "unknown_memory")


async def test_latency_critical_answers_say_where_their_time_went(
    stack_settings: Settings, tenant_key: str, user: str
) -> None:
    accepted = raw_post(stack_settings, tenant_key, f"/v1/users/{user}/messages", batch("hi"))
    assert accepted.status_code == 202, accepted.text
    parts = dict(
        item.strip().split(";dur=") for item in accepted.headers["server-timing"].split(",")
    )
    assert set(parts) == {"store"} and all(float(ms) >= 0 for ms in parts.values())
    context = raw_post(
        stack_settings, tenant_key, f"/v1/users/{user}/context", b'{"message": "hello"}'
    )
    assert context.status_code == 200, context.text
    assert {"tier", "embed", "retrieve", "assemble"} <= {
        item.strip().split(";")[0] for item in context.headers["server-timing"].split(",")
    }


async def test_feedback_reaches_the_lifecycle_once_per_id(
    stack_settings: Settings, tenant_key: str, client: SelfImprintClient, user: str
) -> None:
    assert await client.feedback(user, "fb-1") == {"id": "fb-1", "kind": "not_understood"}
    await client.feedback(user, "fb-1")  # a retry
    await client.feedback(user, "fb-2")
    temporal = await connect(stack_settings)
    handle = temporal.get_workflow_handle_for(
        UserLifecycleWorkflow.run, workflow_id(tenant_of(tenant_key), user)
    )
    state = await handle.query(UserLifecycleWorkflow.state)
    feedback = state.compaction
    assert (feedback.feedback_signals, feedback.feedback_ids) == (2, ["fb-1", "fb-2"])

    with pytest.raises(ApiError) as err:
        await client.request("POST", "/v1/users/nobody-here/feedback", json={"id": "x"})
    assert (err.value.status, err.value.code) == (404, "unknown_user")
    with pytest.raises(ApiError) as err:
        await client.request(
            "POST", f"/v1/users/{user}/feedback", json={"id": "x", "kind": "angry"}
        )
    assert (err.value.status, err.value.code) == (422, "invalid_request")
