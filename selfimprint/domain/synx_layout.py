"""The pure half of SYNX (docs/synx.md): which part each memory goes to, the binary layout of the
header, frame AAD and records, the manifest, and the errors a reader raises.

Encryption and compression live in `selfimprint.adapters.synx`; nothing here touches a key.
"""

from __future__ import annotations

import json
import struct
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC
from enum import IntEnum, StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from selfimprint.domain.models import (
    Edge,
    Hypothesis,
    Node,
    NodeType,
    Permanence,
    Tension,
)

FORMAT_VERSION = 1
SUPPORTED_VERSIONS = frozenset({FORMAT_VERSION})
# PNG-style: a high byte catches 7-bit transfers, CR LF catches newline rewriting.
MAGIC = b"\x89SYNX\r\n\x1a"
BUNDLE_ID_BYTES = 16
KEY_CHECK_BYTES = 16
# Fixed-size prefix of the header; tenant and user ids follow, each length-prefixed.
_HEADER = struct.Struct(f">8sHHI{BUNDLE_ID_BYTES}s{KEY_CHECK_BYTES}s")
_LENGTH = struct.Struct(">H")
FRAME_FINAL = 0x01
FRAME_HEAD = struct.Struct(">BI12s")  # flags, ciphertext length (incl. tag), nonce
PART_MARKER = b"P"
MAX_ID_BYTES = 1_024
MAX_FRAME_BYTES = 16 * 1024 * 1024 + 16
MAX_RECORD_JSON_BYTES = 8 * 1024 * 1024
MAX_VECTOR_DIMS = 1 << 16

CORE = "core"
MANIFEST = "manifest"
DOMAIN_PREFIX = "domain/"
SESSION_PREFIX = "sessions/"
PARTITION_RULE = 1


# --- errors ---------------------------------------------------------------------------------


class SynxError(Exception):
    """A SYNX file could not be read; nothing of it was returned."""


class SynxFormatError(SynxError):
    """Not a SYNX file, or its structure is malformed."""


class SynxVersionError(SynxError):
    """Written in a format version this reader does not know."""


class SynxWrongKeyError(SynxError):
    """The data key given is not the one the file was written with (or the key was destroyed
    and replaced: crypto-shredded data stays unreadable)."""


class SynxOwnerError(SynxError):
    """The file belongs to another tenant or user than the key it is read with."""


class SynxIntegrityError(SynxError):
    """Authentication or checksum failed: the bytes were altered, or a part was moved in from
    another file, user or part name."""


class SynxTruncatedError(SynxIntegrityError):
    """The file ends before its last part is complete."""


# --- header and AAD ---------------------------------------------------------------------------


def _length_prefixed(text: str) -> bytes:
    raw = text.encode()
    if len(raw) > MAX_ID_BYTES:
        raise ValueError(f"identifier longer than {MAX_ID_BYTES} bytes")
    return _LENGTH.pack(len(raw)) + raw


@dataclass(frozen=True)
class FileHeader:
    version: int
    key_version: int
    bundle_id: bytes
    key_check: bytes
    tenant_id: str
    user_id: str

    def encode(self) -> bytes:
        fixed = _HEADER.pack(
            MAGIC, self.version, 0, self.key_version, self.bundle_id, self.key_check
        )
        return fixed + _length_prefixed(self.tenant_id) + _length_prefixed(self.user_id)

    @classmethod
    def read(cls, read_exact: Callable[[int], bytes]) -> FileHeader:
        """`read_exact` raises SynxTruncatedError when the stream ends early."""
        magic = read_exact(len(MAGIC))
        if magic != MAGIC:
            raise SynxFormatError("not a SYNX file (bad magic bytes)")
        rest = read_exact(_HEADER.size - len(MAGIC))
        _, version, flags, key_version, bundle_id, key_check = _HEADER.unpack(magic + rest)
        if version not in SUPPORTED_VERSIONS:
            raise SynxVersionError(
                f"SYNX format version {version} is not supported "
                f"(this reader knows {sorted(SUPPORTED_VERSIONS)})"
            )
        if flags != 0:
            raise SynxFormatError(f"unknown header flags {flags:#06x}")
        tenant_id = _read_text(read_exact, "tenant id")
        user_id = _read_text(read_exact, "user id")
        return cls(version, key_version, bundle_id, key_check, tenant_id, user_id)

    def aad_prefix(self, part_index: int, part_name: str) -> bytes:
        """Everything a frame's AAD binds except its position: format version, owner, key
        version, this file's bundle id, and the part's place and name."""
        return b"".join(
            (
                b"SYNX-AAD",
                struct.pack(">HI", self.version, self.key_version),
                _length_prefixed(self.tenant_id),
                _length_prefixed(self.user_id),
                self.bundle_id,
                struct.pack(">I", part_index),
                _length_prefixed(part_name),
            )
        )


