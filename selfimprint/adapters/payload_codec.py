"""Encrypts every Temporal payload (AES-256-GCM) before it leaves the process.

Activity inputs and results carry message text and memory contents, and Temporal keeps them in
workflow history for the namespace's retention period. With this codec the server, its database
and its UI only ever hold ciphertext. The newest key encrypts; every configured key decrypts
(the key id travels in the payload's metadata), so keys rotate by prepending a new one and
dropping the old one after the retention period. Payloads written before encryption was
enabled still decode. See docs/operations.md, "Temporal payload encryption".

Per-user keys (issue 37): a payload of a user's workflow (`domain.workflow_owner`, known from
the SDK's serialization context) is encrypted instead under a key derived from that user's data
key, the one that encrypts their archived graph. Erasure destroys the data key, so from then on
the user's histories, which Temporal keeps until its retention ends, can no longer be read by
anyone: decoding raises PayloadErasedError. The owner travels in the payload's metadata, so
decoding needs no context (the codec server, an old history).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import copy
import dataclasses
import hashlib
import os
import time
from collections.abc import Callable, Sequence
from typing import Protocol, Self

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from temporalio.api.common.v1 import Payload
from temporalio.converter import (
    DataConverter,
    PayloadCodec,
    SerializationContext,
    WithSerializationContext,
)

from selfimprint.adapters.crypto import DataKeyNotFoundError
from selfimprint.domain.workflow_owner import WorkflowOwner, workflow_owner
from selfimprint.ports import DataKeyStore

ENCODING = b"binary/selfimprint-aes256gcm"
USER_ENCODING = b"binary/selfimprint-user-aes256gcm"
_KEY_ID = "selfimprint-key-id"
_OWNER = "selfimprint-owner"  # "<tenant>/<user>": ids only, as in the workflow id itself
_NONCE_BYTES = 12
_PAYLOAD_KEY_INFO = b"selfimprint temporal payload key v1"


class PayloadKeyError(ValueError):
    """A payload key is malformed, or a payload's key is not configured."""


class PayloadTamperedError(ValueError):
    """A payload did not authenticate: tampered, or encrypted by another key with the same id."""


class PayloadErasedError(PayloadKeyError):
    """A payload of a user whose data key was destroyed (erased): it can never be read again."""


class UserPayloadKeys(Protocol):
    """Each user's payload key. `create`: make the user's data key if there is none yet (an
    encode); otherwise None when there is none (never made, or destroyed by an erasure)."""

    async def key(self, owner: WorkflowOwner, *, create: bool) -> bytes | None: ...


