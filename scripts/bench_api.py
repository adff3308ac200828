"""API benchmark: context latency for a user with 10,000 memories (end to end over HTTP, query
embedding included), message acceptance latency, and ingestion throughput with the local LLM,
with that LLM's recorded answers replayed (no inference: scripts/llm_replay.py), with verbatim
and with structured extraction, on a throw-away local stack.

    .venv/bin/python scripts/bench_api.py [--memories 10000] [--requests 300] [--no-write]

Prints the figures and replaces the `## API` section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from llm_replay import ReplayServer

from selfimprint.adapters.embedders import build_embedder
from selfimprint.adapters.neo4j import Neo4jGraphStore, open_driver
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.neo4j.message_log import ExtractionState, MessageLogs
from selfimprint.config import Settings
from selfimprint.devstack import stack
from selfimprint.devstack.ports import free_ports, isolated_port_settings
from selfimprint.devstack.report import replace_section
from selfimprint.devstack.services import PythonProcess
from selfimprint.domain.decay import ActivityTimeline, coefficient_for, expires_at
from selfimprint.domain.models import Belief, Node, NodeType, Valence
from selfimprint.domain.reply_context import context_terms
from selfimprint.domain.users import UserScope

SUBJECTS = ["my sister", "my manager", "the dentist", "our landlord", "my running club", "Marta"]
VERBS = ["talked about", "worried about", "planned", "finished", "postponed", "enjoyed"]
OBJECTS = [
    "the quarterly report", "a trip to Porto", "the job interview", "learning Rust",
    "the marathon training", "moving flats", "the new espresso machine", "a book on Stoicism",
    "the visa paperwork", "a birthday party", "the garden", "a piano lesson",
]  # fmt: skip


def say(text: str) -> None:
    sys.stderr.write(text + "\n")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def synthetic_sentences(n: int, rng: random.Random) -> list[str]:
    return [
        f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(VERBS)} {rng.choice(OBJECTS)} "
        f"on day {i % 365} ({i})."
        for i in range(n)
    ]


def synthetic_node(
    i: int,
    user_id: str,
    text: str,
    vector: list[float],
    model: str,
    at: datetime,
    weight: float = 1.0,
    timeline: ActivityTimeline | None = None,
    context: tuple[tuple[float, ...], tuple[str, ...]] | None = None,
) -> Node:
    """The benchmarks' memory number `i`: types in rotation (every ninth a negative emotional
    note), stored weight `weight` at `at`, its expiry on `timeline`."""
    types = [NodeType.FACT, NodeType.EVENT, NodeType.PERSON, NodeType.OPEN_LOOP]
    node_type = types[i % len(types)] if i % 9 else NodeType.EMOTIONAL_NOTE
    valence = Valence.NEGATIVE if node_type is NodeType.EMOTIONAL_NOTE else None
    coefficient = coefficient_for(node_type, valence=valence)
    return Node(
        id=f"bench-{i}",
        user_id=user_id,
        type=node_type,
        valence=valence,
        content=text,
        weight=weight,
        weight_at=at,
        created_at=at,
        decay_coefficient=coefficient,
        expires_at=expires_at(weight, at, coefficient, timeline=timeline),
        sources=(f"msg-{i}",),
        belief=Belief(first_seen=at),
        embedding=tuple(vector),
        embedding_model=model,
        context_embedding=context[0] if context else None,
        context_terms=context[1] if context else (),
    )


def _reply_context(
    previous: str, before: list[float], text: str, own: list[float]
) -> tuple[tuple[float, ...], tuple[str, ...]]:
    """A stand-in for a memory's reply context (domain.reply_context) without embedding twice:
    the normalised sum of the previous sentence's vector and its own, which is near what the two
    embedded together give, and the previous sentence's terms."""
    summed = [a + b for a, b in zip(before, own, strict=True)]
    norm = sum(x * x for x in summed) ** 0.5 or 1.0
    return tuple(x / norm for x in summed), context_terms(previous, text)