def frame_aad(prefix: bytes, chunk_index: int, final: bool) -> bytes:
    return prefix + struct.pack(">QB", chunk_index, FRAME_FINAL if final else 0)


def encode_part_start(name: str) -> bytes:
    return PART_MARKER + _length_prefixed(name)


def read_part_name(read_exact: Callable[[int], bytes]) -> str:
    if read_exact(1) != PART_MARKER:
        raise SynxFormatError("expected the start of a part")
    name = _read_text(read_exact, "part name")
    if not is_part_name(name):
        raise SynxFormatError(f"invalid part name {name!r}")
    return name


def _read_text(read_exact: Callable[[int], bytes], what: str) -> str:
    (length,) = _LENGTH.unpack(read_exact(_LENGTH.size))
    if length > MAX_ID_BYTES:
        raise SynxFormatError(f"{what} is {length} bytes long")
    try:
        return read_exact(length).decode()
    except UnicodeDecodeError as exc:
        raise SynxFormatError(f"{what} is not UTF-8") from exc


def is_part_name(name: str) -> bool:
    if name in (CORE, MANIFEST):
        return True
    for prefix in (DOMAIN_PREFIX, SESSION_PREFIX):
        if name.startswith(prefix):
            return name[len(prefix) :].isdigit() and name.isascii()
    return False


# --- records ----------------------------------------------------------------------------------


class RecordKind(IntEnum):
    NODE = 1
    EDGE = 2
    HYPOTHESIS = 3
    TENSION = 4
    MANIFEST = 5


_KINDS = frozenset(int(kind) for kind in RecordKind)
# kind, vector element size (0: no vector, 4: float32, 8: float64), ordinal, JSON length, dims
_RECORD = struct.Struct(">BBIII")
_LITTLE_ENDIAN = sys.byteorder == "little"


def _pack_vector(values: tuple[float, ...]) -> tuple[int, bytes]:
    """float32 when that is lossless (embedders produce float32), float64 otherwise: the graph
    must come back bit for bit."""
    fmt = f"<{len(values)}f"
    try:
        as_f32 = struct.pack(fmt, *values)
    except OverflowError:  # beyond float32's range
        as_f32 = b""
    if as_f32 and struct.unpack(fmt, as_f32) == values:
        return 4, as_f32
    return 8, struct.pack(f"<{len(values)}d", *values)


def encode_record(kind: RecordKind, ordinal: int, value: BaseModel) -> bytes:
    vector: tuple[float, ...] | None = None
    if isinstance(value, Node) and value.embedding is not None:
        vector = value.embedding
        body = value.model_dump_json(exclude={"embedding"}).encode()
        if value.context_embedding is not None:
            # The reply-context vector follows the content's in the binary tail (the same
            # size, Node checks it); the body says so with an empty list in its place.
            vector = value.embedding + value.context_embedding
            data = json.loads(body)
            data["context_embedding"] = []
            body = json.dumps(data, separators=(",", ":")).encode()
    else:
        body = value.model_dump_json().encode()
    if vector is None:
        return _RECORD.pack(kind, 0, ordinal, len(body), 0) + body
    width, packed = _pack_vector(vector)
    return _RECORD.pack(kind, width, ordinal, len(body), len(vector)) + body + packed


@dataclass(frozen=True)
class Record:
    kind: RecordKind
    ordinal: int
    body: bytes
    vector: tuple[float, ...] | None

    def decode(self) -> Node | Edge | Hypothesis | Tension:
        """Validated model; pydantic errors surface as SynxFormatError."""
        try:
            if self.kind is RecordKind.NODE:
                data: dict[str, Any] = json.loads(self.body)
                if self.vector is not None:
                    data["embedding"] = self.vector
                    if data.get("context_embedding") == []:
                        half = len(self.vector) // 2
                        data["embedding"] = self.vector[:half]
                        data["context_embedding"] = self.vector[half:]
                return Node.model_validate(data)
            model = _RECORD_MODELS.get(self.kind)
            if model is None:
                raise SynxFormatError(f"a {self.kind.name.lower()} record in a graph part")
            return model.model_validate_json(self.body)
        except ValueError as exc:  # pydantic.ValidationError and JSONDecodeError are ValueErrors
            raise SynxFormatError(f"invalid {self.kind.name.lower()} record: {exc}") from exc


