"""Train the contradiction reader (issue 34) and write
selfimprint/adapters/data/contradiction_reader.npz.

    pip install -e '.[train]'   # jax on CPU; training only, never needed to serve
    .venv/bin/python scripts/train_contradiction_reader.py --folds 5 --oof /tmp/oof.json
    .venv/bin/python scripts/train_contradiction_reader.py

The reader (`selfimprint.adapters.contradiction_reader`) reads an older memory and a message:
each alone through multilingual-e5-small's lower layers, then joined through the top `--tuned`
layers with low-rank adapters (`--rank`), mean-pooled, and a two-way softmax (the message says
the memory no longer holds, or not). Pairs: every labelled recent memory of each train writer's
messages (contradicted or not), and `--distractors` of the writer's earlier memories per
message, none contradicted by it. Class-balanced cross-entropy, Adam with a warm-up and a
linear decay (`adapter_training`), fixed seeds.

`--folds K` trains K times, each time without one group of train writers (by writer, never by
message), scores the group it left out through the serving code with up to `--held-distractors`
earlier memories per message, and prints the rules (`slots.contradicted`) alone, the reader
alone and the two together at each threshold, per language, over all the writers so scored:
how `StructuredConfig.pair_likely` is chosen. It writes only `--oof`. The dev and test writers
are never read.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from adapter_training import adapter_layers, balanced, fit, padded_width, pooled_fn  # noqa: E402
from extraction_data import Labelled, load_personas  # noqa: E402

from selfimprint.adapters.contradiction_reader import (  # noqa: E402
    LABELS,
    E5ContradictionReader,
    joined,
    lower_states,
    memory_ids,
    message_ids,
    shipped_pair_reader_path,
)
from selfimprint.adapters.e5_encoder import Array, E5Weights, shipped_weights  # noqa: E402
from selfimprint.adapters.tuned_layers import ReaderMeta, save_reader  # noqa: E402
from selfimprint.domain.language import detect_language  # noqa: E402
from selfimprint.domain.models import NodeType  # noqa: E402
from selfimprint.domain.structured.cues import cues  # noqa: E402
from selfimprint.domain.structured.extractor import DEFAULT_STRUCTURED  # noqa: E402
from selfimprint.domain.structured.pairs import PAIRED_TYPES, most_related  # noqa: E402
from selfimprint.domain.structured.slots import contradicted  # noqa: E402

THRESHOLDS = (0.5, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97)


@dataclass(frozen=True)
class Pair:
    row: Labelled
    memory_id: str
    memory: str
    contradicted: bool
    distractor: bool
    kind: NodeType


def pairs_of(rows: list[Labelled], distractors: int, seed: int) -> list[Pair]:
    """Each message's labelled recent memories, and up to `distractors` of its writer's earlier
    memories (the labels say the message contradicts none of them)."""
    rng = random.Random(seed)
    earlier: dict[str, list[tuple[str, str, NodeType]]] = defaultdict(list)
    out: list[Pair] = []
    for row in rows:  # in file order: each writer's messages in the order they were sent
        seen = earlier[row.persona]
        own = {m.content for m in row.recent}
        if row.recent:
            out += [
                Pair(row, m.id, m.content, m.id in row.contradicts, False, m.type)
                for m in row.recent
            ]
            others = [m for m in seen if m[1] not in own]
            drawn = rng.sample(others, min(distractors, len(others)))
            out += [Pair(row, ref, content, False, True, kind) for ref, content, kind in drawn]
        seen += [(m.id, m.content, m.type) for m in row.recent]
    return out


class States:
    """Each text's lower-layer states, computed once."""

    def __init__(self, weights: E5Weights, first: int) -> None:
        self._weights, self._first = weights, first
        self._kept: dict[tuple[str, str], Array] = {}

    def of(self, pair: Pair) -> tuple[Array, Array]:
        return self._side("memory", pair.memory), self._side("message", pair.row.text)

    def _side(self, side: str, text: str) -> Array:
        key = (side, text)
        if key not in self._kept:
            ids = (memory_ids if side == "memory" else message_ids)(self._weights, text)
            self._kept[key] = lower_states(self._weights, ids, self._first)
        return self._kept[key]


