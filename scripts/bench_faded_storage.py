"""What the faded memories kept per user cost on disk (issue 32, `FadingConfig.max_faded`).

Starts its own Neo4j 5.26 (the devstack launcher, as scripts/bench_graph.py) in a temporary
directory, applies the migrations, and writes `--memories` faded memories (expired, weight under
the removal threshold) for one user through the real store, once with 384-dim vectors and once
with 1024-dim ones (bge-m3, the production embedder), each a memory's `embedding` and its
`context_embedding`. After each, a checkpoint (Community has no `CALL db.checkpoint()`: a
clean shutdown, which checkpoints; the next phase restarts on the same data), then the database
directory is measured: record store files and schema indexes (vector, full-text, range), and
apart from them the transaction logs. The user's graph exported the way the warm tier does and
encoded to SYNX with a data key in memory gives the bytes an archive would upload (no S3).
Prints the figures, replaces the `## Faded memories: storage per user` section of BENCHMARKS.md,
and stops Neo4j again (also on error).

    .venv/bin/python scripts/bench_faded_storage.py [--memories 5000] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from bench_api import OBJECTS, SUBJECTS, VERBS
from bench_graph import start_neo4j

from selfimprint.adapters.neo4j import Neo4jGraphStore, open_driver
from selfimprint.adapters.neo4j.records import INDEXED_LABEL
from selfimprint.adapters.synx import encode_synx
from selfimprint.config import Settings
from selfimprint.devstack.process import ManagedProcess
from selfimprint.devstack.report import replace_section
from selfimprint.domain.fading import FadingConfig
from selfimprint.domain.models import Belief, Node, NodeType, Valence
from selfimprint.domain.reply_context import context_terms
from selfimprint.logging import configure_logging, get_logger
from selfimprint.ports import DATA_KEY_BYTES, DataKey

log = get_logger("bench_faded_storage")
NOW = datetime(2026, 3, 1, tzinfo=UTC)
TENANT = "bench"
MODELS = {384: "bench-384", 1024: "bge-m3"}
BATCH = 1_000
SECTION = "## Faded memories: storage per user"
TYPES = (NodeType.FACT, NodeType.EVENT, NodeType.PERSON, NodeType.OPEN_LOOP)
MIB = 1 << 20
DIMS = (384, 1024)
STOP_GRACE_S = 120.0


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


# --- memories ------------------------------------------------------------------------------------


def sentence(rng: random.Random, i: int) -> str:
    """About 100 characters: two clauses from the API benchmark's vocabulary."""
    first = f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(VERBS)} {rng.choice(OBJECTS)}"
    second = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)}"
    return f"{first} on day {i % 365}, and later {second} too (note {i})."


def unit_vectors(rng: np.random.Generator, n: int, dim: int) -> list[tuple[float, ...]]:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return [tuple(row.tolist()) for row in v]


def faded_memories(user: str, n: int, dim: int, seed: int) -> list[Node]:
    """n memories as forgetting leaves them: decayed under the threshold, expired a while ago,
    kept. Types in rotation (positive emotional notes included: negative ones are deleted when
    faded, not kept), one source message each, a reply-context vector and its terms."""
    rng, vrng = random.Random(seed), np.random.default_rng(seed)
    texts = [sentence(rng, i) for i in range(n)]
    vectors, contexts = unit_vectors(vrng, n, dim), unit_vectors(vrng, n, dim)
    nodes = []
    for i, text in enumerate(texts):
        created = NOW - timedelta(days=200 + i % 300)
        emotional = i % 9 == 0
        nodes.append(
            Node(
                id=f"faded-{i}",
                user_id=user,
                type=NodeType.EMOTIONAL_NOTE if emotional else TYPES[i % len(TYPES)],
                valence=Valence.POSITIVE if emotional else None,
                content=text,
                weight=0.04,
                weight_at=created + timedelta(days=30),
                created_at=created,
                expires_at=created + timedelta(days=60),  # all in the past: faded
                sources=(f"msg-{i}",),
                belief=Belief(first_seen=created, self_report_for=(f"msg-{i}",)),
                embedding=vectors[i],
                embedding_model=MODELS[dim],
                context_embedding=contexts[i],
                context_terms=context_terms(texts[i - 1], text),
            )
        )
    return nodes


