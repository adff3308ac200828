"""Erasure reaches Temporal's histories (issue 37): every payload of a user's workflows is
encrypted under a key derived from that user's data key, so once the erasure has destroyed the
key, the histories Temporal keeps until its retention ends can no longer be read, while the
rest of the namespace still can."""

from __future__ import annotations

import asyncio
import base64
import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.client import Client

from selfimprint.adapters.neo4j import open_driver
from selfimprint.adapters.neo4j.message_log import MessageLogs
from selfimprint.adapters.payload_codec import USER_ENCODING, PayloadErasedError
from selfimprint.adapters.temporal import connect, data_converter
from selfimprint.client import SelfImprintClient
from selfimprint.config import Settings
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.users import Tier, UserProfile, UserScope
from tests.e2e.helpers import move_tier, wait_extracted
from tests.e2e.test_api_rights import finished
from workflows.ids import lifecycle_workflow_id

pytestmark = pytest.mark.e2e

TOPIC = "the blue flowerpot by the door"


# Not codec payloads: search attributes are indexed by the server, so they stay plain (ids,
# tier, status: docs/operations.md), headers carry trace context, and the SDK's own patch
# markers hold a patch's name.
_UNENCODED = frozenset({"searchAttributes", "header"})
_PATCH_MARKER = "core_patch"


def _payloads(node: Any) -> list[Payload]:
    """Every codec payload in a history's JSON (metadata and data in base64)."""
    if isinstance(node, dict):
        if isinstance(node.get("metadata"), dict) and isinstance(node.get("data"), str):
            metadata = {k: base64.b64decode(v) for k, v in node["metadata"].items()}
            return [Payload(metadata=metadata, data=base64.b64decode(node["data"]))]
        if node.get("markerName") == _PATCH_MARKER:
            return []
        return [p for k, value in node.items() if k not in _UNENCODED for p in _payloads(value)]
    if isinstance(node, list):
        return [p for value in node for p in _payloads(value)]
    return []


async def _user_histories(temporal: Client, scope: UserScope) -> dict[str, list[Payload]]:
    """The payloads of the user's lifecycle and forget workflows, by workflow id."""
    forget_prefix = f"forget-{scope.tenant_id}-{scope.user_id}-"
    ids = [lifecycle_workflow_id(scope.tenant_id, scope.user_id)]
    for _ in range(20):  # visibility is eventually consistent
        found = [
            w.id
            async for w in temporal.list_workflows('WorkflowType = "ForgetTopicWorkflow"')
            if w.id.startswith(forget_prefix)
        ]
        if found:
            ids += found
            break
        await asyncio.sleep(0.5)
    histories = {}
    for workflow_id in ids:
        history = await temporal.get_workflow_handle(workflow_id).fetch_history()
        histories[workflow_id] = _payloads(json.loads(history.to_json()))
    return histories


async def test_an_erased_users_histories_can_no_longer_be_read(
    stack_settings: Settings, client: SelfImprintClient, tenant_key: str
) -> None:
    user = f"shred-{uuid.uuid4().hex[:6]}"
    scope = UserScope(tenant_key.split("_")[1], user)
    await client.put_user(user, UserProfile())
    sent = datetime.now(UTC) - timedelta(minutes=1)
    await client.post_messages(
        user,
        [Message(id="s1", role=Role.USER, text=f"My spare key is under {TOPIC}.", sent_at=sent)],
    )
    driver = open_driver(stack_settings)
    try:
        await wait_extracted(MessageLogs(driver, stack_settings.neo4j_database), scope, 300)
    finally:
        await driver.close()
    done = await client.forget(user, TOPIC, dry_run=False)
    # The answer names the forgotten memory in the user's words; its workflow did not (below).
    assert any("flowerpot" in (m["content"] or "") for m in done["memories"]), done

    temporal = await connect(stack_settings)
    histories = await _user_histories(temporal, scope)
    assert len(histories) == 2, list(histories)
    owner = f"{scope.tenant_id}/{scope.user_id}".encode()
    codec = data_converter(stack_settings).payload_codec
    assert codec is not None  # encryption is on in the stack
    for workflow_id, payloads in histories.items():
        assert payloads, workflow_id
        for payload in payloads:
            # Under the user's own key, named by owner; the words never in the clear.
            assert payload.metadata["encoding"] == USER_ENCODING, (workflow_id, payload)
            assert payload.metadata["selfimprint-owner"] == owner, workflow_id
            assert b"flowerpot" not in payload.data
        readable = [p.data for p in await codec.decode(payloads)]
        assert len(readable) == len(payloads), workflow_id
        if workflow_id.startswith("forget-"):
            # Issue 37: neither the topic nor the forgotten memory's words, even decrypted.
            assert not [d for d in readable if b"flowerpot" in d], workflow_id
            assert any(b'"memories"' in d for d in readable), workflow_id
    await _the_topic_stays_out_of_the_forgets_input(temporal, stack_settings, scope, histories)

    operation = await client.delete_user(user)
    report = (await finished(client, operation["operation_id"]))["result"]
    assert report["key_destroyed"]

    # A fresh codec (nothing cached), as any process or the codec server would read them now.
    after = data_converter(stack_settings).payload_codec
    assert after is not None
    for workflow_id, payloads in (await _user_histories(temporal, scope)).items():
        for payload in payloads:
            with pytest.raises(PayloadErasedError):
                await after.decode([payload])
        assert payloads, workflow_id
    # The erasure's own history is under the deployment's key (no single user's): still read.
    deletion = await temporal.get_workflow_handle(operation["operation_id"]).fetch_history()
    own = _payloads(json.loads(deletion.to_json()))
    assert own and all(p.metadata["encoding"] != USER_ENCODING for p in own)
    assert await after.decode(own)


