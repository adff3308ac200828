"""Read-path numbers tried offline on one LoCoMo ingestion (issue 32's calibration).

`scripts/bench_locomo.py --snapshots DIR` saves each user's graph and decay clock as they stand
when the questions are asked. This script asks the same questions again, for each variant of the
domain tuning, through the product's own read path (`service.read_path.build_context`, with the
snapshot retrieval that serves archived users: the rules of the Neo4j read path, in memory), and
scores them as the benchmark does (text-credited recall, the flat baseline at equal tokens, by
category and by evidence age). Ingestion is not repeated: only numbers the read path reads
(`scoring`, `context`, `beliefs`, the decay curves read at query time) can be swept here.

    .venv/bin/python scripts/sweep_locomo_scoring.py --snapshots /tmp/locomo-snaps \
        --variant 'similarity-led={"scoring": {"similarity_weight": 0.8, "recency_weight": 0.1,
        "effective_weight_weight": 0.1}}'

The first row is the tuning as shipped (or $SELFIMPRINT_TUNING_FILE). Figures are a development
tool on the dev conversations, not a headline: the headline is bench_locomo.py's own run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from bench_locomo import (
    DEFAULT_BUDGET,
    DEFAULT_DATA,
    RANKING_BUDGET,
    eligible,
    evidence_ages,
    flat_scores,
    memory_score,
    question_key,
    turn_texts,
)
from locomo_data import CATEGORY_NAMES, Conversation, load_conversations, select_conversations
from locomo_metrics import AGE_BUCKETS, CONTEXT, QuestionScore, SystemScores, recall_by_age

from selfimprint.adapters.embedders import build_embedder
from selfimprint.config import Settings
from selfimprint.domain.decay import DEFAULT_DECAY, ActivityTimeline, expires_at
from selfimprint.domain.models import NodeType
from selfimprint.domain.tuning import DomainTuning
from selfimprint.domain.users import UserScope
from selfimprint.logging import configure_logging
from selfimprint.ports import LLM, Embedder, GraphSnapshot, GraphStore
from selfimprint.service.archive_read import from_snapshot
from selfimprint.service.read_path import ContextMode, build_context


class CachedQueries:
    """The embedder, with query vectors kept: every variant asks the same questions."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self._queries: dict[str, list[float]] = {}
        self.model_id = inner.model_id
        self.dimension = inner.dimension
        self.similarity_floor = inner.similarity_floor

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self._queries]
        if missing:
            self._queries.update(zip(missing, self._inner.embed_queries(missing), strict=True))
        return [self._queries[t] for t in texts]

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        return self._inner.embed_passages(texts)


class OfflineResources:
    """What build_context reads, without Neo4j or an LLM (fast mode, snapshot retrieval)."""

    def __init__(self, settings: Settings, embedder: Any, at: datetime, tuning: DomainTuning):
        self._settings, self._embedder, self._at, self._tuning = settings, embedder, at, tuning

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def graph(self) -> GraphStore:
        raise RuntimeError("offline: the snapshot is the graph")

    @property
    def embedder(self) -> Embedder:
        embedder: Embedder = self._embedder
        return embedder

    @property
    def llm(self) -> LLM:
        raise RuntimeError("offline: fast mode needs no LLM")

    @property
    def clock(self) -> Callable[[], datetime]:
        return lambda: self._at

    @property
    def tuning(self) -> DomainTuning:
        return self._tuning


