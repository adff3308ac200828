"""Lifecycle workflows at scale: N users' `UserLifecycleWorkflow`s on the local Temporal dev
server. Measures the resident memory of the Temporal server, both workers and the API, the size
of the Temporal database and of workflow histories, and how many sleep passes the local model
completes per minute, on a throw-away local stack.

    .venv/bin/python scripts/bench_lifecycles.py [--users 1000] [--messages 3] [--sample 50]
        [--sleepers 20] [--sleep-timeout 1800] [--no-write]

Ingestion runs with `extraction=verbatim` (no LLM) so that N users' messages do not queue behind
the CPU model; the LLM keeps running for the sleep passes. Prints the figures and replaces the
`## Lifecycle workflows at scale` section of BENCHMARKS.md (unless --no-write).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shlex
import shutil
import signal
import statistics
import sys
import tempfile
import textwrap
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

import httpx
from bench_api import issue_key, pct, say, synthetic_sentences
from temporalio.client import Client, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.service import RPCError

from selfimprint.adapters.neo4j import open_driver
from selfimprint.adapters.neo4j.message_log import ExtractionState, MessageLogs
from selfimprint.adapters.temporal import connect
from selfimprint.config import Settings
from selfimprint.devstack import stack
from selfimprint.devstack.ports import isolated_port_settings
from selfimprint.devstack.report import replace_section
from selfimprint.devstack.services import all_services
from selfimprint.domain.sleep_policy import Depth
from selfimprint.domain.users import UserScope
from workflows.lifecycle_state import LifecycleState, SleepRequest
from workflows.user_lifecycle import UserLifecycleWorkflow, workflow_id

SECTION = "## Lifecycle workflows at scale"
CONCURRENT_REQUESTS = 8  # a handful of client connections, like a chat front end's pool
POLL_S = 0.5
PROGRESS_S = 15.0
# Devstack service name -> row label; the rest of the stack (Neo4j, S3, LLM) is in the total.
MEASURED = {
    "temporal": "Temporal dev server",
    "worker-cpu": "cpu worker (workflows, graph activities)",
    "worker-gpu": "gpu worker (embedder, LLM client)",
    "api": "API",
}

Lifecycle = WorkflowHandle[UserLifecycleWorkflow, None]


# --- measurements -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """Resident memory per service (process and its descendants) and the Temporal db size."""

    rss: dict[str, int]
    stack_rss: int
    sqlite_bytes: int


def snapshot(settings: Settings) -> Snapshot:
    services = {s.name: s for s in all_services()}
    rss = {name: stack.process_for(services[name], settings).rss_bytes() for name in MEASURED}
    return Snapshot(rss, stack.stack_rss_bytes(settings), sqlite_bytes(settings))


def sqlite_bytes(settings: Settings) -> int:
    """The dev server's database with its write-ahead log, which holds recent writes."""
    folder = settings.data_dir / "temporal"
    return sum(p.stat().st_size for p in folder.glob("temporal.sqlite*") if p.is_file())


@dataclass(frozen=True)
class HistorySize:
    events: int
    bytes: int


@dataclass(frozen=True)
class SleepResult:
    status: str | None  # sleep.last.status; None when no outcome came
    seconds: float  # from the moment all updates were sent off
    error: str = ""


@dataclass
class Results:
    users: int
    messages: int
    create_s: float = 0.0
    post_s: float = 0.0
    extract_wait_s: float = 0.0
    snapshots: dict[str, Snapshot] = field(default_factory=dict)
    histories: dict[str, list[HistorySize]] = field(default_factory=dict)
    sleeps: list[SleepResult] = field(default_factory=list)


# --- HTTP load ----------------------------------------------------------------------------------


async def bounded(
    gate: asyncio.Semaphore, http: httpx.AsyncClient, method: str, path: str, body: object
) -> None:
    async with gate:
        answer = await http.request(method, path, json=body)
    if not answer.is_success:
        raise RuntimeError(f"{method} {path}: {answer.status_code} {answer.text[:200]}")


async def timed_gather(jobs: list[Awaitable[None]]) -> float:
    started = time.perf_counter()
    await asyncio.gather(*jobs)
    return time.perf_counter() - started


