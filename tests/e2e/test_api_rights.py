"""A user's rights through the API: see, correct, forget, export, delete."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from selfimprint.adapters.neo4j import open_driver
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.neo4j.message_log import MessageLogs
from selfimprint.adapters.temporal import connect
from selfimprint.client import ApiError, SelfImprintClient
from selfimprint.config import Settings
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.users import UserProfile, UserScope
from tests.e2e.helpers import wait_extracted

pytestmark = pytest.mark.e2e


async def finished(client: SelfImprintClient, operation_id: str) -> dict[str, Any]:
    """The deletion's status once it has completed (up to two minutes)."""
    for _ in range(120):
        status = await client.operation(operation_id)
        if status["status"] == "completed":
            return status
        await asyncio.sleep(1)
    raise AssertionError(f"{operation_id} still {status['status']}")


async def forget_workflows(settings: Settings, scope: UserScope) -> int:
    """How many forget workflows the user has (visibility is eventually consistent: waits for
    at least one, up to ten seconds)."""
    temporal = await connect(settings)
    prefix = f"forget-{scope.tenant_id}-{scope.user_id}-"
    query = 'WorkflowType = "ForgetTopicWorkflow"'
    found: list[str] = []
    for _ in range(20):
        found = [w.id async for w in temporal.list_workflows(query) if w.id.startswith(prefix)]
        if found:
            break
        await asyncio.sleep(0.5)
    return len(found)


async def test_correct_forget_export_and_delete(
    stack_settings: Settings, client: SelfImprintClient, tenant_key: str
) -> None:
    user = f"rights-{uuid.uuid4().hex[:6]}"
    scope = UserScope(tenant_key.split("_")[1], user)
    await client.put_user(user, UserProfile())
    sent = datetime.now(UTC) - timedelta(minutes=1)
    await client.post_messages(
        user,
        [
            Message(id="r1", role=Role.USER, text="I play chess at the Lisbon club.", sent_at=sent),
            Message(id="r2", role=Role.USER, text="My brother Tomas is a nurse.", sent_at=sent),
        ],
    )
    driver = open_driver(stack_settings)
    try:
        await wait_extracted(MessageLogs(driver, stack_settings.neo4j_database), scope, 300)
    finally:
        await driver.close()
    memories = await client.memories(user)
    assert memories

    # Correct and pin one memory; it keeps its sources.
    first = memories[0]
    fixed = await client.patch_memory(
        user, first["id"], content="Plays chess every Sunday.", pinned=True
    )
    assert fixed["content"] == "Plays chess every Sunday." and fixed["is_pinned"]
    assert fixed["sources"] == first["sources"]
    with pytest.raises(ApiError) as err:
        await client.patch_memory(user, first["id"])
    assert (err.value.status, err.value.code) == (422, "empty_correction")

    # Forget: a dry run lists, the real run removes.
    preview = await client.forget(user, "chess", dry_run=True)
    assert preview["dry_run"] and any("chess" in m["content"] for m in preview["memories"])
    assert any(m["id"] == first["id"] for m in await client.memories(user))
    done = await client.forget(user, "chess", dry_run=False)
    assert {m["id"] for m in done["memories"]} == {m["id"] for m in preview["memories"]}
    # The dry run was answered by the API: the only forget workflow is the real one (issue 37:
    # a topic the user only looked at never enters Temporal's history).
    assert await forget_workflows(stack_settings, scope) == 1
    assert all("chess" not in m["content"].lower() for m in await client.memories(user))
    # DELETE of a memory the forget already removed: gone is gone, 204 (issue 36).
    await client.delete_memory(user, first["id"])

    exported = await client.export(user)
    assert exported["user_id"] == user and exported["tier"] == "hot"
    assert {n["id"] for n in exported["graph"]["nodes"]} == {
        m["id"] for m in await client.memories(user, limit=500)
    }

    # Delete: 202 + operation id, then the user is gone everywhere.
    operation = await client.delete_user(user)
    assert operation["status"] == "running"
    report = (await finished(client, operation["operation_id"]))["result"]
    assert report["profile_deleted"] and report["key_destroyed"] is not None
    assert report["messages_deleted"] == 2
    with pytest.raises(ApiError) as err:
        await client.memories(user)
    assert (err.value.status, err.value.code) == (404, "unknown_user")
    # A message for the erased user is refused and starts no new lifecycle.
    late = Message(id="late", role=Role.USER, text="Still there?", sent_at=datetime.now(UTC))
    with pytest.raises(ApiError) as err:
        await client.post_messages(user, [late])
    assert (err.value.status, err.value.code) == (404, "unknown_user")
    with pytest.raises(ApiError) as err:
        await client.request("GET", "/v1/operations/delete-someoneelse-x")
    assert err.value.code == "unknown_operation"


async def test_a_deletion_interrupted_after_marking_the_user_can_be_retried(
    client: SelfImprintClient, stack_settings: Settings, tenant_key: str
) -> None:
    """DELETE marks the profile first, then starts the workflow: if Temporal refused the
    start (503), the retry must not answer 404 for a user that is only marked."""
    user = f"u-{uuid.uuid4().hex[:8]}"
    await client.put_user(user, UserProfile())
    driver = open_driver(stack_settings)
    try:
        accounts = Neo4jAccounts(driver, stack_settings.neo4j_database)
        assert await accounts.mark_deleting(UserScope(tenant_key.split("_")[1], user))
    finally:
        await driver.close()
    with pytest.raises(ApiError) as err:
        await client.memories(user)
    assert err.value.status == 404  # for everything else the user is gone already
    operation = await client.delete_user(user)
    assert operation["status"] == "running"
    assert (await finished(client, operation["operation_id"]))["result"]["profile_deleted"]
