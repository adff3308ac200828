"""SYNX: exact round trips, partitioning, and rejection of every kind of damaged or foreign file."""

from __future__ import annotations

import io
import os
import struct
import tracemalloc
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from selfimprint.adapters.synx import decode_synx, encode_synx, read_synx, write_synx
from selfimprint.domain.models import (
    Belief,
    Edge,
    EdgeType,
    Hypothesis,
    Node,
    NodeType,
    Permanence,
    Tension,
    Valence,
)
from selfimprint.domain.synx_layout import (
    FRAME_FINAL,
    FRAME_HEAD,
    MANIFEST,
    PartitionPolicy,
    PartKind,
    SynxError,
    SynxFormatError,
    SynxIntegrityError,
    SynxOwnerError,
    SynxTruncatedError,
    SynxVersionError,
    SynxWrongKeyError,
    partition,
)
from selfimprint.ports import DataKey, GraphSnapshot

pytestmark = pytest.mark.unit

T0 = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)
MATERIAL = bytes(range(32))


def data_key(user: str = "u-a", tenant: str = "acme", material: bytes = MATERIAL) -> DataKey:
    return DataKey(tenant_id=tenant, user_id=user, version=1, material=material)


def node(node_id: str, user: str = "u-a", **fields: Any) -> Node:
    created = fields.pop("created_at", T0)
    values: dict[str, Any] = {
        "id": node_id,
        "user_id": user,
        "type": NodeType.FACT,
        "content": f"memory {node_id}",
        "weight_at": created,
        "created_at": created,
        "belief": Belief(first_seen=created),
    }
    return Node.model_validate(values | fields)


def edge(source: str, target: str, kind: EdgeType = EdgeType.ASSOCIATED_WITH) -> Edge:
    return Edge(source_id=source, target_id=target, type=kind, created_at=T0)


def sample_snapshot(user: str = "u-a", salt: str = "") -> GraphSnapshot:
    """Core, two topics, two session days, a hypothesis and a tension."""
    day = timedelta(days=1)
    nodes = [
        node("p-1", user, type=NodeType.PERSON, content=f"Sister Anna{salt}"),
        node("f-pin", user, is_pinned=True, content="Allergic to penicillin"),
        *(node(f"w-{i}", user, content=f"Works as a nurse in Tartu {i}") for i in range(3)),
        *(node(f"h-{i}", user, content=f"Плавает по утрам {i}") for i in range(3)),
        node("e-1", user, type=NodeType.EVENT, content="Night shift went badly"),
        node(
            "e-2",
            user,
            type=NodeType.EMOTIONAL_NOTE,
            valence=Valence.NEGATIVE,
            content="Tired and annoyed",
            created_at=T0 + day,
        ),
        node(
            "hyp-1",
            user,
            type=NodeType.HYPOTHESIS,
            is_inference=True,
            content="Night shifts drain her",
            embedding=(0.1, -0.0, 1e-300, 3.0),
            embedding_model="e5",
        ),
        node("v-1", user, embedding=(0.5, 0.25), embedding_model="e5"),
    ]
    edges = [
        edge("w-0", "w-1"),
        edge("w-1", "w-2"),
        edge("h-0", "h-1"),
        edge("h-1", "h-2"),
        edge("e-1", "e-2", EdgeType.CAUSED_BY),
        edge("hyp-1", "w-0"),
    ]
    hypotheses = [
        Hypothesis(node_id="hyp-1", supporting=("e-1",), created_at=T0, deadline=T0 + 14 * day)
    ]
    tensions = [Tension(id="t-1", node_a="w-0", node_b="h-0", detected_at=T0)]
    return GraphSnapshot(
        user_id=user,
        exported_at=T0 + 30 * day,
        nodes=tuple(nodes),
        edges=tuple(edges),
        hypotheses=tuple(hypotheses),
        tensions=tuple(tensions),
    )


SMALL_TOPICS = PartitionPolicy(min_topic_nodes=3)


def to_bytes(snapshot: GraphSnapshot, key: DataKey, chunk_bytes: int = 128) -> bytes:
    sink = io.BytesIO()
    write_synx(snapshot, sink, key, chunk_bytes=chunk_bytes, policy=SMALL_TOPICS)
    return sink.getvalue()


def from_bytes(data: bytes, key: DataKey) -> GraphSnapshot:
    return read_synx(io.BytesIO(data), key)