async def post_user_messages(
    gate: asyncio.Semaphore, http: httpx.AsyncClient, user: str, texts: list[str]
) -> None:
    """One message a request and in order, as a chat client sends them."""
    for i, text in enumerate(texts):
        row = {
            "id": f"m{i}",
            "role": "user",
            "text": text,
            "sent_at": datetime.now(UTC).isoformat(),
        }
        await bounded(gate, http, "POST", f"/v1/users/{user}/messages", {"messages": [row]})


async def load_users(
    http: httpx.AsyncClient, users: list[str], per_user: int, results: Results
) -> None:
    gate = asyncio.Semaphore(CONCURRENT_REQUESTS)
    say(f"creating {len(users)} users ...")
    results.create_s = await timed_gather(
        [bounded(gate, http, "PUT", f"/v1/users/{u}", {}) for u in users]
    )
    texts = synthetic_sentences(len(users) * per_user, random.Random(5))
    say(f"posting {len(texts)} messages ...")
    results.post_s = await timed_gather(
        [
            post_user_messages(gate, http, u, texts[i * per_user : (i + 1) * per_user])
            for i, u in enumerate(users)
        ]
    )


async def wait_extracted(
    settings: Settings, tenant: str, users: list[str], timeout_s: float
) -> float:
    """Seconds until no user has a pending message (a finished user never gets new ones)."""
    driver = open_driver(settings)
    logs = MessageLogs(driver, settings.neo4j_database)
    started = last_report = time.perf_counter()
    remaining = list(users)
    try:
        while remaining:
            remaining = [
                u
                for u in remaining
                if await logs.for_user(UserScope(tenant, u)).count_in_state(ExtractionState.PENDING)
            ]
            now = time.perf_counter()
            if now - started > timeout_s:
                raise TimeoutError(f"{len(remaining)} users still pending after {timeout_s:.0f} s")
            if now - last_report > PROGRESS_S:
                say(f"  {len(users) - len(remaining)}/{len(users)} users fully extracted")
                last_report = now
            if remaining:
                await asyncio.sleep(POLL_S)
        return time.perf_counter() - started
    finally:
        await driver.close()


# --- Temporal -----------------------------------------------------------------------------------


def lifecycle(client: Client, tenant: str, user: str) -> Lifecycle:
    return client.get_workflow_handle_for(UserLifecycleWorkflow.run, workflow_id(tenant, user))


async def history_sizes(client: Client, tenant: str, users: list[str]) -> list[HistorySize]:
    gate = asyncio.Semaphore(CONCURRENT_REQUESTS)

    async def one(user: str) -> HistorySize:
        async with gate:
            history = await lifecycle(client, tenant, user).fetch_history()
        # Serialized event bytes, the measure behind Temporal's history size limits; payloads
        # are as stored, i.e. encrypted by the payload codec.
        return HistorySize(len(history.events), sum(e.ByteSize() for e in history.events))

    return list(await asyncio.gather(*(one(u) for u in users)))


async def last_sleep_id(handle: Lifecycle) -> str | None:
    state: LifecycleState = await handle.query(UserLifecycleWorkflow.state)
    return state.sleep.last.run_id if state.sleep.last is not None else None


async def sleep_once(handle: Lifecycle, started: float, timeout_s: float) -> SleepResult:
    """Request a full pass and poll `state` until `sleep.last` names a new pass. A pass the
    lifecycle queued by itself (the validator refuses a second one) is waited for the same way."""
    before = await last_sleep_id(handle)
    request = SleepRequest(depth=Depth.FULL, reason="bench_lifecycles")
    try:
        await handle.execute_update(UserLifecycleWorkflow.request_sleep, request)
    except WorkflowUpdateFailedError as exc:
        if "already running or queued" not in str(exc.cause):
            return SleepResult(None, time.perf_counter() - started, str(exc.cause)[:200])
    while time.perf_counter() - started < timeout_s:
        await asyncio.sleep(POLL_S)
        try:
            state = await handle.query(UserLifecycleWorkflow.state)
        except RPCError:
            continue  # a busy worker may miss a query's deadline: ask again
        last = state.sleep.last
        if state.sleep.requested is None and last is not None and last.run_id != before:
            return SleepResult(last.status.value, time.perf_counter() - started)
    return SleepResult(None, time.perf_counter() - started, f"no outcome in {timeout_s:.0f} s")


