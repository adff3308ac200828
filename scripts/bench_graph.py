"""Graph store benchmark: upsert throughput, retrieval latency (index vs exact scan), pruning cost.

Starts its own Neo4j 5.26 (the devstack launcher) in a temporary directory on a free port, runs
every measurement through the real store, prints the figures, replaces the `## Graph store`
section of BENCHMARKS.md with them, and stops Neo4j again.

    .venv/bin/python scripts/bench_graph.py [--users 1000] [--index-users 30] [--big-user 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from neo4j import AsyncDriver

from selfimprint.adapters.neo4j import Neo4jGraphStore, VectorSearchConfig, open_driver, retrieval
from selfimprint.adapters.neo4j.records import vector_index, vector_property
from selfimprint.config import Settings
from selfimprint.devstack.ports import free_ports
from selfimprint.devstack.process import ManagedProcess
from selfimprint.devstack.report import replace_section
from selfimprint.devstack.secrets import ensure_local_secrets
from selfimprint.devstack.services import Neo4jLocal
from selfimprint.domain.fading import FadingConfig
from selfimprint.domain.models import Belief, Node, NodeType
from selfimprint.logging import configure_logging, get_logger
from selfimprint.ports import RetrievalQuery

log = get_logger("bench_graph")
DIM = 384
MODEL = "bench-model"
NOW = datetime(2026, 3, 1, tzinfo=UTC)
EXACT = VectorSearchConfig(exact_scan_max_nodes=10**9)
INDEX = VectorSearchConfig(exact_scan_max_nodes=0, max_index_fetch=10**6)


def vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    normalised: np.ndarray = v / np.linalg.norm(v, axis=1, keepdims=True)
    return normalised


def nodes_for(user: str, n: int, rng: np.random.Generator | None, expired: int = 0) -> list[Node]:
    vecs = vectors(rng, n) if rng is not None else None
    belief = Belief(first_seen=NOW)
    return [
        Node(
            id=f"n{i}",
            user_id=user,
            type=NodeType.FACT,
            content=f"memory {i} of {user}",
            weight_at=NOW,
            created_at=NOW,
            belief=belief,
            expires_at=NOW - timedelta(days=1) if i < expired else NOW + timedelta(days=30),
            embedding=tuple(vecs[i].tolist()) if vecs is not None else None,
            embedding_model=MODEL if vecs is not None else None,
        )
        for i in range(n)
    ]


async def timed(calls: int, call: Callable[[], Awaitable[object]]) -> list[float]:
    for _ in range(10):  # warm-up: plans cached, pages in memory
        await call()
    out = []
    for _ in range(calls):
        t0 = time.perf_counter()
        await call()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def pct(samples: list[float], q: float) -> float:
    return sorted(samples)[min(len(samples) - 1, math.ceil(q * len(samples)) - 1)]


def start_neo4j(root: Path, heap: str, pagecache: str) -> tuple[Settings, ManagedProcess]:
    settings = Settings(
        data_dir=root,
        neo4j_bolt_port=free_ports(1)[0],
        neo4j_heap=heap,
        neo4j_pagecache=pagecache,
    )
    ensure_local_secrets(settings)
    service, proc = Neo4jLocal(), ManagedProcess("neo4j", root / "run", root / "logs")
    service.start(settings, proc)
    proc.wait_ready(lambda: service.ready(settings), settings.start_timeout_s)
    return settings, proc


async def run(args: argparse.Namespace, settings: Settings) -> list[str]:
    driver = open_driver(settings)
    store = Neo4jGraphStore(driver, settings.neo4j_database)
    await store.migrate()
    rng = np.random.default_rng(7)
    lines: list[str] = []

    def report(line: str) -> None:
        log.info("bench", result=line)
        lines.append(line)

    # 1. Batched upsert throughput, after a warm-up (a running server has compiled its plans).
    await store.for_user("bench", "warm").upsert(nodes_for("warm", 2_000, rng))
    # Fresh users of 1,000 nodes each, written by one writer and by four at once (the
    # ingestion worker runs many users' activities side by side).
    for writers in (1, 4):
        batches = [(f"s{writers}-{u}", nodes_for(f"s{writers}-{u}", 1_000, rng)) for u in range(8)]
        gate = asyncio.Semaphore(writers)

        async def write(user: str, batch: list[Node], gate: asyncio.Semaphore = gate) -> None:
            async with gate:
                await store.for_user("bench", user).upsert(batch)

        t0 = time.perf_counter()
        await asyncio.gather(*(write(user, batch) for user, batch in batches))
        rate = 8_000 / (time.perf_counter() - t0)
        report(
            f"| upsert, 1,000-node batches, 384-dim vectors, users below the index threshold, "
            f"{writers} writer(s) | {rate:,.0f} nodes/s | 8 users x 1,000 |"
        )
    big = store.for_user("bench", "big")
    nodes = nodes_for("big", args.big_user, rng)
    t0 = time.perf_counter()
    for start in range(0, len(nodes), 1_000):
        await big.upsert(nodes[start : start + 1_000])
    rate = len(nodes) / (time.perf_counter() - t0)
    report(
        f"| upsert, 1 user growing to {args.big_user:,} nodes (joins the vector index at "
        f"{VectorSearchConfig().exact_scan_max_nodes:,}) | {rate:,.0f} nodes/s | HNSW insert |"
    )

    # 2. Retrieval + one-hop expansion, one user alone in the index.
    queries = [tuple(v.tolist()) for v in vectors(rng, 50)]

    async def latency(which: VectorSearchConfig, user: str) -> list[float]:
        graph = Neo4jGraphStore(driver, settings.neo4j_database, search=which).for_user(
            "bench", user
        )
        i = iter(range(10**9))

        async def one() -> object:
            q = queries[next(i) % len(queries)]
            return await graph.retrieve(RetrievalQuery(embedding=q, embedding_model=MODEL, now=NOW))

        return await timed(args.queries, one)

    routed_big = await latency(VectorSearchConfig(), "big")
    exact_big = await latency(EXACT, "big")
    for name, s in (("routed (index)", routed_big), ("exact scan", exact_big)):
        report(
            f"| retrieve K=20 + expansion, 1 user x {args.big_user:,} nodes, {name} "
            f"| p50 {statistics.median(s):.1f} ms, p95 {pct(s, 0.95):.1f} ms | |"
        )
    server_ms, round_trip_ms = await _server_side(driver, queries, args.queries)
    report(
        f"| ... of which Neo4j's own time (index query + expansion, result available + consumed) "
        f"| p50 {statistics.median(server_ms):.1f} ms, p95 {pct(server_ms, 0.95):.1f} ms "
        f"| client and server share 2 cores |"
    )
    report(
        f"| a bare `RETURN 1` round trip from this client "
        f"| p50 {statistics.median(round_trip_ms):.1f} ms, p95 {pct(round_trip_ms, 0.95):.1f} ms "
        f"| the floor under every query |"
    )
    report(
        f"| ratio exact/index p50 (1 user x {args.big_user:,}) "
        f"| {statistics.median(exact_big) / statistics.median(routed_big):.1f}x | |"
    )

    # 3. Many users of 1,000 nodes. The first `--index-users` are put in the vector index
    #    (exact_scan_max_nodes=0) to measure the index with over-fetch; the rest, like every
    #    user under the threshold in production, stay out of it.
    indexing = Neo4jGraphStore(driver, settings.neo4j_database, search=INDEX)
    t0 = time.perf_counter()
    for u in range(args.users):
        owner = indexing if u < args.index_users else store
        await owner.for_user("bench", f"u{u}").upsert(nodes_for(f"u{u}", 1_000, rng))
        if u % 100 == 99:
            log.info("bench.loaded", users=u + 1, seconds=round(time.perf_counter() - t0))
    total = args.big_user + args.users * 1_000 + 7_000
    indexed_total = args.big_user + args.index_users * 1_000
    exact_small = await latency(EXACT, "u0")
    index_small = await latency(INDEX, "u0")
    routed_small = await latency(VectorSearchConfig(), f"u{args.users - 1}")
    fetch = math.ceil(20 * VectorSearchConfig().overfetch_safety * indexed_total / 1_000)
    recall = await _recall(driver, settings, queries)
    for name, s in (
        ("exact scan", exact_small),
        (f"index ({indexed_total:,} indexed), over-fetch {fetch}", index_small),
        ("routed (not in the index: exact scan)", routed_small),
    ):
        report(
            f"| retrieve, 1,000-node user among {total:,} nodes, {name} "
            f"| p50 {statistics.median(s):.1f} ms, p95 {pct(s, 0.95):.1f} ms | |"
        )
    report(f"| index recall@20 vs exact for that user (over-fetch {fetch}) | {recall:.2f} | |")
    report(
        f"| ratio index/exact p50 (1,000-node user) "
        f"| {statistics.median(index_small) / statistics.median(exact_small):.1f}x | |"
    )

    # 4. Pruning: the same 100 expired nodes in graphs of growing size (no vectors: faster load).
    for size in args.prune_sizes:
        graph = store.for_user("bench", f"prune{size}")
        batch = nodes_for(f"prune{size}", size, None, expired=100)
        for start in range(0, size, 5_000):
            await graph.upsert(batch[start : start + 5_000])
        hits = await graph.prune_cost(NOW)
        t0 = time.perf_counter()
        pruned = await graph.prune_expired(NOW, FadingConfig(max_faded=0))  # all of them go
        ms = (time.perf_counter() - t0) * 1000
        report(
            f"| prune 100 expired of {size:,} nodes | {ms:.1f} ms, "
            f"{hits:,} db hits (selection) | {len(pruned)} removed |"
        )
    await driver.close()
    return lines


async def _server_side(
    driver: AsyncDriver, queries: list[tuple[float, ...]], calls: int
) -> tuple[list[float], list[float]]:
    """The routed query's time inside Neo4j, and the cost of a round trip that does nothing."""
    server, trip = [], []
    for i in range(calls):
        _, summary, _ = await driver.execute_query(
            retrieval.BY_INDEX,  # the very statement the store runs
            index=vector_index(DIM),
            property=vector_property(DIM),
            scheduled_limit=5,
            fetch=40,
            scope="bench/big",
            model=MODEL,
            embedding=list(queries[i % len(queries)]),
            now=NOW,
            limit=20,
        )
        server.append(
            float((summary.result_available_after or 0) + (summary.result_consumed_after or 0))
        )
        t0 = time.perf_counter()
        await driver.execute_query("RETURN 1")
        trip.append((time.perf_counter() - t0) * 1000)
    return server, trip