def train(
    args: argparse.Namespace, weights: E5Weights, states: States, pairs: list[Pair]
) -> tuple[ReaderMeta, list[dict[str, Array]], dict[str, Array]]:
    import jax
    import jax.numpy as jnp

    first = len(weights.layers) - args.tuned
    y = np.asarray([int(p.contradicted) for p in pairs], dtype=np.int32)
    params: dict[str, Any] = {
        "layers": adapter_layers(jnp, weights, first, args.tuned, args.rank, args.seed + 1),
        "pair.w": jnp.zeros((len(LABELS), weights.hidden)),
        "pair.b": jnp.zeros(len(LABELS)),
    }
    pooled = pooled_fn(jax, weights, first, args.tuned)
    class_weight = jnp.asarray(balanced(y, len(LABELS)))

    def loss(p: dict[str, Any], xb: Any, mb: Any, yb: Any) -> Any:
        log_p = jax.nn.log_softmax(pooled(p["layers"], xb, mb) @ p["pair.w"].T + p["pair.b"])
        return -(jnp.take_along_axis(log_p, yb[:, None], 1)[:, 0] * class_weight[yb]).mean()

    def rate(key: str) -> float:
        if key.startswith("pair."):
            return float(args.head_rate)
        return float(args.adapter_rate if key.endswith((".A", ".B")) else args.norm_rate)

    order_rng = np.random.default_rng(args.seed)
    per_epoch = len(pairs) // args.batch

    def batches(epoch: int) -> Iterator[tuple[Any, ...]]:
        order = order_rng.permutation(len(pairs))
        for b in range(per_epoch):
            idx = np.sort(order[b * args.batch : (b + 1) * args.batch])
            x, mask = joined([states.of(pairs[i]) for i in idx])
            width = -(-x.shape[1] // 8) * 8
            x = np.pad(x, ((0, 0), (0, width - x.shape[1]), (0, 0)))
            mask = np.pad(mask, ((0, 0), (0, width - mask.shape[1])))
            yield x[:, : padded_width(mask)], mask[:, : padded_width(mask)], jnp.asarray(y[idx])

    def report(epoch: int, mean: float, _: dict[str, Any]) -> None:
        print(f"epoch {epoch + 1}: loss {mean:.3f}", flush=True)  # noqa: T201

    params = fit(jax, params, loss, rate, batches, args.epochs, per_epoch, report)
    meta = ReaderMeta(
        base_sha256=weights.digest,
        first_tuned=first,
        types=LABELS,
        valence=(),
        training={
            "script": "scripts/train_contradiction_reader.py",
            "pairs": len(pairs),
            "contradicted": int(y.sum()),
            "writers": len({p.row.persona for p in pairs}),
            "rank": args.rank,
            "epochs": args.epochs,
            "batch": args.batch,
            "distractors": args.distractors,
            "adapter_rate": args.adapter_rate,
            "norm_rate": args.norm_rate,
            "head_rate": args.head_rate,
            "seed": args.seed,
        },
    )
    tuned = [{k: np.asarray(v) for k, v in layer.items()} for layer in params["layers"]]
    heads = {k: np.asarray(params[k]) for k in ("pair.w", "pair.b")}
    return meta, tuned, heads


def folds(args: argparse.Namespace, weights: E5Weights, rows: list[Labelled]) -> int:
    writers = sorted({r.persona for r in rows})
    states = States(weights, len(weights.layers) - args.tuned)
    read: dict[str, dict[str, float]] = defaultdict(dict)
    held_pairs: list[Pair] = []
    for fold in range(args.folds):
        held = {w for i, w in enumerate(writers) if i % args.folds == fold}
        started = time.perf_counter()
        meta, tuned, heads = train(
            args,
            weights,
            states,
            pairs_of([r for r in rows if r.persona not in held], args.distractors, 7),
        )
        reader = E5ContradictionReader(weights, meta, tuned, heads)
        scored = pairs_of([r for r in rows if r.persona in held], args.held_distractors, 7)
        by_row: dict[str, list[Pair]] = defaultdict(list)
        for pair in scored:
            by_row[pair.row.id].append(pair)
        for row_id, mine in by_row.items():
            odds = reader.contradiction_odds([(p.memory, p.row.text) for p in mine])
            for pair, probability in zip(mine, odds, strict=True):
                read[row_id][pair.memory_id] = probability
        held_pairs += scored
        print(  # noqa: T201 - a script's report
            f"fold {fold + 1}/{args.folds}: {len(held)} writers held out, {len(scored)} pairs "
            f"scored, {time.perf_counter() - started:.0f} s",
            flush=True,
        )
    rows_by_id = {p.row.id: p.row for p in held_pairs}
    older: dict[str, list[tuple[str, str]]] = defaultdict(list)
    distractors: dict[str, set[str]] = defaultdict(set)
    kinds = {(p.row.id, p.memory_id): p.kind for p in held_pairs}
    for p in held_pairs:
        older[p.row.id].append((p.memory_id, p.memory))
        if p.distractor:
            distractors[p.row.id].add(p.memory_id)
    ruled = {
        row_id: set(contradicted(row.text, older[row_id], cues(detect_language(row.text))))
        for row_id, row in rows_by_id.items()
    }

    def line(name: str, hits: Callable[[str], set[str]]) -> None:
        parts = []
        for language in ("en", "ru"):
            tp = fp = fn = hit_distractors = 0
            for row_id, row in rows_by_id.items():
                if row.lang != language:
                    continue
                got = hits(row_id)
                hit_distractors += len(got & distractors[row_id])
                tp += len(got & row.contradicts)
                fp += len(got - row.contradicts)
                fn += len(row.contradicts - got)
            recall, precision = tp / max(tp + fn, 1), tp / max(tp + fp, 1)
            parts.append(
                f"{language} {recall:.3f} at {precision:.3f} ({tp + fn} labelled, "
                f"{hit_distractors} distractors hit)"
            )
        print(f"{name:28s} " + " | ".join(parts), flush=True)  # noqa: T201

    def above(t: float) -> Callable[[str], set[str]]:
        return lambda r: {m for m, q in read[r].items() if q >= t}

    def with_rules(t: float) -> Callable[[str], set[str]]:
        return lambda r: ruled[r] | above(t)(r)

    # As the extractor serves it: the reader reads only the `--pair-memories` older facts, events
    # and open loops sharing most words with the message (no change head gate here: the head was
    # trained on these writers).
    served = {
        row_id: {
            ref
            for ref, _ in most_related(
                row.text,
                [(m, c) for m, c in older[row_id] if kinds.get((row_id, m)) in PAIRED_TYPES],
                args.pair_memories,
            )
        }
        for row_id, row in rows_by_id.items()
    }

    def as_served(t: float) -> Callable[[str], set[str]]:
        return lambda r: ruled[r] | (above(t)(r) & served[r])

    line("rules alone", lambda r: ruled[r])
    for t in THRESHOLDS:
        line(f"reader >= {t}", above(t))
    for t in THRESHOLDS:
        line(f"rules + reader >= {t}", with_rules(t))
    for t in THRESHOLDS:
        line(f"rules + reader >= {t}, {args.pair_memories} read", as_served(t))
    if args.oof:
        args.oof.write_text(
            json.dumps(
                {
                    row_id: {
                        "lang": row.lang,
                        "persona": row.persona,
                        "labelled": sorted(row.contradicts),
                        "rules": sorted(ruled[row_id]),
                        "distractors": sorted(distractors[row_id]),
                        "read": read[row_id],
                        "memories": dict(older[row_id]),
                    }
                    for row_id, row in rows_by_id.items()
                },
                indent=0,
            )
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tuned", type=int, default=4, help="top layers given adapters")
    parser.add_argument("--rank", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--distractors", type=int, default=1, help="per training message")
    parser.add_argument("--held-distractors", type=int, default=8, help="per scored message")
    parser.add_argument("--adapter-rate", type=float, default=1e-3)
    parser.add_argument("--norm-rate", type=float, default=3e-5, help="norms and biases")
    parser.add_argument("--head-rate", type=float, default=1e-2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--folds", type=int, default=0, help="score by writer; write no reader")
    parser.add_argument("--oof", type=Path, default=None, help="with --folds: the readings")
    parser.add_argument(
        "--pair-memories",
        type=int,
        default=DEFAULT_STRUCTURED.pair_memories,
        help="with --folds: also score the reader on this many memories a message, as served",
    )
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    rows = [r for r in load_personas() if r.split == "train"]
    weights = shipped_weights()
    if args.folds:
        return folds(args, weights, rows)
    started = time.perf_counter()
    states = States(weights, len(weights.layers) - args.tuned)
    meta, tuned, heads = train(args, weights, states, pairs_of(rows, args.distractors, 7))
    out = args.out or shipped_pair_reader_path()
    save_reader(out, meta, tuned, heads)
    print(  # noqa: T201 - a script's report
        f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) in {time.perf_counter() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
