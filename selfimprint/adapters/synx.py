"""SYNX: one user's graph as a single encrypted, compressed, streamable file (docs/synx.md).

Writing streams record by record through zstd into AES-256-GCM frames; reading streams frames
back, and returns the snapshot only after every frame authenticated and the manifest's checksums
and counts matched. The layout, partitioning and errors are in `selfimprint.domain.synx_layout`.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import zstandard
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from pydantic import BaseModel, ValidationError

from selfimprint.domain.models import Edge, Hypothesis, Node, Tension
from selfimprint.domain.synx_layout import (
    BUNDLE_ID_BYTES,
    DEFAULT_POLICY,
    FORMAT_VERSION,
    FRAME_FINAL,
    FRAME_HEAD,
    KEY_CHECK_BYTES,
    MANIFEST,
    MAX_FRAME_BYTES,
    PARTITION_RULE,
    Counts,
    FileHeader,
    PartEntry,
    PartitionPolicy,
    PartKind,
    PartPlan,
    Record,
    RecordKind,
    RecordParser,
    SynxError,
    SynxFormatError,
    SynxIntegrityError,
    SynxManifest,
    SynxOwnerError,
    SynxTruncatedError,
    SynxVersionError,
    SynxWrongKeyError,
    encode_part_start,
    encode_record,
    frame_aad,
    partition,
    read_part_name,
)
from selfimprint.logging import get_logger
from selfimprint.ports import DataKey, GraphSnapshot

__all__ = [
    "DEFAULT_CHUNK_BYTES",
    "PartitionPolicy",
    "SynxError",
    "SynxFormatError",
    "SynxIntegrityError",
    "SynxManifest",
    "SynxOwnerError",
    "SynxTruncatedError",
    "SynxVersionError",
    "SynxWrongKeyError",
    "decode_synx",
    "encode_synx",
    "read_synx",
    "write_synx",
]

log = get_logger(__name__)

DEFAULT_CHUNK_BYTES = 1 << 20  # compressed bytes per frame: bounds reader and writer memory
DEFAULT_ZSTD_LEVEL = 3
_TAG_BYTES = 16
_DECOMPRESS_SLICE = 64 * 1024
_COLLECTIONS = ("nodes", "edges", "hypotheses", "tensions")
_KIND_OF = {
    "nodes": RecordKind.NODE,
    "edges": RecordKind.EDGE,
    "hypotheses": RecordKind.HYPOTHESIS,
    "tensions": RecordKind.TENSION,
}


class BinarySink(Protocol):
    def write(self, data: bytes, /) -> object: ...


class BinarySource(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


def _derive(key: DataKey, info: bytes, length: int, salt: bytes | None = None) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(key.material)


def key_check(key: DataKey) -> bytes:
    """Stored in the header so a wrong key is told apart from tampering (AES-GCM alone cannot);
    derived one-way, it reveals nothing about the key."""
    return _derive(key, b"selfimprint synx v1 key check", KEY_CHECK_BYTES)


def _frame_cipher(key: DataKey, bundle_id: bytes) -> AESGCM:
    # A fresh subkey per file: the random-nonce budget of GCM is then per file, not per user.
    return AESGCM(_derive(key, b"selfimprint synx v1 frames", 32, salt=bundle_id))


# --- writing --------------------------------------------------------------------------------------


class _PartWriter:
    """Compresses one part's records and seals the output in frames of `chunk_bytes`."""

    def __init__(self, aead: AESGCM, aad_prefix: bytes, chunk_bytes: int, level: int) -> None:
        self._aead = aead
        self._prefix = aad_prefix
        self._chunk_bytes = chunk_bytes
        self._compressor = zstandard.ZstdCompressor(level=level).compressobj()
        self._pending = bytearray()
        self._chunk_index = 0
        self.sha256 = hashlib.sha256()
        self.plaintext_bytes = 0

    def add(self, record: bytes) -> Iterator[bytes]:
        self.sha256.update(record)
        self.plaintext_bytes += len(record)
        self._pending += self._compressor.compress(record)
        yield from self._full_frames()

    def close(self) -> Iterator[bytes]:
        self._pending += self._compressor.flush()
        yield from self._full_frames()
        yield self._seal(bytes(self._pending), final=True)  # never empty: zstd ends a frame

    def _full_frames(self) -> Iterator[bytes]:
        # Strictly more than one chunk pending: the last bytes are kept for the final frame.
        while len(self._pending) > self._chunk_bytes:
            yield self._seal(bytes(self._pending[: self._chunk_bytes]), final=False)
            del self._pending[: self._chunk_bytes]

    def _seal(self, data: bytes, *, final: bool) -> bytes:
        nonce = os.urandom(12)
        sealed = self._aead.encrypt(nonce, data, frame_aad(self._prefix, self._chunk_index, final))
        self._chunk_index += 1
        return FRAME_HEAD.pack(FRAME_FINAL if final else 0, len(sealed), nonce) + sealed


