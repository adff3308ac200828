"""Per-user data keys, wrapped by a key-encryption key (KEK), for encryption at rest.

A data key never leaves memory unwrapped. Its wrapped form is bound to (tenant, user, key
version), so a record copied to another user does not unwrap. Rotating the KEK rewraps the
records (the data they protect is not touched); destroying a record crypto-shreds every SYNX copy
encrypted with that key. See docs/synx.md, "Keys".
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import fcntl
import hashlib
import hmac
import json
import os
import secrets
import struct
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from selfimprint.config import Settings
from selfimprint.logging import get_logger
from selfimprint.ports import DATA_KEY_BYTES, DataKey, KeyEncryptionKey, WrapContext

log = get_logger(__name__)

KEK_ENV_VAR = "SELFIMPRINT_KEK"  # base64 of 32 bytes; wins over the KEK file
_WRAP_FORMAT = 1
_NONCE_BYTES = 12


class KeyStoreError(Exception):
    """Base of every key-management failure."""


class KekLoadError(KeyStoreError):
    """The key-encryption key is missing or malformed."""


class DataKeyNotFoundError(KeyStoreError):
    """No data key for this user: never created, or destroyed (crypto-shredded)."""


class KeyUnwrapError(KeyStoreError):
    """A wrapped data key did not unwrap: another KEK, another user's record, or tampering."""


def wrap_aad(context: WrapContext) -> bytes:
    tenant, user = context.tenant_id.encode(), context.user_id.encode()
    return b"".join(
        (
            b"selfimprint-data-key",
            struct.pack(">BH", _WRAP_FORMAT, len(tenant)),
            tenant,
            struct.pack(">H", len(user)),
            user,
            struct.pack(">I", context.key_version),
        )
    )


# --- key-encryption keys ---------------------------------------------------------------------


class LocalKek:
    """A 256-bit KEK held in process memory (from a file or env var): AES-256-GCM wrap with the
    wrap context as associated data. Layout: format byte, 12-byte nonce, ciphertext + tag."""

    def __init__(self, key: bytes) -> None:
        if len(key) != 32:
            raise KekLoadError("a key-encryption key has 32 bytes")
        self._aead = AESGCM(key)
        # A fingerprint, not the key: tells which KEK wrapped a record without revealing it.
        self.key_id = (
            "local:" + hmac.new(key, b"selfimprint kek id", hashlib.sha256).hexdigest()[:16]
        )

    def __repr__(self) -> str:
        return f"LocalKek({self.key_id})"

    @classmethod
    def from_base64(cls, text: str) -> LocalKek:
        try:
            return cls(base64.b64decode(text.strip(), validate=True))
        except binascii.Error as exc:
            raise KekLoadError("the key-encryption key is not valid base64") from exc

    @classmethod
    def from_file(cls, path: Path) -> LocalKek:
        try:
            return cls.from_base64(path.read_text(encoding="ascii"))
        except (OSError, UnicodeDecodeError) as exc:
            raise KekLoadError(f"cannot read the key-encryption key at {path}: {exc}") from exc

    @classmethod
    def generate(cls) -> LocalKek:
        return cls(secrets.token_bytes(32))

    def wrap(self, data_key: bytes, context: WrapContext) -> bytes:
        nonce = os.urandom(_NONCE_BYTES)
        sealed = self._aead.encrypt(nonce, data_key, wrap_aad(context))
        return bytes([_WRAP_FORMAT]) + nonce + sealed

    def unwrap(self, wrapped: bytes, context: WrapContext) -> bytes:
        if len(wrapped) < 1 + _NONCE_BYTES + 16 or wrapped[0] != _WRAP_FORMAT:
            raise KeyUnwrapError("malformed wrapped data key")
        nonce, sealed = wrapped[1 : 1 + _NONCE_BYTES], wrapped[1 + _NONCE_BYTES :]
        try:
            return self._aead.decrypt(nonce, sealed, wrap_aad(context))
        except InvalidTag as exc:
            raise KeyUnwrapError(
                f"data key of {context.tenant_id}/{context.user_id} v{context.key_version} "
                f"does not unwrap under {self.key_id}"
            ) from exc