@pytest.fixture(scope="module")
def sample_file() -> bytes:
    return to_bytes(sample_snapshot(), data_key())


@pytest.fixture(scope="module")
def tiny_file() -> bytes:
    """Three parts and a manifest in ~2 KB, for tests that read the file once per byte."""
    snapshot = GraphSnapshot(
        user_id="u-a",
        exported_at=T0,
        nodes=(
            node("p-1", type=NodeType.PERSON),
            node("f-1", embedding=(0.5,), embedding_model="e5"),
            node("e-1", type=NodeType.EVENT),
        ),
        edges=(edge("f-1", "e-1"),),
        hypotheses=(),
        tensions=(),
    )
    return to_bytes(snapshot, data_key(), chunk_bytes=64)


def probe_offsets(data: bytes) -> list[int]:
    """Every structural byte (header, part starts, frame heads), each side of every boundary,
    and every third byte of the sealed payloads."""
    header_len, parts, frames = walk(data)
    points = set(range(header_len)) | set(range(0, len(data), 3))
    for _, start, end in parts:
        points |= {start - 1, start, start + 1, start + 2, end - 1}
    for _, start, end in frames:
        points |= set(range(start, start + FRAME_HEAD.size + 1)) | {end - 1}
    return sorted(p for p in points if 0 <= p < len(data))


# --- the file's structure, walked independently of the reader --------------------------------


def walk(data: bytes) -> tuple[int, list[tuple[str, int, int]], list[tuple[str, int, int]]]:
    """Header length; each part's (name, start, end); each frame's (part, start, end)."""
    tenant_len = struct.unpack_from(">H", data, 48)[0]
    user_len = struct.unpack_from(">H", data, 50 + tenant_len)[0]
    offset = header_len = 52 + tenant_len + user_len
    parts, frames = [], []
    while offset < len(data):
        start = offset
        name_len = struct.unpack_from(">H", data, offset + 1)[0]
        name = data[offset + 3 : offset + 3 + name_len].decode()
        offset += 3 + name_len
        while True:
            flags, length, _ = FRAME_HEAD.unpack_from(data, offset)
            frames.append((name, offset, offset + FRAME_HEAD.size + length))
            offset += FRAME_HEAD.size + length
            if flags & FRAME_FINAL:
                break
        parts.append((name, start, offset))
    return header_len, parts, frames


def cut(data: bytes, start: int, end: int) -> bytes:
    return data[:start] + data[end:]


# --- round trips ---------------------------------------------------------------------------


def test_a_graph_round_trips_exactly_with_its_order_and_float_bits(sample_file: bytes) -> None:
    original = sample_snapshot()
    back = from_bytes(sample_file, data_key())
    assert back == original
    # JSON equality also catches -0.0 vs 0.0 and lost timezone offsets.
    assert back.model_dump_json() == original.model_dump_json()


def test_nothing_readable_leaks_into_the_file(sample_file: bytes) -> None:
    assert b"nurse" not in sample_file
    assert "Плавает".encode() not in sample_file
    assert b"2026-03-1" not in sample_file  # session days live in the encrypted manifest only
    assert b"sessions/0001" in sample_file  # the clear-text part names are bare ordinals


def test_the_manifest_indexes_sessions_and_checksums_every_part() -> None:
    manifest = write_synx(sample_snapshot(), io.BytesIO(), data_key(), policy=SMALL_TOPICS)
    assert [p.label for p in manifest.sessions] == ["2026-03-10", "2026-03-11"]
    assert [p.label for p in manifest.topics] == ["h-0", "hyp-1", "general"]
    assert manifest.totals.nodes == 12
    assert sum(p.counts.nodes for p in manifest.parts) == 12
    assert all(len(p.sha256) == 64 for p in manifest.parts)


def test_streaming_apis_accept_odd_block_boundaries() -> None:
    blocks = list(encode_synx(sample_snapshot(), data_key(), chunk_bytes=16))
    joined = b"".join(blocks)
    seven_byte_blocks = (joined[i : i + 7] for i in range(0, len(joined), 7))
    assert decode_synx(seven_byte_blocks, data_key()) == sample_snapshot()


_TZ = st.sampled_from([UTC, timezone(timedelta(hours=3)), timezone(timedelta(hours=-5))])