_RECORD_MODELS: dict[RecordKind, type[Edge | Hypothesis | Tension]] = {
    RecordKind.EDGE: Edge,
    RecordKind.HYPOTHESIS: Hypothesis,
    RecordKind.TENSION: Tension,
}


class RecordParser:
    """Splits a part's decompressed byte stream into records, whatever the chunk boundaries."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> Iterator[Record]:
        self._buffer += data
        offset = 0
        buffer = self._buffer
        while len(buffer) - offset >= _RECORD.size:
            kind, width, ordinal, body_len, dims = _RECORD.unpack_from(buffer, offset)
            _check_record_head(kind, width, body_len, dims)
            end = offset + _RECORD.size + body_len + width * dims
            if end > len(buffer):
                break
            body_start = offset + _RECORD.size
            body = bytes(buffer[body_start : body_start + body_len])
            vector = None
            if width:
                fmt = f"<{dims}{'f' if width == 4 else 'd'}"
                vector = struct.unpack_from(fmt, buffer, body_start + body_len)
            yield Record(RecordKind(kind), ordinal, body, vector)
            offset = end
        del buffer[:offset]

    def finish(self) -> None:
        if self._buffer:
            raise SynxFormatError("a part ends inside a record")


def _check_record_head(kind: int, width: int, body_len: int, dims: int) -> None:
    if kind not in _KINDS:
        raise SynxFormatError(f"unknown record kind {kind}")
    if width not in (0, 4, 8) or (width == 0) != (dims == 0) or dims > MAX_VECTOR_DIMS:
        raise SynxFormatError("malformed vector in a record")
    if body_len > MAX_RECORD_JSON_BYTES:
        raise SynxFormatError(f"record of {body_len} bytes exceeds the limit")


# --- partitioning ------------------------------------------------------------------------------


class PartKind(StrEnum):
    CORE = "core"
    DOMAIN = "domain"
    SESSION = "session"


class PartitionPolicy(BaseModel):
    """Writer-side only: a reader accepts any partition, so changing these never breaks old
    files."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Connected groups of domain memories smaller than this share one "general" topic part, so
    # a graph of scattered facts does not become thousands of tiny parts.
    min_topic_nodes: Annotated[int, Field(ge=1)] = 8
    # Episodic memories: the traces of a conversation, filed under sessions/.
    session_types: frozenset[NodeType] = frozenset({NodeType.EVENT, NodeType.EMOTIONAL_NOTE})


DEFAULT_POLICY = PartitionPolicy()


@dataclass(frozen=True)
class PartPlan:
    """Which records (by position in the snapshot) one part holds."""

    name: str
    kind: PartKind
    label: str  # the session day or topic anchor; kept in the encrypted manifest only
    nodes: tuple[int, ...]
    edges: tuple[int, ...] = ()
    hypotheses: tuple[int, ...] = ()
    tensions: tuple[int, ...] = ()


def is_core(node: Node) -> bool:
    """Pinned facts and the base profile: pinned memories, people, and observed stable facts."""
    if node.is_pinned or node.type is NodeType.PERSON:
        return True
    return (
        node.type is NodeType.FACT
        and not node.is_inference
        and node.belief.permanence is Permanence.STABLE
    )


def session_day(node: Node) -> str:
    """Nodes carry message ids but no session id; the UTC day a memory was formed is the
    closest stable stand-in for the conversation it came from."""
    return node.created_at.astimezone(UTC).date().isoformat()


