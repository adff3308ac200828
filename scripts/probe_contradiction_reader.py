"""Probe a contradiction reader that reads the older memory and the message together (issue 34):
multilingual-e5-small's top `--tuned` layers given low-rank adapters, as
`scripts/train_type_reader.py` tunes them, over the token pair "query: <memory>" + "passage:
<message>", and a two-way softmax (contradicts or not). It writes nothing: it trains on the train
writers but those held out (`--hold`) and scores the held-out writers' labelled memories, with up
to `--held-distractors` of each writer's earlier memories as distractors, against the rules
(`slots.contradicted`) and the two together.

    pip install -e '.[train]'   # jax on CPU
    .venv/bin/python scripts/probe_contradiction_reader.py \
        --hold p117-connor,p118-nia,p119-valeria,p120-fyodor

A probe, not a shipped reader: thresholds read off the held-out writers' grid are optimistic,
and serving it would need the tuned layers at inference (docs/decisions.md, "A reader of the
memory and the message together").
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parent))

from extraction_data import Labelled, load_personas  # noqa: E402
from train_type_reader import balanced  # noqa: E402

from selfimprint.adapters.e5_encoder import (  # noqa: E402
    MATRICES,
    VECTORS,
    E5Weights,
    encoder_layer,
    run_layers,
    shipped_weights,
)
from selfimprint.adapters.type_reader import POOL_SCALE  # noqa: E402
from selfimprint.domain.language import detect_language  # noqa: E402
from selfimprint.domain.structured.cues import cues  # noqa: E402
from selfimprint.domain.structured.slots import contradicted  # noqa: E402

MAX_TOKENS = 192  # a memory (cut to 64) and a message; the corpus's longest message is ~110
MEMORY_TOKENS = 64


@dataclass(frozen=True)
class Pair:
    row: Labelled
    memory_id: str
    memory: str
    contradicted: bool
    distractor: bool


def pair_ids(weights: E5Weights, memory: str, message: str) -> list[int]:
    first = weights.tokenizer.content_ids("query: " + memory)[:MEMORY_TOKENS]
    room = MAX_TOKENS - 3 - len(first)
    second = weights.tokenizer.content_ids("passage: " + message)[:room]
    bos, eos = weights.tokenizer.bos, weights.tokenizer.eos
    return [bos, *first, eos, *second, eos]


def pairs_of(rows: list[Labelled], distractors: int, seed: int) -> list[Pair]:
    """Each message's labelled older memories, and up to `distractors` of its writer's earlier
    memories (none labelled contradicted by it)."""
    rng = random.Random(seed)
    earlier: dict[str, list[tuple[str, str]]] = defaultdict(list)
    out: list[Pair] = []
    for row in rows:  # in file order: each writer's messages in the order they were sent
        seen = earlier[row.persona]
        own = {m.content for m in row.recent}
        if row.recent:
            out += [Pair(row, m.id, m.content, m.id in row.contradicts, False) for m in row.recent]
            others = [m for m in seen if m[1] not in own]
            drawn = rng.sample(others, min(distractors, len(others)))
            out += [Pair(row, memory_id, content, False, True) for memory_id, content in drawn]
        seen += [(m.id, m.content) for m in row.recent]
    return out


def frozen_states(
    weights: E5Weights, pairs: list[Pair], first: int
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    states = [
        run_layers(
            weights,
            weights.embed_tokens(pair_ids(weights, p.memory, p.row.text)),
            weights.layers[:first],
        )
        for p in pairs
    ]
    longest = max(len(s) for s in states)
    x = np.zeros((len(states), longest, weights.hidden), dtype=np.float32)
    mask = np.zeros((len(states), longest), dtype=np.float32)
    for i, s in enumerate(states):
        x[i, : len(s)] = s
        mask[i, : len(s)] = 1.0
    return x, mask


def score(
    pairs: list[Pair], hits: Callable[[str], set[str]], name: str, rows: dict[str, Labelled]
) -> None:
    line = []
    for language in ("en", "ru"):
        tp = fp = fn = distractors = 0
        for row_id, row in rows.items():
            if row.lang != language:
                continue
            read = hits(row_id)
            pool = {p.memory_id for p in pairs if p.row.id == row_id and p.distractor}
            distractors += len(read & pool)
            tp += len(read & row.contradicts)
            fp += len(read - row.contradicts - pool)
            fn += len(row.contradicts - read)
        recall, precision = tp / max(tp + fn, 1), tp / max(tp + fp, 1)
        line.append(f"{language} {recall:.3f} at {precision:.3f} ({distractors} distractors)")
    print(f"{name:36s} " + " | ".join(line), flush=True)  # noqa: T201 - a script's report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hold", required=True, help="train personas to hold out and score")
    parser.add_argument("--tuned", type=int, default=4)
    parser.add_argument("--rank", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--distractors", type=int, default=1, help="per training message")
    parser.add_argument("--held-distractors", type=int, default=8, help="per held-out message")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    import jax
    import jax.numpy as jnp

    hold = frozenset(p for p in args.hold.split(",") if p)
    train_rows = [r for r in load_personas() if r.split == "train"]
    if hold - {r.persona for r in train_rows}:
        parser.error(f"not train personas: {sorted(hold - {r.persona for r in train_rows})}")
    train = pairs_of([r for r in train_rows if r.persona not in hold], args.distractors, 7)
    held = pairs_of([r for r in train_rows if r.persona in hold], args.held_distractors, 7)
    weights = shipped_weights()
    first = len(weights.layers) - args.tuned
    started = time.perf_counter()
    x, mask = frozen_states(weights, train, first)
    held_x, held_mask = frozen_states(weights, held, first)
    y = np.asarray([int(p.contradicted) for p in train], dtype=np.int32)
    print(  # noqa: T201 - a script's report
        f"{len(train)} training pairs ({int(y.sum())} contradicted), {len(held)} held-out pairs "
        f"({sum(p.contradicted for p in held)} contradicted, "
        f"{sum(p.distractor for p in held)} distractors); frozen layers in "
        f"{time.perf_counter() - started:.0f} s",
        flush=True,
    )
    init = np.random.default_rng(args.seed + 1)
    base = [
        {k: jnp.asarray(weights.layers[first + i][k]) for k in MATRICES} for i in range(args.tuned)
    ]
    params: dict[str, Any] = {"layers": [], "w": jnp.zeros((2, weights.hidden)), "b": jnp.zeros(2)}
    for i in range(args.tuned):
        layer = {k: jnp.asarray(weights.layers[first + i][k]) for k in VECTORS}
        for name in MATRICES:
            rows_out, columns = weights.layers[first + i][name].shape
            a = init.normal(0.0, 1.0 / np.sqrt(columns), (args.rank, columns))
            layer[f"{name}.A"] = jnp.asarray(a.astype(np.float32))
            layer[f"{name}.B"] = jnp.zeros((rows_out, args.rank))
        params["layers"].append(layer)

    def gelu(v: Any) -> Any:
        return jax.nn.gelu(v, approximate=False)

    def pooled(p: dict[str, Any], xb: Any, mb: Any) -> Any:
        for layer, fixed in zip(p["layers"], base, strict=True):
            full = {k: v for k, v in layer.items() if not k.endswith((".A", ".B"))}
            for name in MATRICES:
                full[name] = fixed[name] + layer[f"{name}.B"] @ layer[f"{name}.A"]
            xb = encoder_layer(jnp, xb, mb, full, heads=weights.heads, eps=weights.eps, gelu=gelu)
        v = (xb * mb[..., None]).sum(1) / mb.sum(1, keepdims=True)
        return v / jnp.linalg.norm(v, axis=-1, keepdims=True) * POOL_SCALE

    class_weight = jnp.asarray(balanced(y, 2))

    def loss(p: dict[str, Any], xb: Any, mb: Any, yb: Any) -> Any:
        log_p = jax.nn.log_softmax(pooled(p, xb, mb) @ p["w"].T + p["b"])
        return -(jnp.take_along_axis(log_p, yb[:, None], 1)[:, 0] * class_weight[yb]).mean()

    def rate(path: Any) -> float:
        key = str(getattr(path[-1], "key", ""))
        return 1e-2 if key in ("w", "b") else 1e-3 if key.endswith((".A", ".B")) else 3e-5

    rates = jax.tree_util.tree_map_with_path(lambda path, _: rate(path), params)
    step_fn = jax.jit(jax.value_and_grad(loss))
    odds_fn = jax.jit(lambda p, xb, mb: jax.nn.softmax(pooled(p, xb, mb) @ p["w"].T + p["b"]))
    first_moment = jax.tree_util.tree_map(jnp.zeros_like, params)
    second_moment = jax.tree_util.tree_map(jnp.zeros_like, params)

    def batch_of(xa: NDArray[np.float32], ma: NDArray[np.float32], idx: Any) -> tuple[Any, Any]:
        width = min(xa.shape[1], -(-int(ma[idx].sum(1).max()) // 8) * 8)
        return xa[idx, :width], ma[idx, :width]

    order_rng = np.random.default_rng(args.seed)
    per_epoch = len(y) // args.batch
    total, step = args.epochs * per_epoch, 0
    for epoch in range(args.epochs):
        order = order_rng.permutation(len(y))
        running = 0.0
        for b in range(per_epoch):
            idx = np.sort(order[b * args.batch : (b + 1) * args.batch])
            step += 1
            value, grads = step_fn(params, *batch_of(x, mask, idx), jnp.asarray(y[idx]))
            running += float(value)
            schedule = min(1.0, step / (0.1 * total)) * (total - step + 1) / total
            first_moment = jax.tree_util.tree_map(
                lambda a, g: 0.9 * a + 0.1 * g, first_moment, grads
            )
            second_moment = jax.tree_util.tree_map(
                lambda a, g: 0.999 * a + 0.001 * g * g, second_moment, grads
            )
            fix1, fix2 = 1 - 0.9**step, 1 - 0.999**step

            def moved(w: Any, a: Any, s: Any, r: float, k: Any = (schedule, fix1, fix2)) -> Any:
                return w - r * k[0] * (a / k[1]) / (jnp.sqrt(s / k[2]) + 1e-8)

            params = jax.tree_util.tree_map(moved, params, first_moment, second_moment, rates)
        print(f"epoch {epoch + 1}: loss {running / per_epoch:.3f}", flush=True)  # noqa: T201

    odds = np.concatenate(
        [
            np.asarray(
                odds_fn(params, *batch_of(held_x, held_mask, np.arange(i, min(i + 64, len(held)))))
            )[:, 1]
            for i in range(0, len(held), 64)
        ]
    )
    read: dict[str, dict[str, float]] = defaultdict(dict)
    for pair, probability in zip(held, odds[: len(held)], strict=True):
        read[pair.row.id][pair.memory_id] = float(probability)
    rows = {p.row.id: p.row for p in held}
    older = defaultdict(list)
    for p in held:
        older[p.row.id].append((p.memory_id, p.memory))
    ruled = {
        row_id: set(contradicted(row.text, older[row_id], cues(detect_language(row.text))))
        for row_id, row in rows.items()
    }

    def rules_alone(r: str) -> set[str]:
        return ruled[r]

    def reader(t: float) -> Callable[[str], set[str]]:
        return lambda r: {m for m, q in read[r].items() if q >= t}

    def both(t: float, low: float = 0.0) -> Callable[[str], set[str]]:
        return lambda r: {m for m in ruled[r] if read[r][m] >= low} | reader(t)(r)

    score(held, rules_alone, "rules alone", rows)
    for t in (0.5, 0.7, 0.8, 0.9, 0.95):
        score(held, reader(t), f"reader >= {t}", rows)
    for t in (0.8, 0.9, 0.95):
        score(held, both(t), f"rules + reader >= {t}", rows)
    for low in (0.1, 0.3):
        for t in (0.9, 0.95):
            score(held, both(t, low), f"rules (reader >= {low}) + reader >= {t}", rows)
    print(f"{time.perf_counter() - started:.0f} s in all", flush=True)  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