@st.composite
def graphs(draw: st.DrawFn) -> GraphSnapshot:
    count = draw(st.integers(0, 7))
    nodes = []
    for i in range(count):
        kind = draw(st.sampled_from(list(NodeType)))
        created = T0.astimezone(draw(_TZ)) + timedelta(hours=draw(st.integers(0, 100)))
        vector = draw(
            st.none()
            | st.tuples(st.floats(allow_nan=False, allow_infinity=False, width=64))
            | st.lists(st.floats(-1, 1, width=32), min_size=1, max_size=6).map(tuple)
        )
        nodes.append(
            node(
                f"n-{i}",
                type=kind,
                content=draw(st.text(min_size=1, max_size=20).filter(str.strip)),
                created_at=created,
                valence=Valence.POSITIVE if kind is NodeType.EMOTIONAL_NOTE else None,
                is_inference=kind is NodeType.HYPOTHESIS or draw(st.booleans()),
                is_pinned=draw(st.booleans()),
                weight=draw(st.floats(0, 1)),
                sources=tuple(draw(st.lists(st.sampled_from(["m-1", "m-2", "m:3"]), max_size=2))),
                belief=Belief(first_seen=created, permanence=draw(st.sampled_from(Permanence))),
                embedding=vector,
                embedding_model=None if vector is None else "e5",
            )
        )
    pairs = st.tuples(st.integers(0, max(count - 1, 0)), st.integers(0, max(count - 1, 0)))
    edges = {
        (a, b, kind)
        for a, b in draw(st.lists(pairs, max_size=8))
        if a != b
        for kind in [draw(st.sampled_from(list(EdgeType)))]
    }
    hypotheses = [
        Hypothesis(node_id=n.id, created_at=n.created_at, deadline=n.created_at + timedelta(1))
        for n in nodes
        if n.type is NodeType.HYPOTHESIS
    ]
    tensions = [
        Tension(id=f"t-{a}-{b}", node_a=f"n-{a}", node_b=f"n-{b}", detected_at=T0)
        for a, b, kind in sorted(edges)
        if kind is EdgeType.CONTRADICTS
    ]
    return GraphSnapshot(
        user_id="u-a",
        exported_at=T0,
        nodes=tuple(nodes),
        edges=tuple(edge(f"n-{a}", f"n-{b}", kind) for a, b, kind in sorted(edges)),
        hypotheses=tuple(hypotheses),
        tensions=tuple(tensions),
    )


@settings(max_examples=40, deadline=None)
@given(graphs(), st.integers(16, 256), st.integers(1, 4))
def test_any_graph_survives_synx_unchanged(
    graph: GraphSnapshot, chunk_bytes: int, min_topic: int
) -> None:
    sink = io.BytesIO()
    policy = PartitionPolicy(min_topic_nodes=min_topic)
    write_synx(graph, sink, data_key(), chunk_bytes=chunk_bytes, policy=policy)
    back = from_bytes(sink.getvalue(), data_key())
    assert back == graph
    assert back.model_dump_json() == graph.model_dump_json()


def test_a_snapshot_is_written_only_with_its_owners_key() -> None:
    with pytest.raises(ValueError, match="data key"):
        to_bytes(sample_snapshot("u-a"), data_key("u-b"))
    mixed = sample_snapshot().model_copy(update={"nodes": (node("x", user="u-b"),)})
    with pytest.raises(ValueError, match="nodes of"):
        to_bytes(mixed, data_key())


# --- partitioning ------------------------------------------------------------------------------


def test_partitioning_files_profile_sessions_and_topics() -> None:
    snap = sample_snapshot()
    plans = partition(snap.nodes, snap.edges, snap.hypotheses, snap.tensions, SMALL_TOPICS)
    by_label = {p.label: p for p in plans}
    ids = {p.label: {snap.nodes[i].id for i in p.nodes} for p in plans}
    assert plans[0].kind is PartKind.CORE
    assert ids["core"] == {"p-1", "f-pin"}
    assert ids["2026-03-10"] == {"e-1"} and ids["2026-03-11"] == {"e-2"}
    assert ids["h-0"] == {"h-0", "h-1", "h-2"}
    # hyp-1 -> w-0 joins the work topic, labelled by its smallest id.
    assert ids["hyp-1"] == {"w-0", "w-1", "w-2", "hyp-1"}
    assert ids["general"] == {"v-1"}  # a component below min_topic_nodes
    # Edges travel with their source node, tensions with side a, hypotheses with their node.
    work = by_label["hyp-1"]
    assert {snap.edges[i].source_id for i in work.edges} == {"w-0", "w-1", "hyp-1"}
    assert work.tensions == (0,)
    assert work.hypotheses == (0,)
    assert [p.name for p in plans] == [
        "core",
        "domain/0001",
        "domain/0002",
        "domain/0003",
        "sessions/0001",
        "sessions/0002",
    ]