class DataKeyPayloadKeys:
    """A user's payload key is derived (HKDF-SHA256) from their data key, so the one key the
    erasure destroys covers their archive and their Temporal payloads. Derived keys are cached
    for `ttl_s`: a process may still read or write a user's payloads that long after an
    erasure destroyed the key (the erasure's delayed sweep destroys a key made again since)."""

    def __init__(
        self,
        store: DataKeyStore,
        *,
        ttl_s: float = 60.0,
        max_cached: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._ttl_s = ttl_s
        self._max_cached = max_cached
        self._clock = clock
        self._cache: dict[WorkflowOwner, tuple[float, bytes]] = {}

    async def key(self, owner: WorkflowOwner, *, create: bool) -> bytes | None:
        now = self._clock()
        cached = self._cache.get(owner)
        if cached is not None and now - cached[0] < self._ttl_s:
            return cached[1]
        fetch = self._store.get_or_create if create else self._store.get
        try:
            # File I/O (and an fsync when made): off the event loop.
            data_key = await asyncio.to_thread(fetch, owner.tenant_id, owner.user_id)
        except DataKeyNotFoundError:
            self._cache.pop(owner, None)
            return None
        derived = HKDF(
            algorithm=hashes.SHA256(), length=32, salt=None, info=_PAYLOAD_KEY_INFO
        ).derive(data_key.material)
        if len(self._cache) >= self._max_cached:
            self._cache.pop(next(iter(self._cache)))  # the oldest entry
        self._cache[owner] = (now, derived)
        return derived


def _owner_text(owner: WorkflowOwner) -> bytes:
    return f"{owner.tenant_id}/{owner.user_id}".encode()


def _parse_owner(raw: bytes) -> WorkflowOwner:
    tenant, sep, user = raw.decode().partition("/")
    if not sep or not tenant or not user:
        raise PayloadKeyError(f"a user payload names no owner ({raw!r})")
    return WorkflowOwner(tenant, user)


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


class EncryptingCodec(PayloadCodec, WithSerializationContext):
    """The deployment's keys for payloads of no single user; with `user_keys`, the owner's key
    for a payload of a user's workflow."""

    def __init__(self, keys: Sequence[bytes], user_keys: UserPayloadKeys | None = None) -> None:
        if not keys:
            raise PayloadKeyError("no Temporal payload key configured")
        self._encrypt_id = _key_id(keys[0])
        self._ciphers = {_key_id(k): AESGCM(k) for k in keys}
        self._user_keys = user_keys
        self._owner: WorkflowOwner | None = None

    def with_context(self, context: SerializationContext) -> Self:
        # Workflow and activity contexts both name the workflow (an activity's: its caller's).
        workflow_id = getattr(context, "workflow_id", None)
        owner = None
        if self._user_keys is not None and isinstance(workflow_id, str):
            owner = workflow_owner(workflow_id)
        if owner == self._owner:
            return self
        bound = copy.copy(self)
        bound._owner = owner
        return bound

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        if self._owner is None:
            # The key id is associated data: swapping it for another key's id fails to decrypt.
            key_id = self._encrypt_id.encode()
            cipher, metadata = (
                self._ciphers[self._encrypt_id],
                {"encoding": ENCODING, _KEY_ID: key_id},
            )
            return [_seal(cipher, p, key_id, metadata) for p in payloads]
        assert self._user_keys is not None  # an owner is bound only with user keys
        key = await self._user_keys.key(self._owner, create=True)
        if key is None:  # a store that cannot create: refuse rather than fall back
            raise PayloadKeyError(f"no payload key for {_owner_text(self._owner).decode()}")
        # The owner is associated data: relabelled to another user, a payload fails to decrypt.
        owner = _owner_text(self._owner)
        metadata = {"encoding": USER_ENCODING, _OWNER: owner}
        return [_seal(AESGCM(key), p, owner, metadata) for p in payloads]

    async def _decode_user(self, payload: Payload) -> Payload:
        owner = _parse_owner(payload.metadata.get(_OWNER, b""))
        if self._user_keys is None:
            raise PayloadKeyError(
                "a payload encrypted under a user's key, and this process has no user keys "
                "(the KEK and data keys: temporal_user_payload_keys)"
            )
        key = await self._user_keys.key(owner, create=False)
        if key is None:
            raise PayloadErasedError(
                f"the data key of {owner.tenant_id}/{owner.user_id} is gone (erased): "
                "this payload can no longer be read"
            )
        return _open(AESGCM(key), payload, _owner_text(owner))

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        out = []
        for payload in payloads:
            encoding = payload.metadata.get("encoding")
            if encoding == USER_ENCODING:
                out.append(await self._decode_user(payload))
            elif encoding != ENCODING:
                out.append(payload)  # written before encryption was turned on
            else:
                key_id = payload.metadata.get(_KEY_ID, b"").decode()
                cipher = self._ciphers.get(key_id)
                if cipher is None:
                    raise PayloadKeyError(
                        f"payload encrypted with key {key_id!r}, which is not configured "
                        "(SELFIMPRINT_TEMPORAL_PAYLOAD_KEYS)"
                    )
                out.append(_open(cipher, payload, key_id.encode()))
        return out


def _seal(cipher: AESGCM, payload: Payload, aad: bytes, metadata: dict[str, bytes]) -> Payload:
    nonce = os.urandom(_NONCE_BYTES)
    sealed = cipher.encrypt(nonce, payload.SerializeToString(), aad)
    return Payload(metadata=metadata, data=nonce + sealed)


def _open(cipher: AESGCM, payload: Payload, aad: bytes) -> Payload:
    nonce, sealed = payload.data[:_NONCE_BYTES], payload.data[_NONCE_BYTES:]
    try:
        return Payload.FromString(cipher.decrypt(nonce, sealed, aad))
    except InvalidTag as exc:
        raise PayloadTamperedError("a Temporal payload failed authentication") from exc


def with_encryption(
    converter: DataConverter, keys: Sequence[bytes], user_keys: UserPayloadKeys | None = None
) -> DataConverter:
    return dataclasses.replace(converter, payload_codec=EncryptingCodec(keys, user_keys))