@dataclass
class _Encoding:
    manifest: SynxManifest | None = None
    bytes_written: int = 0


def encode_synx(
    snapshot: GraphSnapshot,
    key: DataKey,
    *,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    level: int = DEFAULT_ZSTD_LEVEL,
    policy: PartitionPolicy = DEFAULT_POLICY,
) -> Iterator[bytes]:
    """The file as a stream of byte blocks (for uploads); see `write_synx`."""
    return _encode(snapshot, key, chunk_bytes, level, policy, _Encoding())


def write_synx(
    snapshot: GraphSnapshot,
    sink: BinarySink,
    key: DataKey,
    *,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    level: int = DEFAULT_ZSTD_LEVEL,
    policy: PartitionPolicy = DEFAULT_POLICY,
) -> SynxManifest:
    """Write the snapshot to `sink` encrypted with `key` (which names the tenant and user), and
    return the manifest. Memory beyond the snapshot itself is about one frame."""
    state = _Encoding()
    for block in _encode(snapshot, key, chunk_bytes, level, policy, state):
        sink.write(block)
    assert state.manifest is not None  # set once the generator is exhausted
    log.info(
        "synx.written",
        tenant_id=key.tenant_id,
        user_id=key.user_id,
        parts=len(state.manifest.parts) + 1,
        nodes=state.manifest.totals.nodes,
        bytes=state.bytes_written,
    )
    return state.manifest


def _encode(
    snapshot: GraphSnapshot,
    key: DataKey,
    chunk_bytes: int,
    level: int,
    policy: PartitionPolicy,
    state: _Encoding,
) -> Iterator[bytes]:
    _check_scope(snapshot, key)
    if not 1 <= chunk_bytes <= MAX_FRAME_BYTES - _TAG_BYTES:
        raise ValueError(f"chunk_bytes must be in 1..{MAX_FRAME_BYTES - _TAG_BYTES}")
    header = FileHeader(
        version=FORMAT_VERSION,
        key_version=key.version,
        bundle_id=os.urandom(BUNDLE_ID_BYTES),
        key_check=key_check(key),
        tenant_id=key.tenant_id,
        user_id=key.user_id,
    )
    aead = _frame_cipher(key, header.bundle_id)

    def counted(block: bytes) -> bytes:
        state.bytes_written += len(block)
        return block

    def part(index: int, name: str, records: Iterable[bytes]) -> Iterator[bytes]:
        writer = _PartWriter(aead, header.aad_prefix(index, name), chunk_bytes, level)
        yield counted(encode_part_start(name))
        for record in records:
            yield from map(counted, writer.add(record))
        yield from map(counted, writer.close())
        digests.append((writer.sha256.hexdigest(), writer.plaintext_bytes))

    digests: list[tuple[str, int]] = []
    yield counted(header.encode())
    plans = partition(
        snapshot.nodes, snapshot.edges, snapshot.hypotheses, snapshot.tensions, policy
    )
    for index, plan in enumerate(plans):
        yield from part(index, plan.name, _plan_records(snapshot, plan))

    manifest = SynxManifest(
        synx_version=FORMAT_VERSION,
        tenant_id=key.tenant_id,
        user_id=key.user_id,
        partition_rule=PARTITION_RULE,
        snapshot=snapshot.model_dump(mode="json", exclude=set(_COLLECTIONS)),
        parts=tuple(
            _entry(plan, digest, size) for plan, (digest, size) in zip(plans, digests, strict=True)
        ),
        totals=Counts(**{name: len(getattr(snapshot, name)) for name in _COLLECTIONS}),
    )
    yield from part(len(plans), MANIFEST, [encode_record(RecordKind.MANIFEST, 0, manifest)])
    state.manifest = manifest


def _check_scope(snapshot: GraphSnapshot, key: DataKey) -> None:
    if snapshot.user_id != key.user_id:
        raise ValueError(f"snapshot of {snapshot.user_id!r} with the data key of {key.user_id!r}")
    strangers = {n.user_id for n in snapshot.nodes} - {key.user_id}
    if strangers:
        raise ValueError(f"snapshot of {key.user_id!r} holds nodes of {sorted(strangers)}")


def _plan_records(snapshot: GraphSnapshot, plan: PartPlan) -> Iterator[bytes]:
    for name in _COLLECTIONS:
        values: Sequence[BaseModel] = getattr(snapshot, name)
        for position in getattr(plan, name):
            yield encode_record(_KIND_OF[name], position, values[position])