def partition(
    nodes: Sequence[Node],
    edges: Sequence[Edge],
    hypotheses: Sequence[Hypothesis],
    tensions: Sequence[Tension],
    policy: PartitionPolicy = DEFAULT_POLICY,
) -> list[PartPlan]:
    """Core first, then topics, then sessions; names are ordinals (`domain/0001`) so that the
    clear-text part names reveal nothing about topics or dates. Deterministic for a given
    snapshot. Edges, hypotheses and tensions follow the node they hang on (edge source,
    hypothesis node, tension side a); anything pointing at an absent node goes to core."""
    core: list[int] = []
    sessions: dict[str, list[int]] = defaultdict(list)
    domain: list[int] = []
    for i, node in enumerate(nodes):
        if is_core(node):
            core.append(i)
        elif node.type in policy.session_types:
            sessions[session_day(node)].append(i)
        else:
            domain.append(i)

    node_groups: list[tuple[PartKind, str, list[int]]] = [(PartKind.CORE, CORE, core)]
    node_groups += [
        (PartKind.DOMAIN, label, members)
        for label, members in _topics(nodes, domain, edges, policy.min_topic_nodes)
    ]
    node_groups += [(PartKind.SESSION, day, sessions[day]) for day in sorted(sessions)]

    names = _ordinal_names(node_groups)
    home_of_id = {nodes[i].id: g for g, (_, _, members) in enumerate(node_groups) for i in members}
    edge_slots = _assign(len(node_groups), (home_of_id.get(e.source_id, 0) for e in edges))
    hyp_slots = _assign(len(node_groups), (home_of_id.get(h.node_id, 0) for h in hypotheses))
    ten_slots = _assign(len(node_groups), (home_of_id.get(t.node_a, 0) for t in tensions))
    return [
        PartPlan(
            name=names[g],
            kind=kind,
            label=label,
            nodes=tuple(members),
            edges=tuple(edge_slots[g]),
            hypotheses=tuple(hyp_slots[g]),
            tensions=tuple(ten_slots[g]),
        )
        for g, (kind, label, members) in enumerate(node_groups)
    ]


def _assign(groups: int, homes: Iterator[int]) -> list[list[int]]:
    slots: list[list[int]] = [[] for _ in range(groups)]
    for position, group in enumerate(homes):
        slots[group].append(position)
    return slots


def _ordinal_names(groups: Sequence[tuple[PartKind, str, list[int]]]) -> list[str]:
    counters = {PartKind.DOMAIN: 0, PartKind.SESSION: 0}
    prefixes = {PartKind.DOMAIN: DOMAIN_PREFIX, PartKind.SESSION: SESSION_PREFIX}
    names = []
    for kind, _, _ in groups:
        if kind is PartKind.CORE:
            names.append(CORE)
            continue
        counters[kind] += 1
        names.append(f"{prefixes[kind]}{counters[kind]:04d}")
    return names


def _topics(
    nodes: Sequence[Node], members: list[int], edges: Sequence[Edge], min_size: int
) -> list[tuple[str, list[int]]]:
    """Connected components of the domain memories (any edge type joins them), labelled by
    their smallest node id; the small ones pooled into "general"."""
    parent = {nodes[i].id: nodes[i].id for i in members}

    def root(node_id: str) -> str:
        while parent[node_id] != node_id:
            parent[node_id] = parent[parent[node_id]]
            node_id = parent[node_id]
        return node_id

    for edge in edges:
        if edge.source_id in parent and edge.target_id in parent:
            a, b = root(edge.source_id), root(edge.target_id)
            if a != b:
                parent[max(a, b)] = min(a, b)  # the smallest id ends up as the root

    components: dict[str, list[int]] = defaultdict(list)
    for i in members:
        components[root(nodes[i].id)].append(i)
    topics = [(anchor, group) for anchor, group in components.items() if len(group) >= min_size]
    topics.sort()
    general = sorted(i for group in components.values() if len(group) < min_size for i in group)
    if general:
        topics.append(("general", general))
    return topics


# --- manifest ------------------------------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Counts(_Strict):
    nodes: int = 0
    edges: int = 0
    hypotheses: int = 0
    tensions: int = 0


class PartEntry(_Strict):
    name: str
    kind: PartKind
    label: str
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    plaintext_bytes: int
    counts: Counts


class SynxManifest(_Strict):
    """The last part of every file: what the other parts must contain, checked before a reader
    returns anything."""

    synx_version: int
    tenant_id: str
    user_id: str
    partition_rule: int
    # The snapshot's own fields other than its collections (user, export time, its version).
    snapshot: dict[str, JsonValue]
    parts: tuple[PartEntry, ...]
    totals: Counts

    @property
    def sessions(self) -> tuple[PartEntry, ...]:
        """The session index: one entry per conversation day, with its counts."""
        return tuple(p for p in self.parts if p.kind is PartKind.SESSION)

    @property
    def topics(self) -> tuple[PartEntry, ...]:
        return tuple(p for p in self.parts if p.kind is PartKind.DOMAIN)
