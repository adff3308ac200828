"""Compaction planning at 1k / 2k / 10k memories: the duplicate scan before (pure Python, kept
here only as the reference) and after (numpy, `domain.compaction.similar_pairs`), the whole
`plan_compaction`, and how long the event loop stalls while the worker plans in a thread (the
activity's way) against planning on the loop (the old way).

With `--neo4j N` it also runs the whole `compaction.compact` activity (sweep, export, plan in a
thread, apply) for a user of N memories on a throw-away local Neo4j, in temporalio's
ActivityEnvironment: its duration and the longest gap between two heartbeats (the workflow
gives the activity 2 minutes).

Usage: python scripts/bench_compaction.py [--sizes 1000 2000 10000] [--old-max 2000]
       [--neo4j 10000] [--no-write]

Graphs are synthetic: 384-dim random unit vectors (multilingual-e5-small's size), 5 % of them
near-duplicates of another, four node types, one edge per two nodes, 60 days of history.
Prints a Markdown table and replaces the `## Compaction` section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import numpy as np

from selfimprint.devstack.report import replace_section
from selfimprint.domain.compaction.duplicates import similar_pairs
from selfimprint.domain.compaction.plan import plan_compaction
from selfimprint.domain.models import Belief, Edge, EdgeType, Node, NodeType
from selfimprint.domain.restatement import DEFAULT_RESTATEMENT

NOW = datetime(2026, 12, 1, tzinfo=UTC)
TYPES = (NodeType.FACT, NodeType.EVENT, NodeType.PERSON, NodeType.OPEN_LOOP)


def graph(size: int, seed: int = 7) -> tuple[list[Node], list[Edge]]:
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(size, 384)).astype(np.float64)
    twins = rng.choice(size, size // 20, replace=False)
    for i in twins:
        j = int(rng.integers(size))
        vectors[i] = vectors[j] + rng.normal(scale=0.05, size=384)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    nodes = []
    for i in range(size):
        at = NOW - timedelta(days=float(rng.uniform(0, 60)))
        nodes.append(
            Node(
                id=f"n{i:06d}",
                user_id="bench",
                type=TYPES[i % len(TYPES)],
                content=f"memory {i}",
                weight=float(rng.uniform(0.2, 1.0)),
                weight_at=at,
                created_at=at,
                belief=Belief(first_seen=at),
                embedding=tuple(vectors[i].tolist()),
                embedding_model="bench-e5",
            )
        )
    edges = [
        Edge(
            source_id=nodes[i].id,
            target_id=nodes[(i * 7 + 1) % size].id,
            type=EdgeType.ASSOCIATED_WITH,
            confidence=0.8,
            created_at=NOW - timedelta(days=3),
        )
        for i in range(0, size, 2)
        if (i * 7 + 1) % size != i
    ]
    return nodes, edges


def old_scan(nodes: list[Node], threshold: float) -> int:
    """The scan compaction used before: fsum cosine per pair, in Python."""
    groups: dict[tuple[str, NodeType, str | None], list[tuple[float, ...]]] = {}
    for n in nodes:
        assert n.embedding is not None
        norm = math.sqrt(math.fsum(x * x for x in n.embedding))
        groups.setdefault((n.user_id, n.type, n.embedding_model), []).append(
            tuple(x / norm for x in n.embedding)
        )
    found = 0
    for members in groups.values():
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                if math.fsum(x * y for x, y in zip(a, b, strict=True)) > threshold:
                    found += 1
    return found


def timed(work: Callable[[], object], repeats: int) -> float:
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


async def loop_stall(work: Callable[[], object], *, in_thread: bool) -> float:
    """The longest gap between 10 ms ticks of the event loop while `work` runs."""
    worst = 0.0
    done = False

    async def ticker() -> None:
        nonlocal worst
        last = time.perf_counter()
        while not done:
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            worst = max(worst, now - last - 0.01)
            last = now

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0.05)
    if in_thread:
        await asyncio.to_thread(work)
    else:
        work()
    done = True
    await tick
    return worst


async def activity_at(size: int) -> tuple[float, float, int, int]:
    """(seconds, longest heartbeat gap in seconds, memories pruned, merged) for one compaction
    of a `size`-memory user on a fresh local Neo4j."""
    import shutil
    import tempfile
    from pathlib import Path

    from bench_graph import start_neo4j
    from temporalio.testing import ActivityEnvironment

    from activities.compaction import CompactInput, CompactionActivities
    from selfimprint.adapters.neo4j import Neo4jGraphStore, open_driver
    from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
    from selfimprint.domain.users import UserProfile, UserScope

    root = Path(tempfile.mkdtemp(prefix="bench-compaction-"))
    settings, neo4j = start_neo4j(root, "2g", "1g")
    driver = open_driver(settings)
    try:
        graphs = Neo4jGraphStore(driver, settings.neo4j_database)
        await graphs.migrate()
        scope = UserScope("benchcompact", "bench")  # graph() makes nodes of user "bench"
        await Neo4jAccounts(driver, settings.neo4j_database).put_profile(scope, UserProfile())
        nodes, edges = graph(size)
        # A tenth already expired, so the sweep has work too.
        nodes = [
            n.model_copy(update={"expires_at": NOW + timedelta(days=30 if i % 10 else -1)})
            for i, n in enumerate(nodes)
        ]
        store = graphs.for_user(scope.tenant_id, scope.user_id)
        for start in range(0, size, 1000):
            await store.upsert(nodes[start : start + 1000])
        await store.upsert((), edges)
        beats: list[float] = []
        env = ActivityEnvironment()
        env.on_heartbeat = lambda *details: beats.append(time.perf_counter())
        started = time.perf_counter()
        beats.append(started)
        out = await env.run(
            CompactionActivities(graphs).compact,
            CompactInput(tenant_id=scope.tenant_id, user_id=scope.user_id, now=NOW),
        )
        ended = time.perf_counter()
        beats.append(ended)
        gap = max(b - a for a, b in zip(beats, beats[1:], strict=False))
        return ended - started, gap, out.pruned, out.outcome.nodes_merged
    finally:
        await driver.close()
        neo4j.stop()
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 10000])
    parser.add_argument("--old-max", type=int, default=2000, help="largest size for the old scan")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--neo4j", type=int, default=0, help="whole activity at this size")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rows = []
    for size in args.sizes:
        nodes, edges = graph(size)
        pairs = sum(len(g) * (len(g) - 1) // 2 for g in _group_sizes(nodes))

        def scan(nodes: list[Node] = nodes) -> object:
            return similar_pairs(nodes, DEFAULT_RESTATEMENT.lowest_cosine_floor())

        def scan_before(nodes: list[Node] = nodes) -> object:
            return old_scan(nodes, 0.90)

        def plan_it(nodes: list[Node] = nodes, edges: list[Edge] = edges) -> object:
            return plan_compaction(nodes, edges, NOW)

        new = timed(scan, args.repeats)
        old = timed(scan_before, 1) if size <= args.old_max else None
        plan = timed(plan_it, args.repeats)
        stall_thread = asyncio.run(loop_stall(plan_it, in_thread=True))
        stall_loop = asyncio.run(loop_stall(plan_it, in_thread=False))
        rows.append((size, pairs, old, new, plan, stall_loop, stall_thread))
        sys.stderr.write(f"{size} memories done\n")
    lines = [
        "## Compaction",
        "",
        "`.venv/bin/python scripts/bench_compaction.py --sizes "
        f"{' '.join(map(str, args.sizes))}{f' --neo4j {args.neo4j}' if args.neo4j else ''}`"
        f" on {platform.machine()} with {os.cpu_count()} cores, medians of {args.repeats} runs "
        "(the old scan once). Planning only (pure domain): the Neo4j read and the apply are "
        "not in these figures.",
        "",
        "| memories | same-group pairs | duplicate scan before (Python) | after (numpy) | "
        "speed-up | whole plan | loop stall, plan on the loop | loop stall, plan in a thread |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for size, pairs, old, new, plan, stall_loop, stall_thread in rows:
        before = f"{old:.2f} s" if old is not None else "(not run)"
        ratio = f"{old / new:.0f}x" if old is not None else ""
        lines.append(
            f"| {size:,} | {pairs:,} | {before} | {new:.3f} s | {ratio} | {plan:.2f} s | "
            f"{stall_loop * 1000:.0f} ms | {stall_thread * 1000:.0f} ms |"
        )
    if args.neo4j:
        seconds, gap, pruned, merged = asyncio.run(activity_at(args.neo4j))
        lines += [
            "",
            f"The whole `compaction.compact` activity on a local Neo4j (`--neo4j {args.neo4j}`): "
            f"{args.neo4j:,} memories ({pruned:,} of them expired and swept, {merged:,} merges), "
            f"**{seconds:.1f} s**, longest gap between heartbeats **{gap:.1f} s** "
            "(heartbeat timeout 2 min).",
        ]
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if not args.no_write:
        replace_section(text)


def _group_sizes(nodes: list[Node]) -> list[list[Node]]:
    groups: dict[NodeType, list[Node]] = {}
    for n in nodes:
        groups.setdefault(n.type, []).append(n)
    return list(groups.values())


if __name__ == "__main__":
    main()