def merged(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in overrides.items():
        out[key] = (
            merged(out[key], value)
            if isinstance(value, dict) and isinstance(out.get(key), dict)
            else value
        )
    return out


def variant_tuning(base: DomainTuning, overrides: dict[str, Any]) -> DomainTuning:
    return DomainTuning.model_validate(merged(base.model_dump(), overrides))


@dataclass(frozen=True)
class Variant:
    name: str
    tuning: DomainTuning
    # Stored decay coefficient -> the one tried instead (the curves are chosen at ingestion and
    # stored on each memory; trying another means rereading its weight and expiry with it).
    curves: dict[float, float]
    # The significance rule tried instead of the stored one (`significant_above`: an event
    # whose importance at extraction is above it takes the significant-event curve; one on the
    # plain event curve otherwise). None: as stored.
    significant_above: float | None = None


def parse_variants(raw: Sequence[str], base: DomainTuning) -> list[Variant]:
    variants = [Variant("shipped", base, {})]
    for item in raw:
        name, _, text = item.partition("=")
        if not text:
            raise SystemExit(f"--variant wants NAME=JSON, got {item!r}")
        overrides = json.loads(text)
        curves = {float(k): float(v) for k, v in overrides.pop("curves", {}).items()}
        above = overrides.pop("significant_above", None)
        variants.append(
            Variant(
                name,
                variant_tuning(base, overrides),
                curves,
                None if above is None else float(above),
            )
        )
    return variants


def with_significance(
    snapshot: GraphSnapshot, timeline: ActivityTimeline, above: float | None
) -> GraphSnapshot:
    """The snapshot as if events had been marked significant by `importance > above` (the
    events on a plain or significant curve; a near-type curve chosen at extraction stays)."""
    if above is None:
        return snapshot
    plain, significant = DEFAULT_DECAY.event, DEFAULT_DECAY.significant_event
    nodes = []
    for node in snapshot.nodes:
        stored = round(node.decay_coefficient, 4)
        if node.type is not NodeType.EVENT or node.is_pinned or stored not in (plain, significant):
            nodes.append(node)
            continue
        marked = node.importance > above
        tried = significant if marked else plain
        expiry = expires_at(node.weight, node.weight_at, tried, timeline=timeline)
        update = {"decay_coefficient": tried, "expires_at": expiry, "significant": marked}
        nodes.append(node.model_copy(update=update))
    return snapshot.model_copy(update={"nodes": tuple(nodes)})


def with_curves(
    snapshot: GraphSnapshot, timeline: ActivityTimeline, curves: dict[float, float]
) -> GraphSnapshot:
    """The snapshot as if each memory had been stored with the variant's coefficient."""
    if not curves:
        return snapshot
    nodes = []
    for node in snapshot.nodes:
        tried = curves.get(round(node.decay_coefficient, 4))
        if tried is None or node.is_pinned:
            nodes.append(node)
            continue
        expiry = expires_at(node.weight, node.weight_at, tried, timeline=timeline)
        nodes.append(node.model_copy(update={"decay_coefficient": tried, "expires_at": expiry}))
    return snapshot.model_copy(update={"nodes": tuple(nodes)})


async def ask_all(
    resources: OfflineResources,
    conversation: Conversation,
    snapshot: GraphSnapshot,
    timeline: ActivityTimeline,
) -> list[QuestionScore]:
    scope = UserScope(tenant_id="sweep", user_id=snapshot.user_id)
    retrieve = from_snapshot(snapshot, timeline)
    texts = turn_texts(conversation)
    scores = []
    for question in eligible(conversation, None):
        answers = []
        for budget in (RANKING_BUDGET, DEFAULT_BUDGET):
            outcome = await build_context(
                resources, scope, question.text, budget, ContextMode.FAST, retrieve
            )
            answers.append(
                {
                    "tokens": outcome.context.tokens,
                    "memories": [
                        {"sources": list(m.sources), "content": m.content}
                        for m in outcome.context.memories_used
                    ],
                }
            )
        key = question_key(conversation, question)
        scores.append(memory_score(key, question, answers[0], answers[1], texts))
    return scores


def flat_baseline(
    folder: Path, embedder: Embedder, conversations: Sequence[Conversation]
) -> SystemScores:
    """The flat baseline's scores, cached beside the snapshots (they depend on the texts and
    the embedder only)."""
    cache = folder / f"flat-{embedder.model_id.replace('/', '_')}.json"
    if cache.is_file():
        rows = json.loads(cache.read_text(encoding="utf-8"))
        return SystemScores([QuestionScore(**row) for row in rows])
    flat = SystemScores()
    for conversation in conversations:
        flat.questions.extend(flat_scores(embedder, conversation, eligible(conversation, None)))
    cache.write_text(json.dumps([asdict(q) for q in flat.questions]), encoding="utf-8")
    return flat


def row(name: str, scores: SystemScores, flat: SystemScores, ages: dict[str, float]) -> str:
    summary = scores.summary()
    cells = [name, f"{summary['overall'][f'text@{CONTEXT}']:.3f}"]
    cells += [f"{summary[CATEGORY_NAMES[c]][f'text@{CONTEXT}']:.3f}" for c in CATEGORY_NAMES]
    cells += [f"{summary['overall']['text@10']:.3f}"]
    share = summary["overall"].get(f"evidence_share@{CONTEXT}")
    cells += [f"{share:.4f}" if share is not None else "–"]  # targets differ in the 4th place
    by_age = recall_by_age(scores.values("text", CONTEXT), flat.values("text", CONTEXT), ages)
    cells += [f"{b['memory']:.3f}" if b["memory"] is not None else "–" for b in by_age]
    return "| " + " | ".join(cells) + " |"


def dump(folder: Path | None, name: str, scores: SystemScores) -> None:
    """Per-question scores of one row, to compare rows question by question."""
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    slug = "".join(c if c.isalnum() else "-" for c in name).strip("-")
    rows = [asdict(q) for q in scores.questions]
    (folder / f"{slug}.json").write_text(json.dumps(rows), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--snapshots", required=True, help="bench_locomo.py --snapshots folder")
    parser.add_argument(
        "--data", default=os.environ.get("SELFIMPRINT_LOCOMO_PATH", str(DEFAULT_DATA))
    )
    parser.add_argument(
        "--variant", action="append", default=[], help="NAME=JSON overrides of the tuning"
    )
    parser.add_argument(
        "--dump", type=Path, help="write each row's per-question scores here (NAME.json)"
    )
    parser.add_argument(
        "--skip-shipped",
        action="store_true",
        help="leave out the shipped row (already measured on these snapshots)",
    )
    args = parser.parse_args()
    configure_logging("warning", "console")
    folder = Path(args.snapshots)
    saved = {
        s["conversation"]: s
        for s in (json.loads(p.read_text("utf-8")) for p in sorted(folder.glob("conv-*.json")))
    }
    if not saved:
        raise SystemExit(f"no snapshots in {folder}: run bench_locomo.py --snapshots {folder}")
    conversations = select_conversations(
        load_conversations(Path(args.data), captions=True), ",".join(saved)
    )
    settings = Settings()
    embedder = CachedQueries(build_embedder(settings))
    base = settings.domain_tuning()
    flat = SystemScores(
        [
            q
            for q in flat_baseline(folder, embedder, conversations).questions
            if q.key.split(":")[0] in saved
        ]
    )
    ages: dict[str, float] = {}
    for conversation in conversations:
        at = datetime.fromisoformat(saved[conversation.sample_id]["asked_at"])
        ages |= evidence_ages(conversation, eligible(conversation, None), "dataset", at)
    ages_head = " | ".join(name for name, _, _ in AGE_BUCKETS)
    head = [
        "variant",
        "text @400",
        *(CATEGORY_NAMES[c] for c in CATEGORY_NAMES),
        "text @10",
        "evidence tokens @400",
    ]
    out = sys.stdout
    out.write("| " + " | ".join(head) + " | " + ages_head + " |\n")
    out.write("|" + "---|" * (len(head) + len(AGE_BUCKETS)) + "\n")
    out.write(row("flat, 400-token cut", flat, flat, ages) + "\n")
    dump(args.dump, "flat", flat)
    variants = parse_variants(args.variant, base)
    for variant in variants[1:] if args.skip_shipped else variants:
        scores = SystemScores()
        for conversation in conversations:
            s = saved[conversation.sample_id]
            at = datetime.fromisoformat(s["asked_at"])
            resources = OfflineResources(settings, embedder, at, variant.tuning)
            timeline = ActivityTimeline.model_validate(s["timeline"])
            snapshot = with_curves(
                with_significance(
                    GraphSnapshot.model_validate(s["snapshot"]),
                    timeline,
                    variant.significant_above,
                ),
                timeline,
                variant.curves,
            )
            scores.questions.extend(
                asyncio.run(ask_all(resources, conversation, snapshot, timeline))
            )
        out.write(row(variant.name, scores, flat, ages) + "\n")
        out.flush()
        dump(args.dump, variant.name, scores)


if __name__ == "__main__":
    main()