async def run_sleeps(
    client: Client, tenant: str, users: list[str], timeout_s: float
) -> list[SleepResult]:
    say(f"requesting {len(users)} sleep passes at once (local LLM on CPU: slow) ...")
    started = time.perf_counter()
    handles = [lifecycle(client, tenant, u) for u in users]
    return list(await asyncio.gather(*(sleep_once(h, started, timeout_s) for h in handles)))


# --- the run ------------------------------------------------------------------------------------


async def measure(settings: Settings, args: argparse.Namespace) -> Results:
    users = [f"u{i:05d}" for i in range(args.users)]
    results = Results(len(users), len(users) * args.messages)
    results.snapshots["idle"] = snapshot(settings)
    tenant, key = await issue_key(settings)
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=settings.api_url, headers=headers, timeout=300) as http:
        await load_users(http, users, args.messages, results)
    say("waiting for extraction ...")
    results.extract_wait_s = await wait_extracted(settings, tenant, users, args.extract_timeout)
    results.snapshots["ingested"] = snapshot(settings)
    client = await connect(settings)
    sample = random.Random(9).sample(users, min(args.sample, len(users)))
    results.histories["ingested"] = await history_sizes(client, tenant, sample)
    sleepers = users[: args.sleepers]
    if sleepers:
        results.sleeps = await run_sleeps(client, tenant, sleepers, args.sleep_timeout)
        results.histories["slept"] = await history_sizes(client, tenant, sleepers)
    results.snapshots["slept"] = snapshot(settings)
    return results


def stack_settings(data_dir: Path) -> Settings:
    fields: dict[str, Any] = {"data_dir": data_dir, "extraction": "verbatim"}
    fields.update(isolated_port_settings())
    return Settings(**fields)


def run(args: argparse.Namespace) -> Results:
    data_dir = Path(tempfile.mkdtemp(prefix="si-bench-lifecycles-"))
    settings = stack_settings(data_dir)
    say(f"starting an isolated stack in {data_dir} ...")
    try:
        stack.up(settings)
        return asyncio.run(measure(settings, args))
    finally:
        say("stopping the isolated stack ...")
        stack.down(settings)
        shutil.rmtree(data_dir, ignore_errors=True)


# --- the report ---------------------------------------------------------------------------------


def mib(n: int, digits: int = 0) -> str:
    return f"{n / 2**20:,.{digits}f} MiB"


def cell(text: str) -> str:
    """Error texts come from elsewhere: keep them from breaking the table row."""
    return " ".join(text.split()).replace("|", "/")


def spread(values: list[int], unit: Callable[[int], str]) -> str:
    if not values:
        return "n/a"
    return f"median {unit(int(statistics.median(values)))}, max {unit(max(values))}"


def history_row(label: str, sizes: list[HistorySize]) -> tuple[str, str, str]:
    events = spread([s.events for s in sizes], str)
    size = spread([s.bytes for s in sizes], lambda b: f"{b / 1024:,.1f} KiB")
    return label, f"{events} events; {size}", "serialized events, payloads encrypted"


def sleep_row(sleeps: list[SleepResult]) -> tuple[str, str, str]:
    done = [s for s in sleeps if s.status is not None]
    statuses = Counter(s.status for s in done)
    errors = Counter(s.error for s in sleeps if s.error)
    if done:
        span = max(s.seconds for s in done)
        seconds = [s.seconds for s in done]
        rate = len(done) * 60 / span
        result = (
            f"{len(done)}/{len(sleeps)} done in {span:.0f} s: {rate:.1f} passes/min (each done "
            f"after p50 {statistics.median(seconds):.0f} s, p95 {pct(seconds, 0.95):.0f} s)"
        )
    else:
        result = f"0/{len(sleeps)} done"
    note = ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())) or "no outcome"
    if errors:
        note += "; " + ", ".join(f"{v}x {cell(k)}" for k, v in errors.items())
    return f"full sleep passes, {len(sleeps)} requested at once", result, note


