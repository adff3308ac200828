"""Precision and recall of the inference policy on the labelled sets in tests/data.

Usage: python scripts/eval_inference_policy.py [--split dev|holdout|challenge|all]

Prints one Markdown table per language and split, plus the rows the classifier got wrong, so the
figures in a review can be checked against the examples behind them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from selfimprint.domain.inference_policy import Category, PolicyClass, PolicyDecision, classify

DATA_DIR = Path(__file__).resolve().parent.parent / "tests" / "data"
LANGUAGES = ("en", "ru")
SPLITS = ("dev", "holdout", "challenge")


@dataclass(frozen=True)
class Example:
    text: str
    expected: PolicyClass
    category: Category | None
    split: str


@dataclass(frozen=True)
class ClassScore:
    policy_class: PolicyClass
    support: int
    predicted: int
    correct: int

    @property
    def precision(self) -> float | None:
        return self.correct / self.predicted if self.predicted else None

    @property
    def recall(self) -> float | None:
        return self.correct / self.support if self.support else None


@dataclass(frozen=True)
class Evaluation:
    scores: tuple[ClassScore, ...]
    category_agreement: tuple[int, int]
    errors: tuple[tuple[Example, PolicyDecision], ...]

    def score(self, policy_class: PolicyClass) -> ClassScore:
        return next(s for s in self.scores if s.policy_class is policy_class)


def load_examples(language: str) -> list[Example]:
    path = DATA_DIR / f"inference_policy_{language}.jsonl"
    examples = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        examples.append(
            Example(
                text=row["text"],
                expected=PolicyClass(row["expected"]),
                category=Category(row["category"]) if row["category"] else None,
                split=row.get("split", "dev"),
            )
        )
    return examples


def evaluate(examples: Iterable[Example]) -> Evaluation:
    decided = [(example, classify(example.text)) for example in examples]
    scores = []
    for policy_class in PolicyClass:
        scores.append(
            ClassScore(
                policy_class=policy_class,
                support=sum(1 for e, _ in decided if e.expected is policy_class),
                predicted=sum(1 for _, d in decided if d.policy_class is policy_class),
                correct=sum(
                    1
                    for e, d in decided
                    if e.expected is policy_class and d.policy_class is policy_class
                ),
            )
        )
    # Category agreement among rows whose class was right and that name a category.
    named = [(e, d) for e, d in decided if e.category is not None and e.expected is d.policy_class]
    agreement = (sum(1 for e, d in named if e.category is d.category), len(named))
    errors = tuple((e, d) for e, d in decided if e.expected is not d.policy_class)
    return Evaluation(scores=tuple(scores), category_agreement=agreement, errors=errors)


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def render(title: str, evaluation: Evaluation) -> str:
    lines = [
        f"### {title}",
        "",
        "| class | support | predicted | correct | precision | recall |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for s in evaluation.scores:
        lines.append(
            f"| {s.policy_class.value} | {s.support} | {s.predicted} | {s.correct} "
            f"| {_percent(s.precision)} | {_percent(s.recall)} |"
        )
    agreed, total = evaluation.category_agreement
    lines += ["", f"Category agreement where the class is right: {agreed}/{total}", ""]
    for example, decision in evaluation.errors:
        lines.append(
            f"- expected {example.expected.value}, got {decision.policy_class.value}: "
            f"{example.text!r} ({decision.reason})"
        )
    return "\n".join(lines).rstrip() + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=(*SPLITS, "all"), default=None)
    args = parser.parse_args(argv)
    splits = SPLITS if args.split is None else (args.split,)
    for language in LANGUAGES:
        examples = load_examples(language)
        for split in splits:
            chosen = [e for e in examples if split == "all" or e.split == split]
            sys.stdout.write(
                render(f"{language} — {split} ({len(chosen)} examples)", evaluate(chosen))
            )
            sys.stdout.write("\n")
        if args.split is None:
            sys.stdout.write(
                render(f"{language} — all ({len(examples)} examples)", evaluate(examples))
            )
            sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
