"""Train the relation reader (issue 34) and write selfimprint/adapters/data/relation_reader.npz.

    pip install -e '.[train]'   # jax on CPU; training only, never needed to serve
    .venv/bin/python scripts/train_relation_reader.py [--epochs 3] [--hold p137-aroha,...]

Who a named person is to the user, read from the message: multilingual-e5-small's top
`--tuned` layers get low-rank adapters (`--rank`), as the type reader's do (the layers below
are the embedder's own, so a server computes them once for both readers); a softmax reads the
mean of the name's token states beside the mean of the whole message's, each unit length,
over the guide's relations and "none" (a person the message names without saying who they
are to the user). Plain cross-entropy: "none" is the commonest answer and the right one to
fall back on.

Data: every labelled person of the train personas and the supplement writers whose name the
message spells (the same matching as `scripts/train_name_head.py`: the word, or a Russian
name's stem with an ending of up to three letters). Dev and test personas are never read.
`--hold` leaves train personas out and reports, after each epoch, the reader's own relation
accuracy on their labelled relations and how often it gives one to a person labelled with
none; `--probabilities PATH` writes its readings of the held-out people (JSON) to score beside
the rules.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parent))

from adapter_training import adapter_layers, fit, frozen_states, padded_width  # noqa: E402
from extraction_data import Labelled, load, load_personas  # noqa: E402
from train_extraction_head import SUPPLEMENT  # noqa: E402
from train_name_head import _is_part  # noqa: E402

from selfimprint.adapters.e5_encoder import (  # noqa: E402
    MATRICES,
    E5Weights,
    encoder_layer,
    shipped_weights,
)
from selfimprint.adapters.name_head import chunked_tokens  # noqa: E402
from selfimprint.adapters.relation_reader import RELATION_FILE, RELATION_LABELS  # noqa: E402
from selfimprint.adapters.tuned_layers import (  # noqa: E402
    POOL_SCALE,
    ReaderMeta,
    save_reader,
    shipped_data,
)
from selfimprint.domain.structured.relations import NO_RELATION  # noqa: E402

MAX_TOKENS = 160


@dataclass(frozen=True)
class Example:
    text: int  # index of the message's frozen states
    start: int  # the name's token range
    end: int
    label: int
    row: Labelled
    name: str


def examples(weights: E5Weights, rows: list[Labelled]) -> tuple[list[Example], list[list[int]]]:
    """One example per labelled person whose name the message spells (its first chunk), and
    each message's token ids."""
    out: list[Example] = []
    ids: list[list[int]] = []
    for row in rows:
        if not row.people:
            continue
        chunked = chunked_tokens(weights, row.text)
        index = len(ids)
        added = False
        for person in row.people:
            parts = [part.casefold() for part in person.name.split()]
            spans = [
                (start, end)
                for words, _, start, end in chunked.chunks
                if end <= MAX_TOKENS and any(_is_part(w, p) for w in words for p in parts)
            ]
            if not spans:
                continue
            label = RELATION_LABELS.index(person.relation or NO_RELATION)
            out.append(Example(index, spans[0][0], spans[0][1], label, row, person.name))
            added = True
        if added:
            ids.append(chunked.ids[:MAX_TOKENS])
    return out, ids