# --- disk ----------------------------------------------------------------------------------------


def written_bytes(path: Path, chunk: int = 1 << 20) -> int:
    """Bytes up to the last non-zero one: a transaction log is preallocated (zero-filled) to its
    rotation size, so its length says nothing about what was appended."""
    size = path.stat().st_size
    with path.open("rb") as f:
        end = size
        while end > 0:
            start = max(0, end - chunk)
            f.seek(start)
            block = f.read(end - start)
            stripped = block.rstrip(b"\0")
            if stripped:
                return start + len(stripped)
            end = start
    return 0


def files_under(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()]


@dataclass(frozen=True)
class DiskUsage:
    records: int  # record store and id files (databases/<db>, outside schema/)
    indexes: int  # schema indexes (databases/<db>/schema: vector, full-text, range, token)
    tx_written: int  # transaction logs, bytes appended
    tx_files: int  # transaction logs, file lengths (preallocated)

    @property
    def store(self) -> int:
        return self.records + self.indexes

    def __sub__(self, other: DiskUsage) -> DiskUsage:
        return DiskUsage(
            self.records - other.records,
            self.indexes - other.indexes,
            self.tx_written - other.tx_written,
            self.tx_files - other.tx_files,
        )


def disk_usage(settings: Settings) -> DiskUsage:
    data = (settings.data_dir / "neo4j" / "data").resolve()
    db = data / "databases" / settings.neo4j_database
    tx = data / "transactions" / settings.neo4j_database
    if not db.is_dir() or not tx.is_dir():
        raise RuntimeError(f"no database directory under {data}")
    schema = db / "schema"
    store = files_under(db)
    indexes = sum(p.stat().st_size for p in store if schema in p.parents)
    records = sum(p.stat().st_size for p in store if schema not in p.parents)
    logs = files_under(tx)
    return DiskUsage(
        records=records,
        indexes=indexes,
        tx_written=sum(written_bytes(p) for p in logs),
        tx_files=sum(p.stat().st_size for p in logs),
    )


# --- the run -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Measured:
    dim: int
    memories: int
    indexed: int
    disk: DiskUsage  # growth from writing the user's memories
    archive: int  # SYNX bytes of the user's exported graph
    write_s: float


@contextmanager
def neo4j_running(root: Path, heap: str, pagecache: str) -> Iterator[Settings]:
    """Neo4j on `root`'s data, stopped cleanly on the way out (also on error). Neo4j Community
    has no `db.checkpoint()`; its clean shutdown checkpoints, so every measurement is taken with
    the engine stopped, and the next phase restarts it on the same data."""
    try:
        settings, proc = start_neo4j(root, heap, pagecache)
    except BaseException:
        # A start that timed out leaves the engine running: stop it through its pid file.
        ManagedProcess("neo4j", root / "run", root / "logs").stop()
        raise
    try:
        yield settings
    finally:
        t0 = time.perf_counter()
        proc.stop(grace_s=STOP_GRACE_S)
        killed = time.perf_counter() - t0 >= STOP_GRACE_S
    if killed:
        raise RuntimeError("Neo4j did not shut down cleanly (killed): no final checkpoint")


async def migrate(settings: Settings) -> None:
    driver = open_driver(settings)
    try:
        await Neo4jGraphStore(driver, settings.neo4j_database).migrate()
    finally:
        await driver.close()


@dataclass(frozen=True)
class Written:
    dim: int
    memories: int
    indexed: int
    archive: int  # SYNX bytes of the user's exported graph
    write_s: float