# --- rejection --------------------------------------------------------------------------------


def test_a_flipped_byte_anywhere_is_rejected(tiny_file: bytes) -> None:
    header_len, _, frames = walk(tiny_file)
    # nonce, ciphertext and tag of every frame
    sealed = {i for _, start, end in frames for i in range(start + 5, end)}
    for offset in probe_offsets(tiny_file):
        damaged = bytearray(tiny_file)
        damaged[offset] ^= 0x01
        with pytest.raises(SynxError) as caught:
            from_bytes(bytes(damaged), data_key())
        if offset in sealed:
            assert type(caught.value) is SynxIntegrityError, offset
    assert header_len < min(sealed)


@pytest.mark.parametrize(
    ("offset", "error"),
    [(0, SynxFormatError), (9, SynxVersionError), (11, SynxFormatError), (40, SynxWrongKeyError)],
    ids=["magic", "version", "flags", "key-check"],
)
def test_header_damage_is_named(sample_file: bytes, offset: int, error: type[SynxError]) -> None:
    damaged = bytearray(sample_file)
    damaged[offset] ^= 0x04
    with pytest.raises(error):
        from_bytes(bytes(damaged), data_key())


def test_a_file_cut_anywhere_is_truncated(tiny_file: bytes) -> None:
    for length in probe_offsets(tiny_file):
        with pytest.raises(SynxTruncatedError):
            from_bytes(tiny_file[:length], data_key())


def test_bytes_after_the_manifest_are_rejected(sample_file: bytes) -> None:
    with pytest.raises(SynxFormatError, match="after the manifest"):
        from_bytes(sample_file + b"\x00", data_key())


def test_dropped_or_reordered_frames_and_parts_are_detected(sample_file: bytes) -> None:
    _, parts, frames = walk(sample_file)
    core_frames = [f for f in frames if f[0] == "core"]
    assert len(core_frames) >= 3
    (_, a0, a1), (_, b0, b1) = core_frames[0], core_frames[1]
    variants = {
        "drop a middle frame": cut(sample_file, b0, b1),
        "swap two frames": sample_file[:a0]
        + sample_file[b0:b1]
        + sample_file[a0:a1]
        + sample_file[b1:],
        "drop a whole part": cut(sample_file, parts[1][1], parts[1][2]),
        "mark a middle frame final": sample_file[:b0]
        + bytes([sample_file[b0] | FRAME_FINAL])
        + sample_file[b0 + 1 :],
        "replace the final frame by a copy of another": sample_file[: frames[-1][1]]
        + sample_file[frames[-2][1] : frames[-2][2]],
    }
    for label, damaged in variants.items():
        with pytest.raises(SynxIntegrityError):
            from_bytes(damaged, data_key())
        assert label


def test_a_wrong_key_is_named_as_such(sample_file: bytes) -> None:
    with pytest.raises(SynxWrongKeyError):
        from_bytes(sample_file, data_key(material=os.urandom(32)))
    stale = DataKey("acme", "u-a", 2, MATERIAL)
    with pytest.raises(SynxWrongKeyError, match="version 1"):
        from_bytes(sample_file, stale)


@pytest.mark.parametrize("version", [0, 2, 0xFFFF])
def test_unknown_format_versions_are_refused(sample_file: bytes, version: int) -> None:
    patched = sample_file[:8] + struct.pack(">H", version) + sample_file[10:]
    with pytest.raises(SynxVersionError, match=str(version)):
        from_bytes(patched, data_key())


def test_another_users_file_is_refused_even_with_the_same_key_material() -> None:
    theirs = to_bytes(sample_snapshot("u-b"), data_key("u-b"))
    with pytest.raises(SynxOwnerError, match="u-b"):
        from_bytes(theirs, data_key("u-a"))
    # Relabelled in the header: the AAD still names u-b, so authentication fails.
    relabelled = theirs.replace(b"\x00\x03u-b", b"\x00\x03u-a", 1)
    with pytest.raises(SynxIntegrityError):
        from_bytes(relabelled, data_key("u-a"))
    other_tenant = to_bytes(sample_snapshot(), data_key(tenant="globex"))
    with pytest.raises(SynxOwnerError, match="globex"):
        from_bytes(other_tenant, data_key())


