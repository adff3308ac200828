"""Encrypts every Temporal payload (AES-256-GCM) before it leaves the process.

Activity inputs and results carry message text and memory contents, and Temporal keeps them in
workflow history for the namespace's retention period. With this codec the server, its database
and its UI only ever hold ciphertext. The newest key encrypts; every configured key decrypts
(the key id travels in the payload's metadata), so keys rotate by prepending a new one and
dropping the old one after the retention period. Payloads written before encryption was
enabled still decode. See docs/operations.md, "Temporal payload encryption".
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hashlib
import os
from collections.abc import Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from temporalio.api.common.v1 import Payload
from temporalio.converter import DataConverter, PayloadCodec

ENCODING = b"binary/selfimprint-aes256gcm"
_KEY_ID = "selfimprint-key-id"
_NONCE_BYTES = 12


class PayloadKeyError(ValueError):
    """A payload key is malformed, or a payload's key is not configured."""


class PayloadTamperedError(ValueError):
    """A payload did not authenticate: tampered, or encrypted by another key with the same id."""


def _key_id(key: bytes) -> str:
    # Not secret: names the key so that decoding picks the right one after a rotation.
    return hashlib.sha256(b"selfimprint-payload-key\x00" + key).hexdigest()[:16]


def parse_keys(text: str) -> list[bytes]:
    keys = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            key = base64.b64decode(part, validate=True)
        except binascii.Error as exc:
            raise PayloadKeyError("a Temporal payload key is not valid base64") from exc
        if len(key) != 32:
            raise PayloadKeyError(f"a Temporal payload key has {len(key)} bytes, expected 32")
        keys.append(key)
    if not keys:
        raise PayloadKeyError("no Temporal payload key configured")
    return keys


class EncryptingCodec(PayloadCodec):
    def __init__(self, keys: Sequence[bytes]) -> None:
        if not keys:
            raise PayloadKeyError("no Temporal payload key configured")
        self._encrypt_id = _key_id(keys[0])
        self._ciphers = {_key_id(k): AESGCM(k) for k in keys}

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        cipher = self._ciphers[self._encrypt_id]
        out = []
        for payload in payloads:
            nonce = os.urandom(_NONCE_BYTES)
            # The key id is associated data: swapping it for another key's id fails to decrypt.
            sealed = cipher.encrypt(nonce, payload.SerializeToString(), self._encrypt_id.encode())
            out.append(
                Payload(
                    metadata={"encoding": ENCODING, _KEY_ID: self._encrypt_id.encode()},
                    data=nonce + sealed,
                )
            )
        return out

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        out = []
        for payload in payloads:
            if payload.metadata.get("encoding") != ENCODING:
                out.append(payload)  # written before encryption was turned on
                continue
            key_id = payload.metadata.get(_KEY_ID, b"").decode()
            cipher = self._ciphers.get(key_id)
            if cipher is None:
                raise PayloadKeyError(
                    f"payload encrypted with key {key_id!r}, which is not configured "
                    "(SELFIMPRINT_TEMPORAL_PAYLOAD_KEYS)"
                )
            nonce, sealed = payload.data[:_NONCE_BYTES], payload.data[_NONCE_BYTES:]
            try:
                plain = cipher.decrypt(nonce, sealed, key_id.encode())
            except InvalidTag as exc:
                raise PayloadTamperedError("a Temporal payload failed authentication") from exc
            out.append(Payload.FromString(plain))
        return out


def with_encryption(converter: DataConverter, keys: Sequence[bytes]) -> DataConverter:
    return dataclasses.replace(converter, payload_codec=EncryptingCodec(keys))
