"""Temporal payload encryption: round trip, rotation, tampering, unknown keys, plain payloads."""

from __future__ import annotations

import base64
import os

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.contrib.pydantic import pydantic_data_converter

from selfimprint.adapters.payload_codec import (
    ENCODING,
    EncryptingCodec,
    PayloadKeyError,
    PayloadTamperedError,
    parse_keys,
    with_encryption,
)

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