async def write_user(settings: Settings, dim: int, n: int) -> Written:
    """One user's n faded memories through the real store, checked, exported and encoded."""
    user = f"faded{dim}"
    nodes = faded_memories(user, n, dim, seed=dim)
    driver = open_driver(settings)
    try:
        graph = Neo4jGraphStore(driver, settings.neo4j_database).for_user(TENANT, user)
        t0 = time.perf_counter()
        for start in range(0, n, BATCH):
            await graph.upsert(nodes[start : start + BATCH])
        write_s = time.perf_counter() - t0
        records, _, _ = await driver.execute_query(
            f"MATCH (n:Memory {{scope: $scope}}) "
            f"RETURN count(n) AS n, count(CASE WHEN n:{INDEXED_LABEL} THEN 1 END) AS indexed",
            scope=f"{TENANT}/{user}",
            database_=settings.neo4j_database,
        )
        snapshot = await graph.export_graph(NOW)
    finally:
        await driver.close()
    stored, indexed = int(records[0]["n"]), int(records[0]["indexed"])
    if stored != n:
        raise RuntimeError(f"{stored} memories stored for {user}, {n} written")
    first = snapshot.nodes[0]
    if len(snapshot.nodes) != n or first.embedding is None or len(first.embedding) != dim:
        raise RuntimeError("the export lacks the memories or their vectors")
    if first.context_embedding is None or first.expires_at is None or first.expires_at > NOW:
        raise RuntimeError("the export lacks the reply-context vectors or the expiry")
    key = DataKey(TENANT, user, 1, os.urandom(DATA_KEY_BYTES))
    archive = sum(len(block) for block in encode_synx(snapshot, key))
    return Written(dim, n, indexed, archive, write_s)


def measure(root: Path, n: int, heap: str, pagecache: str) -> tuple[DiskUsage, list[Measured]]:
    with neo4j_running(root, heap, pagecache) as settings:
        asyncio.run(migrate(settings))
    before = baseline = disk_usage(settings)
    results = []
    for dim in DIMS:
        with neo4j_running(root, heap, pagecache) as settings:
            written = asyncio.run(write_user(settings, dim, n))
        after = disk_usage(settings)
        m = Measured(dim, n, written.indexed, after - before, written.archive, written.write_s)
        log.info("bench.measured", dim=dim, memories=n, store=m.disk.store, archive=m.archive)
        results.append(m)
        before = after
    return baseline, results


# --- report --------------------------------------------------------------------------------------


def mib(n: float) -> str:
    return f"{n / MIB:,.1f} MiB"


def per(n: int, memories: int) -> str:
    return f"{n / memories:,.0f} B"


def table(results: list[Measured], cap: int) -> list[str]:
    lines = [
        f"| what | {' | '.join(f'{m.dim}-dim vectors' for m in results)} |",
        f"|---|{'---|' * len(results)}",
    ]

    def row(name: str, bytes_of: list[int], total: bool = True) -> None:
        cells = []
        for m, b in zip(results, bytes_of, strict=True):
            cell = per(b, m.memories) + " per memory"
            if total:
                cell += f"; {mib(b * cap / m.memories)} at {cap:,}"
            cells.append(cell)
        lines.append(f"| {name} | {' | '.join(cells)} |")

    row("Neo4j store (records + indexes)", [m.disk.store for m in results])
    row("... record store files", [m.disk.records for m in results])
    row("... schema indexes (vector, full-text, range)", [m.disk.indexes for m in results])
    row("Neo4j transaction logs, bytes appended", [m.disk.tx_written for m in results])
    row("warm-tier archive (SYNX: zstd + AES-GCM)", [m.archive for m in results])
    lines.append(
        f"| write time ({results[0].memories:,} memories, 1,000-node upserts) | "
        + " | ".join(f"{m.write_s:.1f} s" for m in results)
        + " |"
    )
    lines.append(
        "| of them in the vector index (:IndexedMemory) | "
        + " | ".join(f"{m.indexed:,}" for m in results)
        + " |"
    )
    return lines


