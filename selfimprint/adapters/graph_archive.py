"""Users' graphs at rest: encrypted SYNX objects in the object store (warm and cold tiers).

Writing encodes the snapshot with the user's data key into a spooled temporary file (memory up to
64 MiB, then disk) while hashing it, and uploads it with its checksum and counts as object
metadata. Reading streams the object through the SYNX reader, which authenticates every frame and
checks the manifest, and hashes the bytes on the way, so a caller can compare them with what was
written. Synchronous (boto3, CPU-bound crypto): activities call it in a thread.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from selfimprint.adapters.crypto import FileDataKeyStore, load_kek
from selfimprint.adapters.s3 import ObjectLayout, S3ObjectStore
from selfimprint.adapters.synx import decode_synx, encode_synx
from selfimprint.config import Settings
from selfimprint.domain.users import Tier
from selfimprint.logging import get_logger
from selfimprint.ports import (
    DataKeyStore,
    GraphSnapshot,
    ObjectNotFoundError,
    ObjectStore,
    StoredObject,
)

log = get_logger(__name__)

_SPOOL_BYTES = 64 << 20


def snapshot_fingerprint(snapshot: GraphSnapshot) -> str:
    """SHA-256 of the graph's content, ignoring when it was exported: equal fingerprints mean
    the same nodes, edges, hypotheses and tensions, field for field, in the same order."""
    return hashlib.sha256(snapshot.model_dump_json(exclude={"exported_at"}).encode()).hexdigest()


@dataclass(frozen=True)
class ArchivedGraph:
    """A graph object and what it holds, as recorded in its metadata at upload."""

    key: str
    size: int
    storage_class: str
    sha256: str
    fingerprint: str
    nodes: int
    edges: int
    hypotheses: int
    tensions: int

    def metadata(self) -> dict[str, str]:
        return {
            "sha256": self.sha256,
            "fingerprint": self.fingerprint,
            "nodes": str(self.nodes),
            "edges": str(self.edges),
            "hypotheses": str(self.hypotheses),
            "tensions": str(self.tensions),
        }

    @classmethod
    def from_stored(cls, stored: StoredObject) -> ArchivedGraph:
        meta = stored.metadata
        try:
            return cls(
                key=stored.key,
                size=stored.size,
                storage_class=stored.storage_class,
                sha256=meta["sha256"],
                fingerprint=meta["fingerprint"],
                nodes=int(meta["nodes"]),
                edges=int(meta["edges"]),
                hypotheses=int(meta["hypotheses"]),
                tensions=int(meta["tensions"]),
            )
        except (KeyError, ValueError) as exc:
            raise ArchiveMetadataError(f"{stored.key} lacks graph metadata: {exc}") from exc


def merge_snapshots(archived: GraphSnapshot, hot: GraphSnapshot) -> GraphSnapshot:
    """The archived graph plus what reached Neo4j meanwhile; on the same id the Neo4j version
    wins (it is the newer one). Order: archived items first, then new ones, each by key."""

    def union(old: Sequence[Any], new: Sequence[Any], key: Callable[[Any], object]) -> tuple[Any]:
        merged = {key(x): x for x in old}
        merged.update((key(x), x) for x in new)
        return tuple(merged.values())

    return archived.model_copy(
        update={
            "exported_at": max(archived.exported_at, hot.exported_at),
            "nodes": union(archived.nodes, hot.nodes, lambda n: n.id),
            "edges": union(archived.edges, hot.edges, lambda e: (e.source_id, e.target_id, e.type)),
            "hypotheses": union(archived.hypotheses, hot.hypotheses, lambda h: h.node_id),
            "tensions": union(archived.tensions, hot.tensions, lambda t: t.id),
            # Marked wrong in either (a memory is never un-marked).
            "refuted_ids": union(archived.refuted_ids, hot.refuted_ids, lambda i: i),
        }
    )


class ArchiveMetadataError(ValueError):
    """An object under a graph key without the metadata this module writes."""


@dataclass(frozen=True)
class ReadGraph:
    snapshot: GraphSnapshot
    sha256: str  # of the bytes actually read
    size: int

    def matches(self, written: ArchivedGraph) -> bool:
        """The bytes and the graph read back are the ones written (checked before anything that
        relies on the object, such as removing its memories from Neo4j)."""
        return (self.sha256, snapshot_fingerprint(self.snapshot)) == (
            written.sha256,
            written.fingerprint,
        )


class _Hashing:
    def __init__(self, blocks: Iterable[bytes]) -> None:
        self._blocks = blocks
        self.digest = hashlib.sha256()
        self.size = 0

    def __iter__(self) -> Iterator[bytes]:
        for block in self._blocks:
            self.digest.update(block)
            self.size += len(block)
            yield block


class GraphArchive:
    def __init__(
        self,
        objects: ObjectStore,
        keys: DataKeyStore,
        storage_classes: Mapping[Tier, str],
        layout: ObjectLayout | None = None,
    ) -> None:
        self._objects = objects
        self._keys = keys
        self._classes = dict(storage_classes)
        self.layout = layout or ObjectLayout()

    def key(self, tenant_id: str, user_id: str, tier: Tier) -> str:
        return self.layout.graph_key(tenant_id, user_id, tier)

    def storage_class(self, tier: Tier) -> str:
        return self._classes[tier]

    def write(
        self, tenant_id: str, user_id: str, tier: Tier, snapshot: GraphSnapshot
    ) -> ArchivedGraph:
        """Encrypt and upload; replaces the tier's object (so a repeated write is harmless)."""
        key = self.key(tenant_id, user_id, tier)
        return self._write(tenant_id, user_id, key, self.storage_class(tier), snapshot)

    def write_reset(
        self, tenant_id: str, user_id: str, label: str, snapshot: GraphSnapshot
    ) -> ArchivedGraph:
        """What a soft reset took out of the active graph, kept in the cold storage class (read
        only if an operator restores it). The label makes a retry overwrite the same object."""
        key = self.layout.reset_key(tenant_id, user_id, label)
        return self._write(tenant_id, user_id, key, self.storage_class(Tier.COLD), snapshot)

    def rewrite(
        self, tenant_id: str, user_id: str, key: str, snapshot: GraphSnapshot
    ) -> ArchivedGraph:
        """Replace one of the user's graph objects in place, keeping its storage class."""
        if not key.startswith(self.layout.user_prefix(tenant_id, user_id)):
            raise ValueError(f"{key} is not one of {user_id}'s objects")
        current = self._objects.head(key)
        if current is None:
            raise ObjectNotFoundError(key)
        return self._write(tenant_id, user_id, key, current.storage_class, snapshot)

    def _write(
        self, tenant_id: str, user_id: str, key: str, storage_class: str, snapshot: GraphSnapshot
    ) -> ArchivedGraph:
        data_key = self._keys.get_or_create(tenant_id, user_id)
        digest = hashlib.sha256()
        with tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES) as spool:
            for block in encode_synx(snapshot, data_key):
                digest.update(block)
                spool.write(block)
            size = spool.tell()
            spool.seek(0)
            archived = ArchivedGraph(
                key=key,
                size=size,
                storage_class=storage_class,
                sha256=digest.hexdigest(),
                fingerprint=snapshot_fingerprint(snapshot),
                nodes=len(snapshot.nodes),
                edges=len(snapshot.edges),
                hypotheses=len(snapshot.hypotheses),
                tensions=len(snapshot.tensions),
            )
            stored = self._objects.put(
                key, spool, storage_class=archived.storage_class, metadata=archived.metadata()
            )
        return ArchivedGraph.from_stored(stored)

    def head(self, tenant_id: str, user_id: str, tier: Tier) -> ArchivedGraph | None:
        return self.head_key(self.key(tenant_id, user_id, tier))

    def head_key(self, key: str) -> ArchivedGraph | None:
        stored = self._objects.head(key)
        return None if stored is None else ArchivedGraph.from_stored(stored)

    def read(self, tenant_id: str, user_id: str, tier: Tier) -> ReadGraph:
        """Download and decrypt. Raises ObjectNotFoundError, DataKeyNotFoundError (the key was
        destroyed) or a SynxError (wrong key, tampered, truncated)."""
        return self.read_key(tenant_id, user_id, self.key(tenant_id, user_id, tier))

    def read_key(self, tenant_id: str, user_id: str, key: str) -> ReadGraph:
        """`read` for any of the user's graph objects (a tier's or a soft-reset archive)."""
        if not key.startswith(self.layout.user_prefix(tenant_id, user_id)):
            raise ValueError(f"{key} is not one of {user_id}'s objects")
        data_key = self._keys.get(tenant_id, user_id)
        hashing = _Hashing(self._objects.get(key))
        snapshot = decode_synx(hashing, data_key)
        return ReadGraph(snapshot, hashing.digest.hexdigest(), hashing.size)

    def reset_archives(self, tenant_id: str, user_id: str) -> list[str]:
        """Keys of the user's soft-reset archives that exist now (oldest label first)."""
        prefix = self.layout.reset_prefix(tenant_id, user_id)
        keys = sorted({v.key for v in self._objects.list_versions(prefix)})
        return [k for k in keys if self._objects.head(k) is not None]

    def copy(self, tenant_id: str, user_id: str, source: Tier, target: Tier) -> ArchivedGraph:
        stored = self._objects.copy(
            self.key(tenant_id, user_id, source),
            self.key(tenant_id, user_id, target),
            storage_class=self.storage_class(target),
        )
        return ArchivedGraph.from_stored(stored)

    def delete(self, tenant_id: str, user_id: str, tier: Tier) -> int:
        return self._objects.delete_key(self.key(tenant_id, user_id, tier))

    def delete_user(self, tenant_id: str, user_id: str) -> int:
        return self._objects.delete_prefix(self.layout.user_prefix(tenant_id, user_id))

    def purge_old_versions(self, tenant_id: str, user_id: str, tier: Tier) -> int:
        """Delete every version of the tier's object but the current one (versioned buckets)."""
        return self.purge_old_versions_of(self.key(tenant_id, user_id, tier))

    def purge_old_versions_of(self, key: str) -> int:
        current = self._objects.head(key)
        keep = None if current is None else current.version_id
        stale = [
            v
            for v in self._objects.list_versions(key)
            if v.key == key and (v.is_delete_marker or v.version_id != keep)
        ]
        return self._objects.delete_versions(stale)


# --- wiring ---------------------------------------------------------------------------------------


def storage_classes(settings: Settings) -> dict[Tier, str]:
    return {Tier.WARM: settings.s3_storage_class_warm, Tier.COLD: settings.s3_storage_class_cold}


def build_archive(
    settings: Settings,
    environ: dict[str, str],
    *,
    objects: ObjectStore | None = None,
    keys: DataKeyStore | None = None,
) -> GraphArchive:
    """One archive per process: one boto3 client, the key store under the data dir (see
    docs/tiers.md for production key stores)."""
    return GraphArchive(
        objects or S3ObjectStore.from_settings(settings),
        keys or FileDataKeyStore(settings.data_dir, load_kek(settings, environ)),
        storage_classes(settings),
    )
