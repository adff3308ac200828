"""SYNX encode/decode time and size against plain JSON and zstd-compressed JSON.

Usage: python scripts/bench_synx.py [--sizes 1000 10000 50000] [--dim 384] [--no-write]

Graphs are synthetic: random normalised float32 embeddings (what embedders return), a mix of node
types over 60 days, one edge per two nodes. JSON is the snapshot's own `model_dump_json`, parsed
back with `model_validate_json`. A second, traced pass measures the memory SYNX needs beyond the
graph itself (tracemalloc; slower, so its timings are not used). Prints a Markdown table and
replaces the `## SYNX` section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TypeVar

import numpy as np
import zstandard

from selfimprint.adapters.synx import DEFAULT_ZSTD_LEVEL, read_synx, write_synx
from selfimprint.devstack.report import replace_section
from selfimprint.domain.models import Belief, Edge, EdgeType, Node, NodeType, Valence
from selfimprint.logging import configure_logging
from selfimprint.ports import DataKey, GraphSnapshot

SECTION = "## SYNX"
T0 = datetime(2026, 1, 1, tzinfo=UTC)
_TYPES = (NodeType.FACT, NodeType.FACT, NodeType.EVENT, NodeType.PERSON, NodeType.EMOTIONAL_NOTE)
ResultT = TypeVar("ResultT")


def synthetic_graph(count: int, dim: int, seed: int = 7) -> GraphSnapshot:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((count, dim), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    nodes = []
    for i in range(count):
        kind = _TYPES[i % len(_TYPES)]
        at = T0 + timedelta(minutes=int(rng.integers(0, 60 * 24 * 60)))
        nodes.append(
            Node(
                id=f"n-{i:06d}",
                user_id="bench-user",
                type=kind,
                content=f"Synthetic memory {i}: the user mentioned topic {i % 97} again",
                valence=Valence.POSITIVE if kind is NodeType.EMOTIONAL_NOTE else None,
                weight=float(rng.random()),
                weight_at=at,
                created_at=at,
                sources=(f"msg-{i}",),
                belief=Belief(first_seen=at),
                embedding=tuple(vectors[i].tolist()),
                embedding_model="intfloat/multilingual-e5-small",
            )
        )
    edges = tuple(
        Edge(
            source_id=f"n-{i:06d}",
            target_id=f"n-{(i + 1 + int(rng.integers(0, 50))) % count:06d}",
            type=EdgeType.ASSOCIATED_WITH,
            created_at=T0,
        )
        for i in range(0, count - 1, 2)
    )
    return GraphSnapshot(
        user_id="bench-user",
        exported_at=T0 + timedelta(days=61),
        nodes=tuple(nodes),
        edges=tuple(e for e in edges if e.source_id != e.target_id),
        hypotheses=(),
        tensions=(),
    )


def timed(action: Callable[[], ResultT], repeat: int) -> tuple[float, ResultT]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = action()
        best = min(best, time.perf_counter() - start)
    assert result is not None
    return best, result


@dataclass(frozen=True)
class Row:
    codec: str
    size: int
    encode_s: float
    decode_s: float


def measure(graph: GraphSnapshot, key: DataKey, repeat: int) -> list[Row]:
    def synx_encode() -> bytes:
        sink = io.BytesIO()
        write_synx(graph, sink, key)
        return sink.getvalue()

    enc, blob = timed(synx_encode, repeat)
    dec, back = timed(lambda: read_synx(io.BytesIO(blob), key), repeat)
    assert back == graph
    rows = [Row("SYNX (zstd + AES-GCM)", len(blob), enc, dec)]

    enc, text = timed(lambda: graph.model_dump_json().encode(), repeat)
    dec, _ = timed(lambda: GraphSnapshot.model_validate_json(text), repeat)
    rows.append(Row("JSON", len(text), enc, dec))
    text = b""  # free it before the next codec

    def zstd_json() -> bytes:
        compressor = zstandard.ZstdCompressor(level=DEFAULT_ZSTD_LEVEL)
        return compressor.compress(graph.model_dump_json().encode())

    enc, packed = timed(zstd_json, repeat)
    decompressor = zstandard.ZstdDecompressor()
    dec, _ = timed(
        lambda: GraphSnapshot.model_validate_json(decompressor.decompress(packed)), repeat
    )
    rows.append(Row(f"JSON + zstd-{DEFAULT_ZSTD_LEVEL}", len(packed), enc, dec))
    return rows


class _Discard:
    def write(self, data: bytes) -> None:
        pass


def synx_memory(graph: GraphSnapshot, key: DataKey) -> tuple[int, int, int]:
    """Peak bytes the writer allocates, peak bytes the reader holds beyond the graph it returns,
    and the size of that graph (all by tracemalloc)."""
    sink = io.BytesIO()
    write_synx(graph, sink, key)
    blob = sink.getvalue()
    del sink
    tracemalloc.start()
    try:
        write_synx(graph, _Discard(), key)
        _, write_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        before, _ = tracemalloc.get_traced_memory()
        back = read_synx(io.BytesIO(blob), key)
        after, read_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del back
    return write_peak, read_peak - after, after - before


def mib(size: float) -> str:
    return f"{size / 2**20:,.1f} MiB"


def run(sizes: list[int], dim: int) -> tuple[list[str], list[str]]:
    key = DataKey("bench", "bench-user", 1, os.urandom(32))
    speed, memory = [], []
    for count in sizes:
        graph = synthetic_graph(count, dim)
        rows = measure(graph, key, repeat=3 if count <= 10_000 else 1)
        json_size = rows[1].size
        speed += [
            f"| {count:,} | {row.codec} | {mib(row.size)} | {row.size / json_size:.2f} "
            f"| {row.encode_s:.2f} s | {row.decode_s:.2f} s |"
            for row in rows
        ]
        write_peak, read_extra, graph_bytes = synx_memory(graph, key)
        memory.append(f"| {count:,} | {mib(graph_bytes)} | {mib(write_peak)} | {mib(read_extra)} |")
        sys.stdout.write(f"{count:,} nodes done\n")
    return speed, memory


def section(speed: list[str], memory: list[str], command: str) -> str:
    return "\n".join(
        [
            SECTION,
            "",
            f"Command: `{command}`",
            "",
            f"Python {platform.python_version()}, {os.cpu_count()} CPUs shared with other work "
            "(timings are noisy; the ratios hold).",
            "Best of 3 runs up to 10k nodes, one run above. SYNX with its defaults (zstd level 3,",
            "1 MiB frames). Embeddings are 384 float32 values per node: 4 bytes each in SYNX,",
            "decimal text in JSON.",
            "",
            "| nodes | codec | size | size vs JSON | encode | decode |",
            "|---|---|---|---|---|---|",
            *speed,
            "",
            "Memory SYNX needs beyond the graph itself (tracemalloc): the writer's peak, and what",
            "the reader holds at its peak beyond the snapshot it returns.",
            "",
            "| nodes | graph in memory | writer peak | reader beyond the graph |",
            "|---|---|---|---|",
            *memory,
            "",
        ]
    )


def write_section(text_section: str) -> None:
    replace_section(text_section)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 50_000])
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--no-write", action="store_true", help="do not touch BENCHMARKS.md")
    args = parser.parse_args()
    configure_logging("warning", "console")
    speed, memory = run(args.sizes, args.dim)
    sizes = " ".join(str(size) for size in args.sizes)
    command = f"python scripts/bench_synx.py --sizes {sizes} --dim {args.dim}"
    text_section = section(speed, memory, command)
    sys.stdout.write(text_section)
    if not args.no_write:
        write_section(text_section)


if __name__ == "__main__":
    main()
