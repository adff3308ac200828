"""S3 object store for the warm and cold tiers (boto3; SeaweedFS locally, AWS S3 in production).

Key layout (docs/tiers.md): everything of one user lives under one prefix, so that erasure is one
prefix delete and a listing shows all of a user's objects:

    users/<tenant>/<user>/warm/graph.synx   warm tier, storage class `s3_storage_class_warm`
    users/<tenant>/<user>/cold/graph.synx   cold tier, storage class `s3_storage_class_cold`

Tenant and user ids are MemoryIds ([A-Za-z0-9_.:-], no '/'), so no id can reach another user's
prefix. Tier is also a separate key segment rather than a separate bucket so that a bucket
lifecycle rule can still target one tier by prefix-free tag or by storage class.

One boto3 client per process (clients are thread-safe; sessions are not): build the store once in
the worker's `build` and pass it down. boto3 is synchronous; activities call it in a thread.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

from selfimprint.config import Settings
from selfimprint.domain.users import Tier
from selfimprint.logging import get_logger
from selfimprint.ports import ObjectNotFoundError, ObjectVersion, StoredObject
from selfimprint.telemetry import tracing

log = get_logger(__name__)

_READ_BLOCK = 1 << 20
_DELETE_BATCH = 1000  # the S3 DeleteObjects limit
# Single-request CopyObject up to S3's 5 GiB limit: a multipart copy would not carry the metadata
# (checksums, counts) along, and no user graph comes near this size (50k nodes ~ 71 MiB).
_COPY_SINGLE_LIMIT = 5 * 1024**3
_NOT_FOUND = {"404", "NoSuchKey", "NotFound", "NoSuchBucket"}


@dataclass(frozen=True)
class ObjectLayout:
    """Where a user's objects live; `root` allows several deployments to share a bucket."""

    root: str = "users"

    def user_prefix(self, tenant_id: str, user_id: str) -> str:
        for part in (tenant_id, user_id):
            if not part or "/" in part:
                raise ValueError(f"invalid id for an object key: {part!r}")
        return f"{self.root}/{tenant_id}/{user_id}/"

    def graph_key(self, tenant_id: str, user_id: str, tier: Tier) -> str:
        if tier is Tier.HOT:
            raise ValueError("the hot tier lives in Neo4j, not in S3")
        return f"{self.user_prefix(tenant_id, user_id)}{tier.value}/graph.synx"

    def reset_prefix(self, tenant_id: str, user_id: str) -> str:
        return f"{self.user_prefix(tenant_id, user_id)}archive/"

    def reset_key(self, tenant_id: str, user_id: str, label: str) -> str:
        """What a soft reset took out of the active graph (spec §3.9 "archive the rest")."""
        if not label or "/" in label:
            raise ValueError(f"invalid archive label: {label!r}")
        return f"{self.reset_prefix(tenant_id, user_id)}soft-reset-{label}.synx"


