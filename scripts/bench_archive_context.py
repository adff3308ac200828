"""What a warm or cold user's first context costs when the API answers from their archive.

    .venv/bin/python scripts/bench_archive_context.py [--sizes 1000 10000] [--repeats 5]
        [--no-write]

The context route reads the user's SYNX object and ranks it in memory while the lifecycle brings
the graph back into Neo4j (api/routes/context.py). This measures the two CPU parts of that, side
by side on the same synthetic graphs as bench_tiers (384-dim vectors): decrypt + decode of the
SYNX bytes, and the exact-scan ranking over the snapshot. The S3 GET on loopback is in
bench_tiers ("download + decrypt + decode"). Replaces `## Context from the archive` in
BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import UTC, datetime

from bench_tiers import synthetic_graph

from selfimprint.adapters.snapshot_retrieval import retrieve_from_snapshot
from selfimprint.adapters.synx import decode_synx, encode_synx
from selfimprint.devstack.report import replace_section
from selfimprint.ports import DataKey, RetrievalQuery

SECTION = "## Context from the archive"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    key = DataKey("bench", "bench-user", 1, os.urandom(32))
    rows = []
    for size in args.sizes:
        graph = synthetic_graph("bench-user", size, 384)
        blob = b"".join(encode_synx(graph, key))
        probe = graph.nodes[size // 2]
        assert probe.embedding is not None and probe.embedding_model is not None
        query = RetrievalQuery(
            embedding=probe.embedding, embedding_model=probe.embedding_model, now=datetime.now(UTC)
        )
        decode, rank = [], []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            snapshot = decode_synx(iter([blob]), key)
            t1 = time.perf_counter()
            found = retrieve_from_snapshot(snapshot, query)
            t2 = time.perf_counter()
            assert found.candidates[0].node.id == probe.id
            decode.append(t1 - t0)
            rank.append(t2 - t1)
        d, r = statistics.median(decode), statistics.median(rank)
        rows.append(
            f"| {size:,} | {len(blob) / 2**20:.1f} MiB | {d:.3f} s | {r:.3f} s | {d + r:.3f} s |"
        )
        sys.stderr.write(f"{size}: decode {d:.3f} s, rank {r:.3f} s\n")
    lines = [
        SECTION,
        "",
        "Command: `.venv/bin/python scripts/bench_archive_context.py"
        + (f" --sizes {' '.join(map(str, args.sizes))}" if args.sizes != [1000, 10000] else "")
        + "`",
        "",
        f"Medians of {args.repeats} runs, one process, same graphs as `## Storage tiers`. The API "
        "adds the query embedding and assembly (see `## API`) and the S3 GET.",
        "",
        "| nodes | SYNX | decrypt + decode | rank (exact scan + one hop) | sum |",
        "|---|---|---|---|---|",
        *rows,
    ]
    sys.stdout.write("\n".join(lines) + "\n")
    if not args.no_write:
        replace_section("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