def _entry(plan: PartPlan, digest: str, size: int) -> PartEntry:
    counts = Counts(**{name: len(getattr(plan, name)) for name in _COLLECTIONS})
    return PartEntry(
        name=plan.name,
        kind=plan.kind,
        label=plan.label,
        sha256=digest,
        plaintext_bytes=size,
        counts=counts,
    )


# --- reading -------------------------------------------------------------------------------------


class _Exact:
    """Exact reads from a stream; a short read means the file was cut."""

    def __init__(self, source: BinarySource) -> None:
        self._source = source

    def read_exact(self, size: int) -> bytes:
        data = self._source.read(size)
        while len(data) < size:
            more = self._source.read(size - len(data))
            if not more:
                raise SynxTruncatedError(f"the file ends {size - len(data)} bytes early")
            data += more
        return data

    def expect_end(self) -> None:
        if self._source.read(1):
            raise SynxFormatError("bytes after the manifest")


class _IterSource:
    """A `read(n)` view over an iterable of byte blocks (e.g. an HTTP body's chunks)."""

    def __init__(self, blocks: Iterable[bytes]) -> None:
        self._blocks = iter(blocks)
        self._buffer = bytearray()

    def read(self, size: int = -1, /) -> bytes:
        while size < 0 or len(self._buffer) < size:
            block = next(self._blocks, None)
            if block is None:
                break
            self._buffer += block
        cut = len(self._buffer) if size < 0 else min(size, len(self._buffer))
        data = bytes(self._buffer[:cut])
        del self._buffer[:cut]
        return data


@dataclass
class _PartSeen:
    name: str
    sha256: str
    plaintext_bytes: int
    counts: Counts


@dataclass
class _Collected:
    """Records by their position in the snapshot; duplicates are an integrity failure."""

    by_kind: dict[RecordKind, dict[int, Node | Edge | Hypothesis | Tension]] = field(
        default_factory=lambda: {kind: {} for kind in _KIND_OF.values()}
    )

    def put(self, record: Record) -> None:
        slot = self.by_kind[record.kind]
        if record.ordinal in slot:
            raise SynxIntegrityError(f"{record.kind.name.lower()} #{record.ordinal} appears twice")
        slot[record.ordinal] = record.decode()

    def ordered(self, kind: RecordKind, total: int) -> list[Node | Edge | Hypothesis | Tension]:
        slot = self.by_kind[kind]
        if len(slot) != total or any(i not in slot for i in range(total)):
            raise SynxIntegrityError(f"{kind.name.lower()} records do not match the manifest")
        return [slot[i] for i in range(total)]


def read_synx(source: BinarySource, key: DataKey) -> GraphSnapshot:
    """Read a whole SYNX file written for `key`'s tenant and user. Raises a `SynxError` subclass
    and returns nothing if any byte is wrong, missing, or from another file, user or part."""
    try:
        snapshot = _decode(_Exact(source), key)
    except SynxError as exc:
        log.warning(
            "synx.rejected",
            tenant_id=key.tenant_id,
            user_id=key.user_id,
            error=type(exc).__name__,
            reason=str(exc),
        )
        raise
    log.info("synx.read", tenant_id=key.tenant_id, user_id=key.user_id, nodes=len(snapshot.nodes))
    return snapshot


def decode_synx(blocks: Iterable[bytes], key: DataKey) -> GraphSnapshot:
    """`read_synx` over an iterable of byte blocks."""
    return read_synx(_IterSource(blocks), key)


def _decode(stream: _Exact, key: DataKey) -> GraphSnapshot:
    header = FileHeader.read(stream.read_exact)
    if (header.tenant_id, header.user_id) != (key.tenant_id, key.user_id):
        raise SynxOwnerError(
            f"the file belongs to {header.tenant_id}/{header.user_id}, "
            f"not {key.tenant_id}/{key.user_id}"
        )
    if header.key_version != key.version:
        raise SynxWrongKeyError(
            f"the file needs data key version {header.key_version}, got version {key.version}"
        )
    if not hmac.compare_digest(header.key_check, key_check(key)):
        raise SynxWrongKeyError(
            "the data key is not the one the file was written with "
            "(the wrong key, or the user's key was destroyed and recreated)"
        )
    aead = _frame_cipher(key, header.bundle_id)
    collected = _Collected()
    seen: list[_PartSeen] = []
    manifest: SynxManifest | None = None
    while manifest is None:
        name = read_part_name(stream.read_exact)
        if any(part.name == name for part in seen):
            raise SynxIntegrityError(f"part {name!r} appears twice")
        prefix = header.aad_prefix(len(seen), name)
        if name == MANIFEST:
            records: list[Record] = []
            _read_part(stream, aead, prefix, name, records.append)
            manifest = _manifest_from(records)
        else:
            seen.append(_read_part(stream, aead, prefix, name, collected.put))
    stream.expect_end()
    _verify(manifest, header, seen)
    return _assemble(manifest, collected, key)