async def _the_topic_stays_out_of_the_forgets_input(
    temporal: Client, settings: Settings, scope: UserScope, histories: dict[str, list[Payload]]
) -> None:
    """Issue 37: the forget's input names its topic by a staged reference, and the stage
    leaves Neo4j once the user's lifecycle knows no replay needs it."""
    (forget_id,) = [w for w in histories if w.startswith("forget-")]
    history = await temporal.get_workflow_handle(forget_id).fetch_history()
    started = history.events[0].workflow_execution_started_event_attributes
    codec = data_converter(settings).payload_codec
    assert codec is not None
    (given,) = await codec.decode(list(started.input.payloads))
    assert b"flowerpot" not in given.data
    assert json.loads(given.data)["topic_ref"]["run_id"] == f"{forget_id}-topic"
    driver = open_driver(settings)
    try:
        for _ in range(60):
            records, _, _ = await driver.execute_query(
                "MATCH (s:PayloadStage {scope: $scope}) WHERE s.run_id ENDS WITH '-topic' "
                "RETURN count(s) AS n",
                scope=scope.key,
                database_=settings.neo4j_database,
            )
            if records[0]["n"] == 0:
                break
            await asyncio.sleep(1.0)
        assert records[0]["n"] == 0, "the staged topic was not dropped"
    finally:
        await driver.close()


def _hits(root: Path, marker: bytes) -> list[str]:
    """Files under `root` whose bytes hold `marker`."""
    return sorted(
        str(path.relative_to(root))
        for path in root.rglob("*")
        if path.is_file() and marker in path.read_bytes()
    )


async def test_a_users_words_are_in_no_file_of_temporal_or_the_object_store(
    stack_settings: Settings, client: SelfImprintClient, tenant_key: str
) -> None:
    """Bytes on disk (issue 37): Temporal's database and the object store's data directory
    hold only ciphertext of a user's words, with the graph archived and after the erasure. The
    same search finds them in Neo4j's files before the erasure (the control: the words were
    written, and the search reads plaintext where there is some), and in none of them after:
    the erasure overwrites the freed records, merges the full-text index and prunes the
    transaction log (`selfimprint.store.flushDeleted`, docs/tiers.md)."""
    tenant, user = tenant_key.split("_")[1], f"disk-{uuid.uuid4().hex[:6]}"
    marker = f"quokka{uuid.uuid4().hex[:10]}".encode()
    scope = UserScope(tenant, user)
    await client.put_user(user, UserProfile())
    sent = datetime.now(UTC) - timedelta(minutes=1)
    text = f"My locker code at the climbing gym is {marker.decode()}."
    await client.post_messages(user, [Message(id="d1", role=Role.USER, text=text, sent_at=sent)])
    driver = open_driver(stack_settings)
    try:
        await wait_extracted(MessageLogs(driver, stack_settings.neo4j_database), scope, 300)
    finally:
        await driver.close()
    assert any(marker.decode() in m["content"] for m in await client.memories(user))
    moved = await move_tier(stack_settings, scope, Tier.WARM)
    assert moved.tier is Tier.WARM and moved.moved  # the graph is now an object in S3

    data = stack_settings.data_dir
    assert (data / "temporal" / "temporal.sqlite").stat().st_size > 0
    assert any(p.is_file() for p in (data / "seaweedfs" / "data").rglob("*"))
    assert _hits(data / "neo4j", marker)  # the control: Neo4j's files hold the plaintext
    assert _hits(data / "temporal", marker) == []
    assert _hits(data / "seaweedfs", marker) == []
    operation = await client.delete_user(user)
    await finished(client, operation["operation_id"])
    assert _hits(data / "temporal", marker) == []
    assert _hits(data / "seaweedfs", marker) == []
    assert _hits(data / "neo4j", marker) == []


async def test_a_forgotten_memorys_words_are_in_no_file_of_neo4j(
    stack_settings: Settings, client: SelfImprintClient, tenant_key: str
) -> None:
    """Bytes on disk after a forget (issue 37): the forget removes the memory and redacts its
    message, then flushes Neo4j's files (`selfimprint.store.flushDeleted`): no store file,
    index segment or transaction log holds the forgotten words, while the user's other words
    are still there. Rule removed (`SELFIMPRINT_NEO4J_FLUSH_DELETED=false`), the transaction
    log keeps them."""
    tenant, user = tenant_key.split("_")[1], f"forget-disk-{uuid.uuid4().hex[:6]}"
    forgotten, kept = (f"{word}{uuid.uuid4().hex[:10]}".encode() for word in ("wombat", "koala"))
    scope = UserScope(tenant, user)
    await client.put_user(user, UserProfile())
    sent = datetime.now(UTC) - timedelta(minutes=1)
    messages = [
        Message(
            id="g1",
            role=Role.USER,
            text=f"My locker code at the climbing gym is {forgotten.decode()}.",
            sent_at=sent,
        ),
        Message(
            id="k1",
            role=Role.USER,
            text=f"My sister's cat is called {kept.decode()} and sleeps all day.",
            sent_at=sent,
        ),
    ]
    await client.post_messages(user, messages)
    driver = open_driver(stack_settings)
    try:
        await wait_extracted(MessageLogs(driver, stack_settings.neo4j_database), scope, 300)
    finally:
        await driver.close()
    neo4j_dir = stack_settings.data_dir / "neo4j"
    assert _hits(neo4j_dir, forgotten)  # the control: written in plaintext
    report = await client.forget(user, "climbing gym", dry_run=False)
    assert report["memories"], report
    assert all(forgotten.decode() not in m["content"] for m in await client.memories(user))
    assert _hits(neo4j_dir, forgotten) == []
    assert _hits(neo4j_dir, kept)  # what the user did not forget is still stored