def _error_code(exc: Exception) -> str:
    response = getattr(exc, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


@tracing.traced_calls("s3", tracing.S3)
class S3ObjectStore:
    """Implements `ports.ObjectStore` over one bucket."""

    def __init__(self, client: Any, bucket: str) -> None:
        self._client = client
        self._bucket = bucket

    @classmethod
    def from_settings(cls, settings: Settings) -> S3ObjectStore:
        import boto3
        from botocore.config import Config

        keys: dict[str, str] = {}
        if not settings.s3_default_credentials:
            key_id, secret = settings.s3_credentials()
            keys = {"aws_access_key_id": key_id, "aws_secret_access_key": secret}
        # A session of its own: boto3's module-level default session resolves the credential
        # chain once per process and keeps the answer, so a second store would sign with the
        # first one's keys whatever its settings say.
        client = boto3.session.Session().client(
            "s3",
            endpoint_url=settings.s3_target,
            region_name=settings.s3_region,
            **keys,
            config=Config(
                signature_version="s3v4",
                s3={"addressing_style": "path"},
                # A few per-request retries: redoing one multipart part is cheaper than a whole
                # activity attempt, and Temporal retries the activity beyond that.
                retries={"mode": "standard", "total_max_attempts": 3},
                max_pool_connections=16,
            ),
        )
        return cls(client, settings.s3_bucket)

    @property
    def bucket(self) -> str:
        return self._bucket

    def check_bucket(self) -> None:
        """Raises unless the bucket answers a HEAD with these credentials (readiness)."""
        self._client.head_bucket(Bucket=self._bucket)

    def put(
        self, key: str, body: IO[bytes], *, storage_class: str, metadata: Mapping[str, str]
    ) -> StoredObject:
        from boto3.s3.transfer import TransferConfig

        self._client.upload_fileobj(
            body,
            self._bucket,
            key,
            ExtraArgs={"StorageClass": storage_class, "Metadata": dict(metadata)},
            Config=TransferConfig(multipart_threshold=64 << 20, multipart_chunksize=16 << 20),
        )
        stored = self.head(key)
        if stored is None:
            raise ObjectNotFoundError(f"s3://{self._bucket}/{key} missing right after upload")
        log.info("s3.put", key=key, bytes=stored.size, storage_class=stored.storage_class)
        return stored

    def get(self, key: str) -> Iterator[bytes]:
        try:
            response = self._client.get_object(Bucket=self._bucket, Key=key)
        except Exception as exc:
            if _error_code(exc) in _NOT_FOUND:
                raise ObjectNotFoundError(f"s3://{self._bucket}/{key}") from exc
            raise
        return self._stream(response["Body"])

    @staticmethod
    def _stream(body: Any) -> Iterator[bytes]:
        try:
            yield from body.iter_chunks(_READ_BLOCK)
        finally:
            body.close()

    def head(self, key: str) -> StoredObject | None:
        try:
            response = self._client.head_object(Bucket=self._bucket, Key=key)
        except Exception as exc:
            if _error_code(exc) in _NOT_FOUND:
                return None
            raise
        return StoredObject(
            key=key,
            size=int(response["ContentLength"]),
            # S3 omits the header for STANDARD.
            storage_class=str(response.get("StorageClass") or "STANDARD"),
            metadata=dict(response.get("Metadata") or {}),
            version_id=response.get("VersionId"),
        )

    def list_versions(self, prefix: str) -> list[ObjectVersion]:
        found: list[ObjectVersion] = []
        paginator = self._client.get_paginator("list_object_versions")
        try:
            for page in paginator.paginate(Bucket=self._bucket, Prefix=prefix):
                for item in page.get("Versions", []):
                    found.append(ObjectVersion(item["Key"], _version(item.get("VersionId"))))
                for item in page.get("DeleteMarkers", []):
                    found.append(ObjectVersion(item["Key"], _version(item.get("VersionId")), True))
        except Exception as exc:
            if _error_code(exc) not in {"NotImplemented", "MethodNotAllowed"}:
                raise
            # A store without versioning support: the objects are all there is.
            found = [
                ObjectVersion(item["Key"], None)
                for page in self._client.get_paginator("list_objects_v2").paginate(
                    Bucket=self._bucket, Prefix=prefix
                )
                for item in page.get("Contents", [])
            ]
        return found

    def delete_versions(self, versions: Sequence[ObjectVersion]) -> int:
        deleted = 0
        for start in range(0, len(versions), _DELETE_BATCH):
            batch = versions[start : start + _DELETE_BATCH]
            objects = [
                {"Key": v.key, **({"VersionId": v.version_id} if v.version_id else {})}
                for v in batch
            ]
            response = self._client.delete_objects(
                Bucket=self._bucket, Delete={"Objects": objects, "Quiet": True}
            )
            errors = [e for e in response.get("Errors", []) if e.get("Code") not in _NOT_FOUND]
            if errors:
                raise RuntimeError(f"S3 refused to delete {len(errors)} objects: {errors[:3]}")
            deleted += len(batch)
        return deleted

    def delete_prefix(self, prefix: str) -> int:
        # A prefix without its trailing '/' would also match another user ("u1" and "u12").
        if not prefix.endswith("/") or prefix.strip("/") == "":
            raise ValueError(f"refusing to delete under {prefix!r}: not a folder-like prefix")
        deleted = self.delete_versions(self.list_versions(prefix))
        log.info("s3.prefix_deleted", prefix=prefix, versions=deleted)
        return deleted

    def delete_key(self, key: str) -> int:
        deleted = self.delete_versions([v for v in self.list_versions(key) if v.key == key])
        log.info("s3.key_deleted", key=key, versions=deleted)
        return deleted

    def copy(self, source_key: str, target_key: str, *, storage_class: str) -> StoredObject:
        from boto3.s3.transfer import TransferConfig

        try:
            self._client.copy(
                {"Bucket": self._bucket, "Key": source_key},
                self._bucket,
                target_key,
                ExtraArgs={"StorageClass": storage_class, "MetadataDirective": "COPY"},
                Config=TransferConfig(multipart_threshold=_COPY_SINGLE_LIMIT),
            )
        except Exception as exc:
            if _error_code(exc) in _NOT_FOUND:
                raise ObjectNotFoundError(f"s3://{self._bucket}/{source_key}") from exc
            raise
        stored = self.head(target_key)
        if stored is None:
            raise ObjectNotFoundError(f"s3://{self._bucket}/{target_key} missing after the copy")
        log.info("s3.copied", source=source_key, target=target_key, storage_class=storage_class)
        return stored


def _version(value: object) -> str | None:
    # Unversioned buckets report the literal version "null".
    return None if value in (None, "null") else str(value)
