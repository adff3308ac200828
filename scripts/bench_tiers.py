"""Storage tiers: archive (Neo4j export -> SYNX -> S3) and rehydrate (S3 -> SYNX -> Neo4j import)
times through real SeaweedFS and Neo4j, and SYNX size against plain JSON.

Usage: python scripts/bench_tiers.py [--sizes 1000 10000 50000] [--repeats 3] [--no-write]

Starts its own isolated stack (free ports, temporary data dir, no LLM, no API or workers) and
stops it at the end. Each size is measured `--repeats` times (medians reported; sizes above
20,000 nodes once unless --repeats-large). It calls the same adapters the tier activities call,
phase by phase; Temporal adds a few activity round trips on top (milliseconds each). Prints a
Markdown table and replaces the `## Storage tiers` section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypeVar

import numpy as np

from selfimprint.adapters.graph_archive import GraphArchive, build_archive
from selfimprint.adapters.neo4j import Neo4jGraphStore, migrate, open_driver
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.config import Settings
from selfimprint.devstack import stack
from selfimprint.devstack.ports import isolated_port_settings
from selfimprint.devstack.report import replace_section
from selfimprint.domain.models import Belief, Edge, EdgeType, Node, NodeType, Valence
from selfimprint.domain.users import Tier, UserProfile, UserScope
from selfimprint.logging import configure_logging
from selfimprint.ports import GraphSnapshot

SECTION = "## Storage tiers"
T0 = datetime(2026, 1, 1, tzinfo=UTC)
_TYPES = (NodeType.FACT, NodeType.FACT, NodeType.EVENT, NodeType.PERSON, NodeType.EMOTIONAL_NOTE)
T = TypeVar("T")


def synthetic_graph(user: str, count: int, dim: int, seed: int = 7) -> GraphSnapshot:
    """As scripts/bench_synx.py: random normalised float32 vectors, mixed types over 60 days,
    one edge per two nodes."""
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
                user_id=user,
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
    edges = [
        Edge(
            source_id=f"n-{i:06d}",
            target_id=f"n-{(i + 1 + int(rng.integers(0, 50))) % count:06d}",
            type=EdgeType.ASSOCIATED_WITH,
            created_at=T0,
        )
        for i in range(0, count - 1, 2)
    ]
    return GraphSnapshot(
        user_id=user,
        exported_at=T0 + timedelta(days=61),
        nodes=tuple(nodes),
        edges=tuple(
            {(e.source_id, e.target_id): e for e in edges if e.source_id != e.target_id}.values()
        ),
        hypotheses=(),
        tensions=(),
    )


async def timed(work: Awaitable[T]) -> tuple[T, float]:
    started = time.perf_counter()
    result = await work
    return result, time.perf_counter() - started


async def bench_size(
    graph: Neo4jGraphStore,
    accounts: Neo4jAccounts,
    archive: GraphArchive,
    size: int,
    repeats: int,
    dim: int,
) -> dict[str, float]:
    tenant, user = "bench", f"user-{size}"
    await accounts.put_profile(UserScope(tenant, user), UserProfile())
    store = graph.for_user(tenant, user)
    snapshot = synthetic_graph(user, size, dim)
    _, load_s = await timed(store.import_graph(snapshot))
    json_bytes = len(snapshot.model_dump_json().encode())
    del snapshot
    runs: dict[str, list[float]] = {}

    def note(name: str, seconds: float) -> None:
        runs.setdefault(name, []).append(seconds)

    synx_bytes = 0
    for _ in range(repeats):
        exported, s = await timed(store.export_graph(datetime.now(UTC)))
        note("export", s)
        archived, s = await timed(
            asyncio.to_thread(archive.write, tenant, user, Tier.WARM, exported)
        )
        note("encode_upload", s)
        synx_bytes = archived.size
        del exported
        _, s = await timed(asyncio.to_thread(archive.read, tenant, user, Tier.WARM))
        note("verify_read", s)
        _, s = await timed(store.delete_graph())
        note("drop", s)

        read, s = await timed(asyncio.to_thread(archive.read, tenant, user, Tier.WARM))
        note("download_decode", s)
        _, s = await timed(store.import_graph(read.snapshot))
        note("import", s)
        counts, s = await timed(store.counts())
        note("count_check", s)
        assert counts.nodes == size
        del read
    medians = {name: statistics.median(values) for name, values in runs.items()}
    medians["archive_total"] = sum(
        medians[k] for k in ("export", "encode_upload", "verify_read", "drop")
    )
    medians["rehydrate_total"] = sum(
        medians[k] for k in ("download_decode", "import", "count_check")
    )
    medians.update(
        load=load_s, synx_bytes=synx_bytes, json_bytes=json_bytes, repeats=len(runs["export"])
    )
    await store.delete_graph()
    archive.delete_user(tenant, user)
    return medians


def mib(n: float) -> str:
    return f"{n / (1 << 20):.1f} MiB"


def table(results: dict[int, dict[str, float]]) -> str:
    rows = [
        "| nodes | runs | archive total | export | SYNX encode + upload | read back + verify | "
        "drop from Neo4j | rehydrate total | download + decrypt + decode | import (1 tx) | "
        "count check | SYNX | JSON | SYNX/JSON |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for size, r in results.items():
        rows.append(
            f"| {size:,} | {int(r['repeats'])} | {r['archive_total']:.2f} s | {r['export']:.2f} s"
            f" | {r['encode_upload']:.2f} s | {r['verify_read']:.2f} s | {r['drop']:.2f} s"
            f" | **{r['rehydrate_total']:.2f} s** | {r['download_decode']:.2f} s"
            f" | {r['import']:.2f} s | {r['count_check'] * 1000:.0f} ms"
            f" | {mib(r['synx_bytes'])} | {mib(r['json_bytes'])}"
            f" | {r['synx_bytes'] / r['json_bytes']:.2f} |"
        )
    return "\n".join(rows)


async def run(settings: Settings, sizes: list[int], repeats: int, large: int, dim: int) -> str:
    driver = open_driver(settings)
    try:
        await migrate(driver, settings.neo4j_database)
        graph = Neo4jGraphStore(driver, settings.neo4j_database)
        accounts = Neo4jAccounts(driver, settings.neo4j_database)
        archive = build_archive(settings, dict(os.environ))
        results = {}
        for size in sizes:
            results[size] = await bench_size(
                graph, accounts, archive, size, repeats if size <= 20_000 else large, dim
            )
            print(f"{size}: {results[size]}", file=sys.stderr)  # noqa: T201 - progress
    finally:
        await driver.close()
    return table(results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 50_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--repeats-large", type=int, default=1)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--neo4j-heap", default="2g")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    configure_logging("warning", "console")
    with tempfile.TemporaryDirectory(prefix="bench-tiers-") as tmp:
        settings = Settings(
            data_dir=Path(tmp),
            run_api=False,
            run_workers=False,
            llm_base_url="http://127.0.0.1:9/v1",  # no local LLM server
            neo4j_heap=args.neo4j_heap,
            **isolated_port_settings(),  # type: ignore[arg-type]
        )
        stack.up(settings)
        try:
            body = asyncio.run(
                run(settings, args.sizes, args.repeats, args.repeats_large, args.dim)
            )
        finally:
            stack.down(settings)
    command = "python scripts/bench_tiers.py " + " ".join(sys.argv[1:])
    section = (
        f"{SECTION}\n\nCommand: `{command.strip()}`\n\n"
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs shared with other work "
        f"(timings are noisy; the phases were measured side by side in one run). Isolated "
        f"stack: Neo4j 5.26 (heap {args.neo4j_heap}), SeaweedFS S3 on loopback. Synthetic "
        f"graphs as in `## SYNX` ({args.dim}-dim float32 embeddings, one edge per two nodes). "
        f"Medians of the runs shown. Archive = what hot -> warm does before recording the "
        f"tier; rehydrate = what -> hot does before recording the tier.\n\n{body}\n"
    )
    print(section)  # noqa: T201 - the report
    if not args.no_write:
        replace_section(section)


if __name__ == "__main__":
    main()
