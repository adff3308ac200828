"""Temporal payload encryption: round trip, rotation, tampering, unknown keys, plain payloads,
and per-user keys (issue 37)."""

from __future__ import annotations

import base64
import os

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.converter import ActivitySerializationContext, WorkflowSerializationContext

from selfimprint.adapters.crypto import InMemoryDataKeyStore, LocalKek
from selfimprint.adapters.payload_codec import (
    ENCODING,
    USER_ENCODING,
    DataKeyPayloadKeys,
    EncryptingCodec,
    PayloadErasedError,
    PayloadKeyError,
    PayloadTamperedError,
    parse_keys,
    with_encryption,
)
from selfimprint.domain.workflow_owner import WorkflowOwner

OLD, NEW = os.urandom(32), os.urandom(32)
SECRET = b"I am nervous about the interview on Friday"


def payload(data: bytes = SECRET) -> Payload:
    return Payload(metadata={"encoding": b"json/plain"}, data=data)


async def test_round_trip_hides_the_content() -> None:
    codec = EncryptingCodec([NEW])
    [sealed] = await codec.encode([payload()])
    assert sealed.metadata["encoding"] == ENCODING
    assert SECRET not in sealed.SerializeToString()
    assert await codec.decode([sealed]) == [payload()]


async def test_rotation_reads_old_payloads_and_writes_with_the_new_key() -> None:
    [old_sealed] = await EncryptingCodec([OLD]).encode([payload()])
    rotated = EncryptingCodec([NEW, OLD])
    assert await rotated.decode([old_sealed]) == [payload()]
    [new_sealed] = await rotated.encode([payload()])
    assert await EncryptingCodec([NEW]).decode([new_sealed]) == [payload()]
    with pytest.raises(PayloadKeyError, match="not configured"):
        await EncryptingCodec([NEW]).decode([old_sealed])


async def test_tampering_is_detected() -> None:
    codec = EncryptingCodec([NEW])
    [sealed] = await codec.encode([payload()])
    flipped = bytearray(sealed.data)
    flipped[-1] ^= 1
    sealed.data = bytes(flipped)
    with pytest.raises(PayloadTamperedError):
        await codec.decode([sealed])


async def test_payloads_from_before_encryption_still_decode() -> None:
    assert await EncryptingCodec([NEW]).decode([payload()]) == [payload()]


async def test_the_converter_encrypts_pydantic_values() -> None:
    converter = with_encryption(pydantic_data_converter, [NEW])
    [sealed] = await converter.encode([{"text": SECRET.decode()}])
    assert SECRET not in sealed.SerializeToString()
    assert await converter.decode([sealed]) == [{"text": SECRET.decode()}]


def test_keys_are_validated() -> None:
    good = base64.b64encode(NEW).decode()
    assert parse_keys(f"{good}, {base64.b64encode(OLD).decode()}") == [NEW, OLD]
    for bad, message in (("", "no Temporal"), ("%%%", "base64"), ("AAAA", "3 bytes")):
        with pytest.raises(PayloadKeyError, match=message):
            parse_keys(bad)


# --- per-user keys (issue 37) -------------------------------------------------------------


def user_codec() -> tuple[EncryptingCodec, InMemoryDataKeyStore]:
    store = InMemoryDataKeyStore(LocalKek(os.urandom(32)))
    return EncryptingCodec([NEW], DataKeyPayloadKeys(store, ttl_s=0)), store


def of(workflow_id: str) -> WorkflowSerializationContext:
    return WorkflowSerializationContext(namespace="default", workflow_id=workflow_id)


async def test_a_users_workflow_is_encrypted_under_that_users_key() -> None:
    codec, store = user_codec()
    [sealed] = await codec.with_context(of("user-t1-anna-maria")).encode([payload()])
    assert sealed.metadata["encoding"] == USER_ENCODING
    assert sealed.metadata["selfimprint-owner"] == b"t1/anna-maria"
    assert SECRET not in sealed.SerializeToString()
    store.get("t1", "anna-maria")  # made on first use
    # Decoding needs no context (the codec server, an old history): the owner travels along.
    assert await codec.decode([sealed]) == [payload()]
    # The deployment's key alone cannot read it.
    with pytest.raises(PayloadKeyError, match="no user keys"):
        await EncryptingCodec([NEW]).decode([sealed])


async def test_an_activity_of_a_users_workflow_uses_the_users_key_others_the_deployments() -> None:
    codec, _ = user_codec()
    activity = ActivitySerializationContext(
        namespace="default",
        activity_id="1",
        activity_type="extract",
        activity_task_queue="gpu",
        workflow_id="sleep-t1-u1-20261205T030000-1",
        workflow_type="SleepPhaseWorkflow",
        is_local=False,
    )
    [sealed] = await codec.with_context(activity).encode([payload()])
    assert sealed.metadata["selfimprint-owner"] == b"t1/u1"
    [plain] = await codec.with_context(of("delete-t1-u1")).encode([payload()])
    assert plain.metadata["encoding"] == ENCODING
    [no_context] = await codec.encode([payload()])
    assert no_context.metadata["encoding"] == ENCODING


async def test_destroying_the_users_data_key_shreds_their_payloads_only() -> None:
    codec, store = user_codec()
    [annas] = await codec.with_context(of("user-t1-anna")).encode([payload()])
    [bens] = await codec.with_context(of("user-t1-ben")).encode([payload()])
    assert store.destroy("t1", "anna")
    with pytest.raises(PayloadErasedError, match="t1/anna"):
        await codec.decode([annas])
    assert await codec.decode([bens]) == [payload()]


async def test_a_payload_moved_to_another_owner_does_not_decrypt() -> None:
    codec, _ = user_codec()
    [annas] = await codec.with_context(of("user-t1-anna")).encode([payload()])
    await codec.with_context(of("user-t1-ben")).encode([payload()])  # ben has a key too
    annas.metadata["selfimprint-owner"] = b"t1/ben"
    with pytest.raises(PayloadTamperedError):
        await codec.decode([annas])


async def test_derived_keys_are_cached_for_their_ttl_only() -> None:
    store = InMemoryDataKeyStore(LocalKek(os.urandom(32)))
    now = [0.0]
    keys = DataKeyPayloadKeys(store, ttl_s=60, clock=lambda: now[0])
    anna = WorkflowOwner("t1", "anna")
    made = await keys.key(anna, create=True)
    store.destroy("t1", "anna")
    now[0] = 59.0
    assert await keys.key(anna, create=False) == made  # within the TTL: still cached
    now[0] = 60.0
    assert await keys.key(anna, create=False) is None  # then gone