def load_kek(settings: Settings, environ: Mapping[str, str]) -> LocalKek:
    """The local KEK: `SELFIMPRINT_KEK` (base64) if set, else the file at `settings.kek_path`
    or `<data_dir>/secrets/kek` (what `selfimprint dev up` generates). The caller passes the
    environment it read at process start."""
    if text := environ.get(KEK_ENV_VAR):
        return LocalKek.from_base64(text)
    return LocalKek.from_file(settings.kek_path or settings.secrets_dir / "kek")


class KmsClient(Protocol):
    """The two calls of a boto3 KMS client that KmsKek uses."""

    def encrypt(self, **kwargs: Any) -> Mapping[str, Any]: ...

    def decrypt(self, **kwargs: Any) -> Mapping[str, Any]: ...


class KmsKek:
    """A KEK that never leaves AWS KMS: `boto3.client("kms")` and a key ARN or alias. The wrap
    context travels as the KMS EncryptionContext, so KMS itself refuses a record presented for
    another user and logs it in CloudTrail. Not exercised against real KMS in this repository."""

    def __init__(self, client: KmsClient, key_id: str) -> None:
        self._client = client
        self.key_id = key_id

    def __repr__(self) -> str:
        return f"KmsKek({self.key_id})"

    @staticmethod
    def _context(context: WrapContext) -> dict[str, str]:
        return {
            "selfimprint:tenant": context.tenant_id,
            "selfimprint:user": context.user_id,
            "selfimprint:key_version": str(context.key_version),
        }

    def wrap(self, data_key: bytes, context: WrapContext) -> bytes:
        answer = self._client.encrypt(
            KeyId=self.key_id, Plaintext=data_key, EncryptionContext=self._context(context)
        )
        return bytes(answer["CiphertextBlob"])

    def unwrap(self, wrapped: bytes, context: WrapContext) -> bytes:
        try:
            answer = self._client.decrypt(
                KeyId=self.key_id, CiphertextBlob=wrapped, EncryptionContext=self._context(context)
            )
        except Exception as exc:  # botocore's ClientError family; boto3 is imported lazily
            raise KeyUnwrapError(f"KMS refused to unwrap: {exc}") from exc
        return bytes(answer["Plaintext"])


# --- wrapped key records ------------------------------------------------------------------------