def per_float(results: list[Measured]) -> str:
    by_dim = {m.dim: m for m in results}
    small, big = by_dim[384], by_dim[1024]
    floats = 2 * (big.dim - small.dim)  # embedding + context_embedding

    def marginal(of: Callable[[Measured], int]) -> float:
        return (of(big) / big.memories - of(small) / small.memories) / floats

    return (
        "Marginal cost of one vector dimension (1024-dim minus 384-dim, two vectors a memory): "
        f"{marginal(lambda m: m.disk.store):.1f} B in the Neo4j store "
        f"({marginal(lambda m: m.disk.records):.1f} B record store, "
        f"{marginal(lambda m: m.disk.indexes):.1f} B vector index), "
        f"{marginal(lambda m: m.disk.tx_written):.1f} B of transaction log, "
        f"{marginal(lambda m: m.archive):.1f} B in the archive."
    )


def machine() -> str:
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory = f" / {pages / (1 << 30):.0f} GiB"
    except (ValueError, OSError):
        memory = ""
    python = platform.python_version()
    return f"{os.cpu_count()}-core{memory} {platform.machine()} box, Python {python}"


def section(command: str, baseline: DiskUsage, results: list[Measured], cap: int, heap: str) -> str:
    n = results[0].memories
    scaled = f", scaled linearly from {n:,}" if n != cap else ""
    return "\n".join(
        [
            SECTION,
            "",
            f"Command: `{command}` (~2 min). Neo4j 5.26 Community embedded",
            f"(devstack launcher), heap {heap}, default store format, on this {machine()}.",
            "",
            f"One user of {n:,} faded memories (expired, weight 0.04, kept) per column, the",
            "only memories of that user, written through `Neo4jGraphStore.upsert` in 1,000-node",
            "batches: ~100-character content (its search terms set by the store), one source,",
            "`embedding` and `context_embedding` (random unit vectors, float32 via",
            "`db.create.setNodeVectorProperty`), reply-context terms. Past 2,000 memories a user",
            "joins the vector index, faded memories included, so both vectors are in the HNSW",
            "indexes too. Neo4j: growth of the database directory (file lengths) after a",
            "checkpoint, which here is a clean shutdown (Community has no `CALL db.checkpoint()`);",
            "record store files and schema indexes apart, transaction logs apart again (bytes",
            "written; Neo4j prunes them by its retention policy, so they are write traffic more",
            "than a cost that stays). Archive: the user's graph exported as the warm tier does",
            "(`export_graph`), encoded by `encode_synx` in memory (no S3): the bytes an upload",
            "would carry; zstd gains little on random vectors.",
            f"The empty migrated store it started from: {mib(baseline.store)} (records",
            f"{mib(baseline.records)}, indexes {mib(baseline.indexes)}). Totals: one user at",
            f"`max_faded` = {cap:,}{scaled}.",
            "",
            *table(results, cap),
            "",
            per_float(results),
            "",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memories", type=int, default=FadingConfig().max_faded)
    parser.add_argument("--heap", default="2g")
    parser.add_argument("--pagecache", default="1g")
    parser.add_argument("--no-write", action="store_true", help="do not touch BENCHMARKS.md")
    args = parser.parse_args()
    configure_logging("info", "console")
    with tempfile.TemporaryDirectory(prefix="bench-faded-") as tmp:
        baseline, results = measure(Path(tmp), args.memories, args.heap, args.pagecache)
    cap = FadingConfig().max_faded
    command = f".venv/bin/python scripts/bench_faded_storage.py --memories {args.memories}"
    text = section(command, baseline, results, cap, args.heap)
    say(text)
    if not args.no_write:
        replace_section(text)


if __name__ == "__main__":
    main()