async def _recall(driver: object, settings: Settings, queries: list[tuple[float, ...]]) -> float:
    from neo4j import AsyncDriver

    assert isinstance(driver, AsyncDriver)
    exact = Neo4jGraphStore(driver, settings.neo4j_database, search=EXACT).for_user("bench", "u0")
    index = Neo4jGraphStore(driver, settings.neo4j_database, search=INDEX).for_user("bench", "u0")
    found = []
    for q in queries[:20]:
        query = RetrievalQuery(embedding=q, embedding_model=MODEL, now=NOW)
        want = {c.node.id for c in (await exact.retrieve(query)).candidates}
        got = {c.node.id for c in (await index.retrieve(query)).candidates}
        found.append(len(want & got) / len(want))
    return statistics.mean(found)


def write_section(lines: list[str], command: str, heap: str) -> None:
    section = "\n".join(
        [
            "## Graph store",
            "",
            f"Command: `{command}`. Neo4j 5.26 embedded (devstack launcher), heap {heap}, on this",
            "2-core / 24 GiB machine, shared with other work (figures are noisy; the ratios were",
            "measured side by side in one run). Vectors: random, normalised, 384-dim.",
            "",
            "| measurement | result | note |",
            "|---|---|---|",
            *lines,
            "",
        ]
    )
    replace_section(section)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--users", type=int, default=1_000, help="users of 1,000 nodes")
    parser.add_argument(
        "--index-users", type=int, default=30, help="of them, put in the vector index"
    )
    parser.add_argument("--big-user", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--prune-sizes", type=int, nargs="+", default=[1_000, 10_000, 50_000])
    parser.add_argument("--heap", default="2g")
    parser.add_argument("--pagecache", default="2g")
    parser.add_argument("--no-write", action="store_true", help="do not touch BENCHMARKS.md")
    args = parser.parse_args()
    configure_logging("info", "console")
    with tempfile.TemporaryDirectory(prefix="bench-graph-") as tmp:
        settings, proc = start_neo4j(Path(tmp), args.heap, args.pagecache)
        try:
            lines = asyncio.run(run(args, settings))
        finally:
            proc.stop()
    command = "python scripts/bench_graph.py " + " ".join(
        f"--users {args.users} --index-users {args.index_users} --big-user {args.big_user} "
        f"--queries {args.queries}".split()
    )
    if not args.no_write:
        write_section(lines, command, args.heap)


if __name__ == "__main__":
    main()