def _read_part(
    stream: _Exact, aead: AESGCM, aad_prefix: bytes, name: str, on_record: Callable[[Record], None]
) -> _PartSeen:
    """Authenticate, decompress and parse one part frame by frame, handing each record on as
    soon as it is complete (the part is never held as a whole)."""
    decompressor = zstandard.ZstdDecompressor().decompressobj()
    parser = RecordParser()
    digest = hashlib.sha256()
    size = 0
    tally: Counter[RecordKind] = Counter()
    for chunk_index in itertools.count():
        flags, length, nonce = FRAME_HEAD.unpack(stream.read_exact(FRAME_HEAD.size))
        if flags & ~FRAME_FINAL or not _TAG_BYTES <= length <= MAX_FRAME_BYTES:
            raise SynxFormatError(f"malformed frame {chunk_index} in part {name!r}")
        sealed = stream.read_exact(length)
        final = bool(flags & FRAME_FINAL)
        try:
            compressed = aead.decrypt(nonce, sealed, frame_aad(aad_prefix, chunk_index, final))
        except InvalidTag as exc:
            raise SynxIntegrityError(
                f"frame {chunk_index} of part {name!r} failed authentication: altered, or moved "
                "in from another file, user or part"
            ) from exc
        view = memoryview(compressed)
        # Slices bound the decompressed bytes alive at once, however well the frame compressed.
        for start in range(0, len(view), _DECOMPRESS_SLICE):
            if decompressor.eof:
                raise SynxFormatError(f"data after the end of part {name!r}")
            try:
                plain = decompressor.decompress(view[start : start + _DECOMPRESS_SLICE])
            except zstandard.ZstdError as exc:
                raise SynxFormatError(f"part {name!r} does not decompress: {exc}") from exc
            digest.update(plain)
            size += len(plain)
            for record in parser.feed(plain):
                tally[record.kind] += 1
                on_record(record)
        if final:
            break
    if not decompressor.eof or decompressor.unused_data:
        raise SynxFormatError(f"part {name!r} is not one complete zstd frame")
    parser.finish()
    counts = Counts(**{c: tally[_KIND_OF[c]] for c in _COLLECTIONS})
    return _PartSeen(name, digest.hexdigest(), size, counts)


def _manifest_from(records: list[Record]) -> SynxManifest:
    if len(records) != 1 or records[0].kind is not RecordKind.MANIFEST:
        raise SynxFormatError("the manifest part must hold exactly one manifest record")
    try:
        return SynxManifest.model_validate_json(records[0].body)
    except ValidationError as exc:
        raise SynxFormatError(f"invalid manifest: {exc}") from exc


def _verify(manifest: SynxManifest, header: FileHeader, seen: list[_PartSeen]) -> None:
    if (manifest.synx_version, manifest.tenant_id, manifest.user_id) != (
        header.version,
        header.tenant_id,
        header.user_id,
    ):
        raise SynxIntegrityError("the manifest disagrees with the header")
    listed = [(p.name, p.sha256, p.plaintext_bytes, p.counts) for p in manifest.parts]
    found = [(p.name, p.sha256, p.plaintext_bytes, p.counts) for p in seen]
    if listed != found:
        missing = [entry[0] for entry in listed if entry not in found]
        raise SynxIntegrityError(f"parts do not match the manifest (differing: {missing})")
    if not any(p.kind is PartKind.CORE for p in manifest.parts):
        raise SynxFormatError("the file has no core part")


def _assemble(manifest: SynxManifest, collected: _Collected, key: DataKey) -> GraphSnapshot:
    totals = manifest.totals
    collections = {
        "nodes": tuple(collected.ordered(RecordKind.NODE, totals.nodes)),
        "edges": tuple(collected.ordered(RecordKind.EDGE, totals.edges)),
        "hypotheses": tuple(collected.ordered(RecordKind.HYPOTHESIS, totals.hypotheses)),
        "tensions": tuple(collected.ordered(RecordKind.TENSION, totals.tensions)),
    }
    try:
        shell = GraphSnapshot.model_validate(
            {**manifest.snapshot, **dict.fromkeys(_COLLECTIONS, ())}
        )
    except ValidationError as exc:
        raise SynxFormatError(f"invalid snapshot metadata: {exc}") from exc
    if shell.user_id != key.user_id:
        raise SynxOwnerError(f"the snapshot inside belongs to {shell.user_id!r}")
    # Every record was validated as it was read; validating the whole snapshot again would rerun
    # each node's validators and double the read time.
    return shell.model_copy(update=collections)
