"""What the store flush of an erasure or a forget costs (issue 37, `store.flush_deleted`).

Starts its own Neo4j 5.26 (the devstack launcher) in a temporary directory, with the product's
schema. Other users' memories stay in the store throughout (`--others`). For each size, one user
with that many memories (200-character texts, 384-dim vectors) is written and then deleted
through the store, and `flush_deleted` runs (the procedure called twice). The script reports
the flush's wall time and what the second call overwrote. A second flush right after shows the
cost when nothing new was deleted: every flush rewrites all free records, the user's and those
freed earlier. It prints the figures, replaces the `## Store flush` section of BENCHMARKS.md,
and stops Neo4j again.

    .venv/bin/python scripts/bench_store_flush.py [--sizes 1000,10000,30000] [--others 20000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_graph import nodes_for, start_neo4j

from selfimprint.adapters.neo4j import Neo4jGraphStore, open_driver
from selfimprint.adapters.neo4j.store_flush import StoreFlush
from selfimprint.config import Settings
from selfimprint.devstack.report import replace_section
from selfimprint.domain.models import Node
from selfimprint.logging import configure_logging, get_logger

log = get_logger("bench_store_flush")

TEXT = (
    "On Saturday my sister and I drove to the coast to look at the old lighthouse; we ate fish "
    "and chips on the pier, got caught in the rain and laughed about it all the way home ({i})."
)


def with_text(nodes: list[Node]) -> list[Node]:
    return [n.model_copy(update={"content": TEXT.format(i=i)}) for i, n in enumerate(nodes)]


async def write(store: Neo4jGraphStore, user: str, n: int, rng: np.random.Generator) -> None:
    graph = store.for_user("bench", user)
    nodes = with_text(nodes_for(user, n, rng))
    for start in range(0, n, 1_000):
        await graph.upsert(nodes[start : start + 1_000])


async def flush(store: Neo4jGraphStore, user: str) -> tuple[float, StoreFlush]:
    t0 = time.perf_counter()
    flushed = await store.flush_deleted("bench", user)
    if flushed is None:
        raise SystemExit("the selfimprint.store.flushDeleted procedure is not installed")
    return time.perf_counter() - t0, flushed


async def run(args: argparse.Namespace, settings: Settings) -> list[str]:
    driver = open_driver(settings)
    store = Neo4jGraphStore(driver, settings.neo4j_database)
    await store.migrate()
    rng = np.random.default_rng(7)
    await write(store, "others", args.others, rng)
    rows = []
    for size in args.sizes:
        user = f"erased-{size}"
        await write(store, user, size, rng)
        t0 = time.perf_counter()
        await store.for_user("bench", user).delete_graph()
        deleted_s = time.perf_counter() - t0
        first_s, first = await flush(store, user)
        again_s, _ = await flush(store, user)
        rows.append(
            f"| {size:,} | {deleted_s:.1f} s | **{first_s:.1f} s** | {first.string_blocks:,} / "
            f"{first.array_blocks:,} / {first.property_records:,} | {again_s:.1f} s |"
        )
        log.info("bench", result=rows[-1])
    await driver.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,30000")
    parser.add_argument("--others", type=int, default=20_000)
    parser.add_argument("--no-benchmarks-md", action="store_true")
    args = parser.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",")]
    configure_logging("info", "console")
    with tempfile.TemporaryDirectory(prefix="bench-flush-") as tmp:
        settings, proc = start_neo4j(Path(tmp), "1g", "512m")
        try:
            rows = asyncio.run(run(args, settings))
        finally:
            proc.stop()
    command = ".venv/bin/python scripts/bench_store_flush.py"
    if args.sizes != [1000, 10000, 30000] or args.others != 20_000:
        command += f" --sizes {','.join(map(str, args.sizes))} --others {args.others}"
    section = "\n".join(
        [
            "## Store flush",
            "",
            f"Command: `{command}`. One Neo4j 5.26 (the local launcher, 1 GiB heap, 512 MiB "
            f"page cache) on this 2-core polyglot box, {args.others:,} other memories in the "
            "store throughout; each row writes one user's memories (200-character texts, "
            "384-dim vectors), deletes them through the store and runs the erasure's flush "
            "(`Neo4jGraphStore.flush_deleted`: `selfimprint.store.flushDeleted()` twice, "
            "issue 37). Overwritten: string blocks / array blocks / property records, by the "
            "second call. Again: a second flush straight after, nothing new deleted (every "
            "flush rewrites all free records).",
            "",
            "| memories deleted | delete | flush | overwritten | again |",
            "|---|---|---|---|---|",
            *rows,
        ]
    )
    sys.stdout.write(section + "\n")
    if not args.no_benchmarks_md:
        replace_section(section + "\n")


if __name__ == "__main__":
    main()