def test_parts_cannot_move_between_files_users_or_names() -> None:
    mine = to_bytes(sample_snapshot(), data_key())
    _, my_parts, _ = walk(mine)

    def splice(target: bytes, index: int, donor: bytes, donor_index: int) -> bytes:
        _, target_parts, _ = walk(target)
        _, donor_parts, _ = walk(donor)
        _, s0, s1 = target_parts[index]
        _, d0, d1 = donor_parts[donor_index]
        return target[:s0] + donor[d0:d1] + target[s1:]

    another_export = to_bytes(sample_snapshot(salt="!"), data_key())
    other_user = to_bytes(sample_snapshot("u-b"), data_key("u-b"))
    sessions = [i for i, (name, _, _) in enumerate(my_parts) if name.startswith("sessions/")]
    renamed = mine.replace(b"sessions/0001", b"sessions/0003").replace(
        b"sessions/0002", b"sessions/0001"
    )
    cases = {
        "core of an older export of the same user": splice(mine, 0, another_export, 0),
        "core of another user": splice(mine, 0, other_user, 0),
        "two sessions swapped": splice(
            splice(mine, sessions[0], mine, sessions[1]), sessions[1], mine, sessions[0]
        ),
        "a part renamed": renamed,
    }
    for label, damaged in cases.items():
        assert damaged != mine, label
        with pytest.raises(SynxIntegrityError):
            from_bytes(damaged, data_key())


def test_the_manifest_is_required_last() -> None:
    data = to_bytes(sample_snapshot(), data_key())
    _, parts, _ = walk(data)
    assert parts[-1][0] == MANIFEST
    with pytest.raises(SynxTruncatedError):
        from_bytes(data[: parts[-1][1]], data_key())


# --- streaming -----------------------------------------------------------------------------


def synthetic(count: int) -> GraphSnapshot:
    belief = Belief(first_seen=T0)

    def nodes() -> Iterator[Node]:
        for i in range(count):
            at = T0 + timedelta(minutes=i)
            yield Node(
                id=f"n-{i}",
                user_id="u-a",
                type=NodeType.EVENT if i % 5 == 0 else NodeType.FACT,
                content=f"synthetic memory number {i}",
                weight_at=at,
                created_at=at,
                belief=belief,
                embedding=(i / count, 0.5, -0.25, 1.0),
                embedding_model="e5",
            )

    edges = (edge(f"n-{i}", f"n-{i + 1}") for i in range(0, count - 1, 2))
    return GraphSnapshot(
        user_id="u-a",
        exported_at=T0,
        nodes=tuple(nodes()),
        edges=tuple(edges),
        hypotheses=(),
        tensions=(),
    )


class _DiscardingSink:
    def write(self, data: bytes) -> None:
        pass


def test_large_graphs_stream_with_bounded_extra_memory() -> None:
    """3k nodes here (the 50k case runs in scripts/bench_synx.py): beyond the graph itself, the
    writer and the reader hold about a frame plus small per-node indexes, never a second copy."""
    graph = synthetic(3_000)
    key = data_key()
    frame = 8 * 1024
    data = to_bytes(graph, key, chunk_bytes=frame)
    assert len(data) > 4 * frame  # many frames, so this exercises streaming
    tracemalloc.start()
    try:
        write_synx(graph, _DiscardingSink(), key, chunk_bytes=frame)
        _, write_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        back = read_synx(io.BytesIO(data), key)
        after, read_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert back == graph
    graph_size = after - before  # what the reader built and returned
    assert write_peak < graph_size / 10
    assert read_peak - after < graph_size / 10


def test_a_reply_context_vector_round_trips_in_the_binary_tail() -> None:
    """domain.reply_context: the second vector follows the content's, bit for bit; the JSON body
    carries neither."""
    replied = node(
        "r-1",
        embedding=(0.5, -0.0, 1e-300),
        embedding_model="e5",
        context_embedding=(0.125, 3.0, -2.5),
        context_terms=("paint", "weekend"),
    )
    snapshot = sample_snapshot().model_copy(update={"nodes": (replied, *sample_snapshot().nodes)})
    back = from_bytes(to_bytes(snapshot, data_key()), data_key())
    assert back.model_dump_json() == snapshot.model_dump_json()
    by_id = {n.id: n for n in back.nodes}
    assert by_id["r-1"].context_embedding == (0.125, 3.0, -2.5)
    assert by_id["v-1"].context_embedding is None
