"""Train the fine-tuned type reader (issue 34) and write selfimprint/adapters/data/type_reader.npz.

    pip install -e '.[train]'   # jax on CPU; training only, never needed to serve
    .venv/bin/python scripts/train_type_reader.py [--epochs 3] [--hold p25-lindiwe,...]

multilingual-e5-small's top `--tuned` layers get low-rank adapters (`--rank`) and trainable norms
and biases; two softmax heads read the mean-pooled, unit-length vector (type with "none", and
valence). The loss is class-balanced cross-entropy on the type plus `--valence-weight` times
the valence's. Adam, a 10 % warm-up then a linear decay, fixed seeds: on one machine the same
data gives the same readings (weights within ~1e-4 from run to run: XLA's float32 sums are not
always taken in one order; BENCHMARKS.md, "The fine-tuned type reader").

Data: the train split of messages.jsonl, every train persona and the supplement/ writers. The
eval split and the dev and test personas are never read. `--hold` leaves train personas out
and reports their type accuracy after each epoch without writing anything: the way the number
of epochs was chosen (docs/decisions.md, "A reader that reads the words").

The layers below the tuned ones are frozen, so their output is computed once, in numpy, with
the arithmetic the server runs (`selfimprint.adapters.e5_encoder`); the tuned layers run the
same `encoder_layer` in jax.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parent))

from adapter_training import (  # noqa: E402
    adapter_layers,
    balanced,
    fit,
    frozen_states,
    padded_width,
    pooled_fn,
)
from extraction_data import PERSONAS, Labelled, load, load_personas  # noqa: E402
from train_extraction_head import SUPPLEMENT, TYPES, VALENCES  # noqa: E402

from selfimprint.adapters.e5_encoder import E5Weights, shipped_weights  # noqa: E402
from selfimprint.adapters.tuned_layers import ReaderMeta, save_reader  # noqa: E402
from selfimprint.adapters.type_reader import shipped_reader_path  # noqa: E402

# Tokens a training text is cut to (the corpus's longest message is ~110; serving reads 512).
MAX_TOKENS = 160


def training_rows(hold: frozenset[str], splits: frozenset[str]) -> list[Labelled]:
    rows = [r for r in load() if r.split == "train"]
    rows += [r for r in load_personas() if r.split in splits and r.persona not in hold]
    for path in sorted(SUPPLEMENT.glob("*.jsonl")):
        rows += load(path, split="train")
    return rows


def frozen_rows(
    weights: E5Weights, rows: list[Labelled], first: int
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """The rows' texts' states below the tuned layers, each cut to `MAX_TOKENS`, padded."""
    return frozen_states(weights, [weights.token_ids(r.text)[:MAX_TOKENS] for r in rows], first)


def labels(rows: list[Labelled]) -> tuple[NDArray[np.int32], NDArray[np.int32]]:
    types = np.asarray([TYPES.index(r.type) for r in rows], dtype=np.int32)
    valence = np.asarray([VALENCES.index(r.valence or "none") for r in rows], dtype=np.int32)
    return types, valence


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tuned", type=int, default=4, help="top layers given adapters")
    parser.add_argument("--rank", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--adapter-rate", type=float, default=1e-3)
    parser.add_argument("--norm-rate", type=float, default=3e-5, help="norms and biases")
    parser.add_argument("--head-rate", type=float, default=1e-2)
    parser.add_argument("--valence-weight", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hold", default="", help="train personas to hold out and score")
    parser.add_argument(
        "--with-dev", action="store_true", help="train on the dev personas too (never the test)"
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="write here (with --hold: write at all)"
    )
    args = parser.parse_args(argv)
    import jax
    import jax.numpy as jnp

    hold = frozenset(p for p in args.hold.split(",") if p)
    known = {p.stem for p in PERSONAS.glob("*.jsonl")}
    if hold - known:
        parser.error(f"unknown personas: {sorted(hold - known)}")
    weights = shipped_weights()
    first = len(weights.layers) - args.tuned
    started = time.perf_counter()
    rows = training_rows(hold, frozenset({"train", "dev"} if args.with_dev else {"train"}))
    x, mask = frozen_rows(weights, rows, first)
    types, valence = labels(rows)
    held_rows = [r for r in load_personas() if r.persona in hold]
    if held_rows:
        held_x, held_mask = frozen_rows(weights, held_rows, first)
        held_types, _ = labels(held_rows)
    print(  # noqa: T201 - a script's report
        f"{len(rows)} training texts, {len(held_rows)} held out; "
        f"frozen layers 0-{first - 1} in {time.perf_counter() - started:.0f} s",
        flush=True,
    )

    params: dict[str, Any] = {
        "layers": adapter_layers(jnp, weights, first, args.tuned, args.rank, args.seed + 1),
        "types.w": jnp.zeros((len(TYPES), weights.hidden)),
        "types.b": jnp.zeros(len(TYPES)),
        "valence.b": jnp.zeros(len(VALENCES)),
        "valence.w": jnp.zeros((len(VALENCES), weights.hidden)),
    }
    pooled = pooled_fn(jax, weights, first, args.tuned)
    type_weight = jnp.asarray(balanced(types, len(TYPES)))
    valence_class_weight = jnp.asarray(balanced(valence, len(VALENCES)))

    def loss(p: dict[str, Any], xb: Any, mb: Any, yt: Any, yv: Any) -> Any:
        v = pooled(p["layers"], xb, mb)
        lt = jax.nn.log_softmax(v @ p["types.w"].T + p["types.b"])
        lv = jax.nn.log_softmax(v @ p["valence.w"].T + p["valence.b"])
        t_loss = -(jnp.take_along_axis(lt, yt[:, None], 1)[:, 0] * type_weight[yt]).mean()
        v_loss = -(jnp.take_along_axis(lv, yv[:, None], 1)[:, 0] * valence_class_weight[yv]).mean()
        return t_loss + args.valence_weight * v_loss

    def rate(key: str) -> float:
        if key.startswith(("types.", "valence.")):
            return float(args.head_rate)
        return float(args.adapter_rate if key.endswith((".A", ".B")) else args.norm_rate)

    logits_fn = jax.jit(
        lambda p, xb, mb: pooled(p["layers"], xb, mb) @ p["types.w"].T + p["types.b"]
    )
    order_rng = np.random.default_rng(args.seed)
    per_epoch = len(rows) // args.batch

    def batch_of(xa: NDArray[np.float32], ma: NDArray[np.float32], idx: Any) -> tuple[Any, Any]:
        width = padded_width(ma[idx])
        return xa[idx, :width], ma[idx, :width]

    def batches(epoch: int) -> Iterator[tuple[Any, ...]]:
        order = order_rng.permutation(len(rows))
        for b in range(per_epoch):
            idx = np.sort(order[b * args.batch : (b + 1) * args.batch])
            yield (*batch_of(x, mask, idx), types[idx], valence[idx])

    def report(epoch: int, mean: float, p: dict[str, Any]) -> None:
        line = f"epoch {epoch + 1}: loss {mean:.3f}"
        if held_rows:
            predicted = np.concatenate(
                [
                    np.asarray(
                        logits_fn(
                            p,
                            *batch_of(held_x, held_mask, np.arange(i, min(i + 64, len(held_rows)))),
                        )
                    ).argmax(1)
                    for i in range(0, len(held_rows), 64)
                ]
            )
            line += f", held-out type accuracy {float((predicted == held_types).mean()):.3f}"
        print(line, flush=True)  # noqa: T201 - a script's report

    params = fit(jax, params, loss, rate, batches, args.epochs, per_epoch, report)

    if held_rows and args.out is None:
        return 0
    meta = ReaderMeta(
        base_sha256=weights.digest,
        first_tuned=first,
        types=TYPES,
        valence=VALENCES,
        training={
            "script": "scripts/train_type_reader.py",
            "texts": len(rows),
            "rank": args.rank,
            "epochs": args.epochs,
            "batch": args.batch,
            "adapter_rate": args.adapter_rate,
            "norm_rate": args.norm_rate,
            "head_rate": args.head_rate,
            "valence_weight": args.valence_weight,
            "seed": args.seed,
            "held_out": sorted(hold),
            "personas": "train and dev" if args.with_dev else "train",
        },
    )
    tuned = [{k: np.asarray(v) for k, v in layer.items()} for layer in params["layers"]]
    heads = {k: np.asarray(params[k]) for k in ("types.w", "types.b", "valence.w", "valence.b")}
    out = args.out or shipped_reader_path()
    out.parent.mkdir(parents=True, exist_ok=True)
    save_reader(out, meta, tuned, heads)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