async def load_memories(settings: Settings, scope: UserScope, n: int) -> float:
    """Write n memories with real embeddings straight into the store; returns seconds."""
    rng = random.Random(7)
    embedder = build_embedder(settings)
    texts = synthetic_sentences(n, rng)
    now = datetime.now(UTC)
    started = time.perf_counter()
    vectors: list[list[float]] = []
    for i in range(0, n, 256):
        vectors += embedder.embed_passages(texts[i : i + 256])
    nodes = []
    for i, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
        created = now - timedelta(days=rng.uniform(0, 60))
        # Every memory but the first replied to the sentence before it, as in a conversation.
        context = _reply_context(texts[i - 1], vectors[i - 1], text, vector) if i else None
        nodes.append(
            synthetic_node(
                i, scope.user_id, text, vector, embedder.model_id, created, context=context
            )
        )
    driver = open_driver(settings)
    try:
        store = Neo4jGraphStore(driver, settings.neo4j_database).for_user(
            scope.tenant_id, scope.user_id
        )
        for i in range(0, n, 1000):
            await store.upsert(nodes[i : i + 1000])
    finally:
        await driver.close()
    return time.perf_counter() - started


async def issue_key(settings: Settings) -> tuple[str, str]:
    driver = open_driver(settings)
    try:
        tenant = f"bench{uuid.uuid4().hex[:6]}"
        issued = await Neo4jAccounts(driver, settings.neo4j_database).issue_key(tenant, "bench")
        return tenant, issued.api_key
    finally:
        await driver.close()


def time_requests(
    http: httpx.Client,
    method: str,
    path: str,
    bodies: list[dict[str, object]],
    status: int,
    parts: dict[str, list[float]] | None = None,
    rate: float | None = None,
) -> list[float]:
    """Latencies in ms; `parts` collects the server's own Server-Timing figures by name.
    Back to back, or with `rate` at that many requests a second (an open-loop schedule: a
    late request goes at once, the next keeps its slot)."""
    latencies = []
    first = time.perf_counter()
    for i, body in enumerate(bodies):
        if rate is not None:
            time.sleep(max(0.0, first + i / rate - time.perf_counter()))
        started = time.perf_counter()
        answer = http.request(method, path, json=body)
        latencies.append((time.perf_counter() - started) * 1000)
        if answer.status_code != status:
            raise RuntimeError(f"{path}: {answer.status_code} {answer.text[:200]}")
        if parts is not None:
            for item in answer.headers.get("server-timing", "").split(","):
                name, _, duration = item.strip().partition(";dur=")
                if duration:
                    parts.setdefault(name, []).append(float(duration))
    return latencies


async def wait_extracted(settings: Settings, scope: UserScope, total: int) -> float:
    driver = open_driver(settings)
    started = time.perf_counter()
    try:
        log = MessageLogs(driver, settings.neo4j_database).for_user(scope)
        while await log.count_in_state(ExtractionState.PENDING) > 0:
            await asyncio.sleep(0.5)
        return time.perf_counter() - started
    finally:
        await driver.close()


def ingest(
    http: httpx.Client,
    settings: Settings,
    tenant: str,
    messages: int,
    label: str,
    period: int | None = None,
    user: str | None = None,
) -> tuple[float, int]:
    """Send `messages` messages in batches of 4 and wait until all are extracted. `period`:
    message m<j> says what m<j mod period> said (the replay of a recorded conversation).
    `user`: the user to create (default: a new name from `label`)."""
    user = user or f"ingest-{label}-{uuid.uuid4().hex[:6]}"
    http.put(f"/v1/users/{user}", json={}).raise_for_status()
    texts = synthetic_sentences(period or messages, random.Random(11))
    started = time.perf_counter()
    now = datetime.now(UTC)
    for i in range(0, messages, 4):
        rows = [
            {
                "id": f"m{j}",
                "role": "user",
                "text": f"I {texts[j % len(texts)].lower()}",
                "sent_at": now.isoformat(),
            }
            for j in range(i, min(i + 4, messages))
        ]
        http.post(f"/v1/users/{user}/messages", json={"messages": rows}).raise_for_status()
    asyncio.run(wait_extracted(settings, UserScope(tenant, user), messages))
    return time.perf_counter() - started, messages