def training_rows(hold: frozenset[str]) -> list[Labelled]:
    rows = [r for r in load_personas() if r.split == "train" and r.persona not in hold]
    for path in sorted(SUPPLEMENT.glob("*.jsonl")):
        rows += load(path, split="train")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tuned", type=int, default=4, help="top layers given adapters")
    parser.add_argument("--rank", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--adapter-rate", type=float, default=1e-3)
    parser.add_argument("--norm-rate", type=float, default=3e-5, help="norms and biases")
    parser.add_argument("--head-rate", type=float, default=1e-2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hold", default="", help="train personas to hold out and score")
    parser.add_argument("--probabilities", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    import jax
    import jax.numpy as jnp

    hold = frozenset(p for p in args.hold.split(",") if p)
    train_personas = {r.persona for r in load_personas() if r.split == "train"}
    if hold - train_personas:
        parser.error(f"not train personas: {sorted(hold - train_personas)}")
    weights = shipped_weights()
    first = len(weights.layers) - args.tuned
    started = time.perf_counter()
    train, train_ids = examples(weights, training_rows(hold))
    x, mask = frozen_states(weights, train_ids, first)
    held_rows = [r for r in load_personas() if r.persona in hold]
    held, held_ids = examples(weights, held_rows)
    if held:
        held_x, held_mask = frozen_states(weights, held_ids, first)
    print(  # noqa: T201 - a script's report
        f"{len(train)} people in {len(train_ids)} training messages, {len(held)} held out; "
        f"frozen layers 0-{first - 1} in {time.perf_counter() - started:.0f} s",
        flush=True,
    )
    classes = len(RELATION_LABELS)
    params: dict[str, Any] = {
        "layers": adapter_layers(jnp, weights, first, args.tuned, args.rank, args.seed + 1),
        "relation.w": jnp.zeros((classes, 2 * weights.hidden)),
        "relation.b": jnp.zeros(classes),
    }
    fixed = [
        {k: jnp.asarray(weights.layers[first + i][k]) for k in MATRICES} for i in range(args.tuned)
    ]

    def gelu(v: Any) -> Any:
        return jax.nn.gelu(v, approximate=False)

    def unit(v: Any) -> Any:
        return v / jnp.linalg.norm(v, axis=-1, keepdims=True) * POOL_SCALE

    def logits(p: dict[str, Any], xb: Any, mb: Any, sb: Any) -> Any:
        for layer, base in zip(p["layers"], fixed, strict=True):
            full = {k: v for k, v in layer.items() if not k.endswith((".A", ".B"))}
            for name in MATRICES:
                full[name] = base[name] + layer[f"{name}.B"] @ layer[f"{name}.A"]
            xb = encoder_layer(jnp, xb, mb, full, heads=weights.heads, eps=weights.eps, gelu=gelu)
        whole = unit((xb * mb[..., None]).sum(1) / mb.sum(1, keepdims=True))
        named = unit((xb * sb[..., None]).sum(1) / sb.sum(1, keepdims=True))
        return jnp.concatenate([named, whole], axis=-1) @ p["relation.w"].T + p["relation.b"]

    def loss(p: dict[str, Any], xb: Any, mb: Any, sb: Any, yb: Any) -> Any:
        lp = jax.nn.log_softmax(logits(p, xb, mb, sb))
        return -jnp.take_along_axis(lp, yb[:, None], 1)[:, 0].mean()

    def rate(key: str) -> float:
        if key.startswith("relation."):
            return float(args.head_rate)
        return float(args.adapter_rate if key.endswith((".A", ".B")) else args.norm_rate)

    logits_fn = jax.jit(logits)
    order_rng = np.random.default_rng(args.seed)
    per_epoch = len(train) // args.batch
    labels = np.asarray([e.label for e in train], dtype=np.int32)

    def batch_of(
        xa: NDArray[np.float32], ma: NDArray[np.float32], chosen: list[Example]
    ) -> tuple[Any, Any, Any]:
        rows = np.asarray([e.text for e in chosen])
        width = padded_width(ma[rows])
        span = np.zeros((len(chosen), width), dtype=np.float32)
        for i, e in enumerate(chosen):
            span[i, e.start : e.end] = 1.0
        return xa[rows, :width], ma[rows, :width], span

    def batches(epoch: int) -> Iterator[tuple[Any, ...]]:
        order = order_rng.permutation(len(train))
        for b in range(per_epoch):
            idx = np.sort(order[b * args.batch : (b + 1) * args.batch])
            yield (*batch_of(x, mask, [train[i] for i in idx]), labels[idx])

    def held_probabilities(p: dict[str, Any]) -> NDArray[np.float64]:
        out = []
        for i in range(0, len(held), 32):
            chunk = held[i : i + 32]
            z = np.asarray(logits_fn(p, *batch_of(held_x, held_mask, chunk)), dtype=np.float64)
            z = np.exp(z - z.max(1, keepdims=True))
            out.append(z / z.sum(1, keepdims=True))
        return np.concatenate(out)

    def report(epoch: int, mean: float, p: dict[str, Any]) -> None:
        line = f"epoch {epoch + 1}: loss {mean:.3f}"
        if held:
            read = held_probabilities(p).argmax(1)
            want = np.asarray([e.label for e in held])
            none = RELATION_LABELS.index(NO_RELATION)
            said = want != none
            line += (
                f", held-out relation accuracy {float((read[said] == want[said]).mean()):.3f}"
                f" of {int(said.sum())}, given to none {float((read[~said] != none).mean()):.3f}"
            )
        print(line, flush=True)  # noqa: T201 - a script's report

    params = fit(jax, params, loss, rate, batches, args.epochs, per_epoch, report)

    if held and args.probabilities is not None:
        odds = held_probabilities(params)
        args.probabilities.write_text(
            json.dumps(
                [
                    {"id": e.row.id, "name": e.name, "label": RELATION_LABELS[e.label],
                     "odds": dict(zip(RELATION_LABELS, map(float, o), strict=True))}
                    for e, o in zip(held, odds, strict=True)
                ]
            )
        )  # fmt: skip
    if held and args.out is None:
        return 0
    meta = ReaderMeta(
        base_sha256=weights.digest,
        first_tuned=first,
        types=RELATION_LABELS,
        valence=(),
        training={
            "script": "scripts/train_relation_reader.py",
            "people": len(train),
            "messages": len(train_ids),
            "rank": args.rank,
            "epochs": args.epochs,
            "batch": args.batch,
            "adapter_rate": args.adapter_rate,
            "norm_rate": args.norm_rate,
            "head_rate": args.head_rate,
            "seed": args.seed,
            "held_out": sorted(hold),
        },
    )
    tuned = [{k: np.asarray(v) for k, v in layer.items()} for layer in params["layers"]]
    heads = {k: np.asarray(params[k]) for k in ("relation.w", "relation.b")}
    out = args.out or shipped_data(RELATION_FILE)
    save_reader(out, meta, tuned, heads)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