@dataclass(frozen=True)
class WrappedDataKey:
    tenant_id: str
    user_id: str
    version: int
    kek_id: str
    wrapped: bytes
    created_at: datetime

    @property
    def context(self) -> WrapContext:
        return WrapContext(self.tenant_id, self.user_id, self.version)

    def to_json(self) -> bytes:
        return json.dumps(
            {
                "tenant_id": self.tenant_id,
                "user_id": self.user_id,
                "version": self.version,
                "kek_id": self.kek_id,
                "wrapped": base64.b64encode(self.wrapped).decode(),
                "created_at": self.created_at.isoformat(),
            }
        ).encode()

    @classmethod
    def from_json(cls, raw: bytes) -> WrappedDataKey:
        try:
            data = json.loads(raw)
            return cls(
                tenant_id=data["tenant_id"],
                user_id=data["user_id"],
                version=int(data["version"]),
                kek_id=data["kek_id"],
                wrapped=base64.b64decode(data["wrapped"], validate=True),
                created_at=datetime.fromisoformat(data["created_at"]),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise KeyStoreError(f"malformed wrapped key record: {exc}") from exc


class WrappedKeyRecords(Protocol):
    """Persistence of wrapped keys; implementations make each call atomic."""

    def add(self, record: WrappedDataKey) -> WrappedDataKey:
        """Store `record` unless the user has one already; return whichever is stored."""
        ...

    def find(self, tenant_id: str, user_id: str) -> WrappedDataKey | None: ...

    def replace(self, record: WrappedDataKey) -> bool:
        """Overwrite an existing record; False (and nothing written) if it was removed."""
        ...

    def remove(self, tenant_id: str, user_id: str) -> bool: ...

    def all(self) -> Iterator[WrappedDataKey]: ...


class MemoryKeyRecords:
    def __init__(self) -> None:
        self._records: dict[tuple[str, str], WrappedDataKey] = {}
        self._lock = threading.Lock()

    def add(self, record: WrappedDataKey) -> WrappedDataKey:
        with self._lock:
            return self._records.setdefault((record.tenant_id, record.user_id), record)

    def find(self, tenant_id: str, user_id: str) -> WrappedDataKey | None:
        return self._records.get((tenant_id, user_id))

    def replace(self, record: WrappedDataKey) -> bool:
        with self._lock:
            slot = (record.tenant_id, record.user_id)
            if slot not in self._records:
                return False
            self._records[slot] = record
            return True

    def remove(self, tenant_id: str, user_id: str) -> bool:
        with self._lock:
            return self._records.pop((tenant_id, user_id), None) is not None

    def all(self) -> Iterator[WrappedDataKey]:
        yield from list(self._records.values())


class FileKeyRecords:
    """One JSON file per user under `root` (mode 0600), named by a hash of (tenant, user) so that
    no id can escape the directory and file names reveal no ids. Writes go to a temporary file
    that is fsynced and then linked (create) or renamed (replace) into place; a lock file
    serialises writers across processes, so a rewrap cannot resurrect a destroyed key."""

    def __init__(self, root: Path) -> None:
        self._root = root

    def _path(self, tenant_id: str, user_id: str) -> Path:
        digest = hashlib.sha256(f"{tenant_id}\0{user_id}".encode()).hexdigest()
        return self._root / f"{digest}.json"

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self._root.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self._root / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _write_temp(self, record: WrappedDataKey) -> Path:
        temp = self._root / f".tmp-{secrets.token_hex(8)}"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(record.to_json())
            handle.flush()
            os.fsync(handle.fileno())
        return temp

    def _sync_dir(self) -> None:
        fd = os.open(self._root, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def _commit(self, record: WrappedDataKey, place: Callable[[Path, Path], None]) -> None:
        temp = self._write_temp(record)
        try:
            place(temp, self._path(record.tenant_id, record.user_id))
        finally:
            temp.unlink(missing_ok=True)
        self._sync_dir()

    def add(self, record: WrappedDataKey) -> WrappedDataKey:
        with self._locked():
            try:
                self._commit(record, os.link)  # link fails if the file exists: no overwrite
            except FileExistsError:
                existing = self.find(record.tenant_id, record.user_id)
                if existing is None:
                    raise KeyStoreError("key record vanished while locked") from None
                return existing
            return record

    def find(self, tenant_id: str, user_id: str) -> WrappedDataKey | None:
        try:
            raw = self._path(tenant_id, user_id).read_bytes()
        except FileNotFoundError:
            return None
        return WrappedDataKey.from_json(raw)

    def replace(self, record: WrappedDataKey) -> bool:
        with self._locked():
            if not self._path(record.tenant_id, record.user_id).exists():
                return False
            self._commit(record, os.replace)
            return True

    def remove(self, tenant_id: str, user_id: str) -> bool:
        with self._locked():
            try:
                self._path(tenant_id, user_id).unlink()
            except FileNotFoundError:
                return False
            self._sync_dir()
            return True

    def all(self) -> Iterator[WrappedDataKey]:
        if not self._root.is_dir():
            return
        for path in sorted(self._root.glob("*.json")):
            with contextlib.suppress(FileNotFoundError):  # destroyed while we iterate
                yield WrappedDataKey.from_json(path.read_bytes())


# --- the data key store ---------------------------------------------------------------------------


class WrappedKeyStore:
    """DataKeyStore over any record backend. Version 1 is the only data key version today; the
    field exists so that data key rotation can be added without a format change."""

    def __init__(
        self,
        records: WrappedKeyRecords,
        kek: KeyEncryptionKey,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._records = records
        self._kek = kek
        self._clock = clock

    @property
    def kek(self) -> KeyEncryptionKey:
        return self._kek

    def get_or_create(self, tenant_id: str, user_id: str) -> DataKey:
        record = self._records.find(tenant_id, user_id)
        if record is None:
            material = secrets.token_bytes(DATA_KEY_BYTES)
            context = WrapContext(tenant_id, user_id, 1)
            fresh = WrappedDataKey(
                tenant_id=tenant_id,
                user_id=user_id,
                version=context.key_version,
                kek_id=self._kek.key_id,
                wrapped=self._kek.wrap(material, context),
                created_at=self._clock(),
            )
            record = self._records.add(fresh)  # a concurrent creator may have won
            if record is fresh:
                log.info("data_key.created", tenant_id=tenant_id, user_id=user_id)
                return DataKey(tenant_id, user_id, fresh.version, material)
        return self._unwrap(record)

    def get(self, tenant_id: str, user_id: str) -> DataKey:
        record = self._records.find(tenant_id, user_id)
        if record is None:
            raise DataKeyNotFoundError(f"no data key for {tenant_id}/{user_id}")
        return self._unwrap(record)

    def destroy(self, tenant_id: str, user_id: str) -> bool:
        removed = self._records.remove(tenant_id, user_id)
        log.info("data_key.destroyed", tenant_id=tenant_id, user_id=user_id, existed=removed)
        return removed

    def rewrap_all(self, old_kek: KeyEncryptionKey, new_kek: KeyEncryptionKey) -> int:
        """Rewrap every record from `old_kek` to `new_kek`, one atomic replace each; records
        already under `new_kek` are skipped, so an interrupted rotation is finished by running it
        again. Afterwards this store wraps and unwraps with `new_kek`."""
        rewrapped = 0
        for record in self._records.all():
            if record.kek_id == new_kek.key_id:
                continue
            if record.kek_id != old_kek.key_id:
                raise KeyUnwrapError(
                    f"{record.tenant_id}/{record.user_id} is wrapped under {record.kek_id}, "
                    f"neither {old_kek.key_id} nor {new_kek.key_id}"
                )
            material = old_kek.unwrap(record.wrapped, record.context)
            moved = replace(
                record, kek_id=new_kek.key_id, wrapped=new_kek.wrap(material, record.context)
            )
            rewrapped += self._records.replace(moved)  # False: destroyed meanwhile, stay gone
        self._kek = new_kek
        log.info("kek.rotated", old=old_kek.key_id, new=new_kek.key_id, rewrapped=rewrapped)
        return rewrapped

    def _unwrap(self, record: WrappedDataKey) -> DataKey:
        if record.kek_id != self._kek.key_id:
            raise KeyUnwrapError(
                f"{record.tenant_id}/{record.user_id} is wrapped under {record.kek_id}, this "
                f"store holds {self._kek.key_id}: finish the KEK rotation (rewrap_all)"
            )
        material = self._kek.unwrap(record.wrapped, record.context)
        return DataKey(record.tenant_id, record.user_id, record.version, material)


class InMemoryDataKeyStore(WrappedKeyStore):
    """For tests: wrapped keys in a dict, so rotation and shredding behave as in production."""

    def __init__(self, kek: KeyEncryptionKey) -> None:
        super().__init__(MemoryKeyRecords(), kek)


class FileDataKeyStore(WrappedKeyStore):
    """Wrapped keys under `<data_dir>/keys/` (see FileKeyRecords)."""

    def __init__(self, data_dir: Path, kek: KeyEncryptionKey) -> None:
        super().__init__(FileKeyRecords(data_dir / "keys"), kek)