def part_rows(parts: dict[str, list[float]]) -> list[tuple[str, str, str]]:
    """Table rows for the server's own Server-Timing parts (its `total` is the row above)."""
    return [
        (
            f"... of which server-side `{name}`",
            f"p50 {statistics.median(ms):.1f} ms, p95 {pct(ms, 0.95):.1f} ms",
            "Server-Timing header",
        )
        for name, ms in parts.items()
        if name != "total"
    ]


GPU_WORKER = PythonProcess("worker-gpu", "workers.gpu", "task_queue_gpu")
API = PythonProcess("api", "api")


def restart_api(settings: Settings) -> None:
    process = stack.process_for(API, settings)
    process.stop()
    API.start(settings, process)
    process.wait_ready(lambda: API.ready(settings), 120)


def stop_gpu_worker(settings: Settings) -> None:
    stack.process_for(GPU_WORKER, settings).stop()


def restart_gpu_worker(settings: Settings) -> None:
    process = stack.process_for(GPU_WORKER, settings)
    process.stop()
    GPU_WORKER.start(settings, process)
    process.wait_ready(lambda: GPU_WORKER.ready(settings), 120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--llm-messages", type=int, default=12)
    parser.add_argument("--verbatim-messages", type=int, default=200)
    parser.add_argument("--structured-messages", type=int, default=200)
    parser.add_argument(
        "--replayed-messages", type=int, default=200, help="with the LLM's recorded answers"
    )
    parser.add_argument(
        "--accept-rate", type=float, default=10.0, help="paced acceptance, requests a second"
    )
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="si-bench-api-"))
    settings = Settings(data_dir=root, neo4j_heap="2g", **isolated_port_settings())  # type: ignore[arg-type]
    say("starting an isolated stack ...")
    stack.up(settings)
    try:
        tenant, key = asyncio.run(issue_key(settings))
        http = httpx.Client(
            base_url=settings.api_url, headers={"Authorization": f"Bearer {key}"}, timeout=300
        )
        user = "big-user"
        http.put(f"/v1/users/{user}", json={}).raise_for_status()
        say(f"loading {args.memories} memories with real embeddings ...")
        load_s = asyncio.run(load_memories(settings, UserScope(tenant, user), args.memories))

        questions = [f"What do you remember about {o}?" for o in OBJECTS] + [
            f"How is {s} doing?" for s in SUBJECTS
        ]
        bodies: list[dict[str, object]] = [
            {"message": questions[i % len(questions)], "mode": "fast"} for i in range(args.requests)
        ]
        # A full pass first: right after the load, Neo4j is still labelling the user's nodes
        # for the vector index and warming its caches, which would penalise whichever pool is
        # timed first. Then the previous read path's pool (the 20 nearest only) and today's,
        # each on a freshly started API, for the ratio.
        say("warming up ...")
        time_requests(http, "POST", f"/v1/users/{user}/context", bodies, 200)
        timed: dict[str, tuple[list[float], dict[str, list[float]]]] = {}
        old_pool = settings.model_copy(
            update={"retrieval_nearest_pool": 20, "retrieval_prior_pool": 0}
        )
        for label, configured in (("old", old_pool), ("new", settings)):
            restart_api(configured)
            time_requests(http, "POST", f"/v1/users/{user}/context", bodies[:20], 200)
            say(f"timing context requests ({label} pool) ...")
            parts: dict[str, list[float]] = {}
            ms = time_requests(http, "POST", f"/v1/users/{user}/context", bodies, 200, parts)
            timed[label] = (ms, parts)
        context_ms, context_parts = timed["new"]
        old_ms, old_parts = timed["old"]

        # Acceptance twice: with extraction parked (the gpu worker stopped: what an API host
        # sees when extraction runs elsewhere, as in production), then while this machine's
        # same 2 cores extract the backlog (verbatim mode, so it does not queue in front of the
        # LLM measurement).
        acceptor = "accept-user"
        http.put(f"/v1/users/{acceptor}", json={}).raise_for_status()
        now = datetime.now(UTC).isoformat()

        def accept_bodies(prefix: str) -> list[dict[str, object]]:
            return [
                {
                    "messages": [
                        {"id": f"{prefix}{i}", "role": "user", "text": "ok, noted.", "sent_at": now}
                    ]
                }
                for i in range(args.requests)
            ]

        stop_gpu_worker(settings)
        say("timing message acceptance, extraction parked ...")
        parked_parts: dict[str, list[float]] = {}
        parked_ms = time_requests(
            http, "POST", f"/v1/users/{acceptor}/messages", accept_bodies("p"), 202, parked_parts
        )
        # The lifecycle is told after the answer, so back to back each request shares the 2
        # cores with the previous one's signal and workflow task; paced, it does not.
        say(f"timing message acceptance at {args.accept_rate}/s, extraction parked ...")
        paced_parts: dict[str, list[float]] = {}
        paced_ms = time_requests(
            http,
            "POST",
            f"/v1/users/{acceptor}/messages",
            accept_bodies("q"),
            202,
            paced_parts,
            rate=args.accept_rate,
        )
        restart_gpu_worker(settings.model_copy(update={"extraction": "verbatim"}))
        asyncio.run(wait_extracted(settings, UserScope(tenant, acceptor), args.requests))
        accept_parts: dict[str, list[float]] = {}
        say("timing message acceptance while extracting ...")
        accept_ms = time_requests(
            http, "POST", f"/v1/users/{acceptor}/messages", accept_bodies("a"), 202, accept_parts
        )
        asyncio.run(wait_extracted(settings, UserScope(tenant, acceptor), args.requests))
        say(f"ingesting {args.verbatim_messages} messages without the LLM ...")
        verbatim_s, verbatim_n = ingest(http, settings, tenant, args.verbatim_messages, "verbatim")
        # The CPU default, side by side: typed memories, dates, people, causes, contradictions.
        restart_gpu_worker(settings.model_copy(update={"extraction": "structured"}))
        say(f"ingesting {args.structured_messages} messages with structured extraction ...")
        structured_s, structured_n = ingest(
            http, settings, tenant, args.structured_messages, "structured"
        )

        llm_s, llm_n, replay_s, replay_n, replay_note = 0.0, 0, 0.0, 0, ""
        if args.llm_messages:
            # The gpu worker reaches llama.cpp through the recorder, which keeps its answers;
            # then the recorder turns into their replay for the no-inference figure.
            recorder = ReplayServer(free_ports(1)[0], upstream=settings.llm_target)
            recorder.start()
            try:
                restart_gpu_worker(
                    settings.model_copy(
                        update={"llm_base_url": recorder.base_url, "extraction": "llm"}
                    )
                )
                say(f"ingesting {args.llm_messages} messages with the local LLM ...")
                llm_s, llm_n = ingest(http, settings, tenant, args.llm_messages, "llm")
                recorder.upstream = None
                replay_note = recorder.recordings.describe()
                if recorder.recordings.answers:
                    say(f"ingesting {args.replayed_messages} messages with recorded answers ...")
                    replay_s, replay_n = ingest(
                        http, settings, tenant, args.replayed_messages, "replay", args.llm_messages
                    )
                    replay_note = recorder.recordings.describe()
            finally:
                recorder.stop()
    finally:
        stack.down(settings)
        shutil.rmtree(root, ignore_errors=True)

    command = " ".join(sys.argv[1:])
    rows = [
        (
            f"context, fast mode, {args.memories:,} memories, over HTTP incl. query embedding "
            f"(pool: {settings.retrieval_nearest_pool} nearest + "
            f"{settings.retrieval_prior_pool} best before similarity, ranked by the full score)",
            f"p50 {statistics.median(context_ms):.1f} ms, p95 {pct(context_ms, 0.95):.1f} ms",
            "target p95 <= 100 ms",
        ),
        *part_rows(context_parts),
        (
            "context, the same, with the previous pool (the 20 nearest only), same run, "
            "timed just before",
            f"p50 {statistics.median(old_ms):.1f} ms, p95 {pct(old_ms, 0.95):.1f} ms",
            f"p50 ratio {statistics.median(context_ms) / statistics.median(old_ms):.2f}",
        ),
        *part_rows(old_parts),
        (
            "message acceptance (1 message, committed to the message log; the lifecycle is "
            "told right after the answer), extraction parked, back to back",
            f"p50 {statistics.median(parked_ms):.1f} ms, p95 {pct(parked_ms, 0.95):.1f} ms",
            "target p95 <= 20 ms; each request overlaps the previous one's signal",
        ),
        *part_rows(parked_parts),
        (
            f"message acceptance, extraction parked, paced at {args.accept_rate:g} requests/s",
            f"p50 {statistics.median(paced_ms):.1f} ms, p95 {pct(paced_ms, 0.95):.1f} ms",
            "target p95 <= 20 ms",
        ),
        *part_rows(paced_parts),
        (
            "message acceptance, while the same 2 cores extract the backlog (verbatim)",
            f"p50 {statistics.median(accept_ms):.1f} ms, p95 {pct(accept_ms, 0.95):.1f} ms",
            "embedding on the API's cores",
        ),
        *part_rows(accept_parts),
        (
            "ingestion with the local LLM (SmolLM2-135M, llama.cpp, 2 cores)",
            f"{llm_n / llm_s:.2f} messages/s ({llm_n} in {llm_s:.0f} s)" if llm_n else "not run",
            "batches of 4 messages",
        ),
        (
            "ingestion with the LLM's answers replayed (no inference: prompt, answer parsing, "
            "apply rules, embedding, graph writes, workflow)",
            f"{replay_n / replay_s:.1f} messages/s ({replay_n} in {replay_s:.0f} s)"
            if replay_n
            else "not measured: the model gave no usable answer to record",
            f"benchmark only (scripts/llm_replay.py); {replay_note}",
        ),
        (
            "ingestion without the LLM (verbatim extraction, embedding + graph writes)",
            f"{verbatim_n / verbatim_s:.1f} messages/s ({verbatim_n} in {verbatim_s:.0f} s)",
            "benchmark-only setting",
        ),
        (
            "ingestion with structured extraction (the CPU default: head, cues, dates, people, "
            "causes, contradictions, embedding + graph writes), same run, just after verbatim",
            f"{structured_n / structured_s:.1f} messages/s ({structured_n} in "
            f"{structured_s:.0f} s)",
            f"target >= 10 messages/s; "
            f"{(structured_n / structured_s) / (verbatim_n / verbatim_s):.2f}x verbatim",
        ),
        (
            f"loading {args.memories:,} memories (embedding + upsert)",
            f"{load_s:.0f} s",
            "set-up, not a target",
        ),
    ]
    lines = [
        "## API",
        "",
        f"Command: `.venv/bin/python scripts/bench_api.py {command}`. One throw-away local stack",
        "(all services on this 2-core machine, client on the same machine, sequential requests).",
        "",
        "| measurement | result | note |",
        "|---|---|---|",
        *[f"| {a} | {b} | {c} |" for a, b, c in rows],
    ]
    sys.stdout.write("\n".join(lines) + "\n")
    if not args.no_write:
        replace_section("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