def throughput_rows(r: Results) -> list[tuple[str, str, str]]:
    end_to_end = r.post_s + r.extract_wait_s
    return [
        (
            "create users (`PUT /v1/users/{user}`, starts each lifecycle workflow)",
            f"{r.users:,} in {r.create_s:.1f} s ({r.users / r.create_s:.0f} users/s)",
            f"{CONCURRENT_REQUESTS} concurrent requests",
        ),
        (
            "post messages (`POST .../messages`, 1 a request, signal-with-start)",
            f"{r.messages:,} in {r.post_s:.1f} s ({r.messages / r.post_s:.0f} messages/s)",
            f"{CONCURRENT_REQUESTS} concurrent requests",
        ),
        (
            "all messages extracted (verbatim)",
            f"{r.extract_wait_s:.1f} s after the last post "
            f"({r.messages / end_to_end:.0f} messages/s end to end)",
            "no message left pending in the message log",
        ),
    ]


def memory_rows(r: Results) -> list[str]:
    phases = [r.snapshots[k] for k in ("idle", "ingested", "slept")]
    rows = [
        f"| {label} | " + " | ".join(mib(s.rss[name]) for s in phases) + " |"
        for name, label in MEASURED.items()
    ]
    totals = [mib(s.stack_rss) for s in phases]
    rows.append("| whole stack (with Neo4j, SeaweedFS, LLM server) | " + " | ".join(totals) + " |")
    database = [mib(s.sqlite_bytes, 1) for s in phases]
    rows.append("| Temporal SQLite database (file + WAL) | " + " | ".join(database) + " |")
    return rows


def machine() -> str:
    kib = int(Path("/proc/meminfo").read_text().split()[1])  # first line: MemTotal in kB
    return f"this {os.cpu_count()}-core / {kib / 2**20:.0f} GiB machine"


def markdown(r: Results, command: str) -> str:
    sampled = r.histories["ingested"]
    rows = throughput_rows(r)
    rows.append(history_row(f"lifecycle history after ingestion ({len(sampled)} sampled)", sampled))
    if r.sleeps:
        rows.append(sleep_row(r.sleeps))
        slept = r.histories["slept"]
        rows.append(history_row("lifecycle history after one sleep (the sleepers)", slept))
    intro = (
        f"Command: `{command}`. One throw-away local stack on {machine()}, all services and the "
        f"client on it; {r.users:,} users with {r.messages // r.users} short messages each, so "
        "one lifecycle workflow per user. Ingestion uses `extraction=verbatim` (each message "
        f"becomes one memory, no LLM) so that {r.users:,} users' messages do not queue behind "
        "the CPU model; the sleep passes use the local model (SmolLM2-135M, llama.cpp, CPU) "
        "and are expected to be slow."
    )
    lines = [
        SECTION,
        "",
        textwrap.fill(intro, width=100, break_long_words=False, break_on_hyphens=False),
        "",
        "| measurement | result | note |",
        "|---|---|---|",
        *[f"| {a} | {b} | {c} |" for a, b, c in rows],
        "",
        "Resident memory (VmRSS of each process with its children):",
        "",
        f"| process | idle stack | after {r.users:,} users' ingestion | after the sleep passes |",
        "|---|---|---|---|",
        *memory_rows(r),
    ]
    return "\n".join(lines) + "\n"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--messages", type=int, default=3, help="messages per user")
    parser.add_argument("--sample", type=int, default=50, help="histories to fetch")
    parser.add_argument("--sleepers", type=int, default=20, help="sleep passes requested")
    parser.add_argument("--sleep-timeout", type=float, default=1800.0, help="seconds")
    parser.add_argument("--extract-timeout", type=float, default=3600.0, help="seconds")
    parser.add_argument("--no-write", action="store_true", help="leave BENCHMARKS.md alone")
    args = parser.parse_args()
    if args.users < 1 or args.messages < 1:
        parser.error("--users and --messages must be at least 1")
    return args


def stop_on_sigterm(signum: int, frame: object) -> NoReturn:
    raise SystemExit(128 + signum)  # unwinds through `finally`, which stops the stack


def main() -> None:
    args = parse_args()
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    started = time.monotonic()
    results = run(args)
    command = ".venv/bin/python scripts/bench_lifecycles.py " + shlex.join(sys.argv[1:])
    section = markdown(results, command.strip())
    sys.stdout.write(section)
    say(f"total {time.monotonic() - started:.0f} s")
    if not args.no_write:
        replace_section(section)


if __name__ == "__main__":
    main()
