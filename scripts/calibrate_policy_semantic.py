"""Calibrate the inference policy's semantic second opinion (issue 33) for the default embedder.

Usage: python scripts/calibrate_policy_semantic.py [--write-references]

1. The references are the labelled dev split of tests/data/inference_policy_{en,ru}.jsonl;
   `--write-references` copies it into the package (selfimprint/domain/data/).
2. Thresholds, on dev only, leaving each statement out of its own references: the never-infer
   threshold is the smallest margin (0.005 steps) that escalates no dev statement of a less
   strict class to never-infer; the high-bar one, none of the allowed ones to the high bar.
3. Scored once on holdout and challenge (references: all of dev): how many statements the
   lexicon alone misclassifies the second opinion corrects, and how many it breaks.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path

from selfimprint.adapters.embedders import build_embedder
from selfimprint.config import Settings
from selfimprint.domain.inference_lexicon import Category
from selfimprint.domain.inference_policy import (
    InferencePolicyConfig,
    PolicyClass,
    category_class,
    classify,
)
from selfimprint.domain.policy_references import PolicyReference, semantic_scores

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
PACKAGED = ROOT / "selfimprint" / "domain" / "data" / "inference_references.jsonl"
STEP = 0.005


def _rows() -> list[dict[str, str]]:
    return [
        json.loads(line)
        for language in ("en", "ru")
        for line in (DATA / f"inference_policy_{language}.jsonl").read_text("utf-8").splitlines()
        if line.strip()
    ]


def _reference(row: dict[str, str]) -> PolicyReference:
    category = Category(row["category"]) if row["category"] else None
    return PolicyReference(row["text"], PolicyClass(row["expected"]), category)


def _strongest(scores: dict[Category, float], cls: PolicyClass) -> float:
    config = InferencePolicyConfig()
    found = [s for c, s in scores.items() if category_class(c, config) is cls]
    return max(found, default=-math.inf)


def _threshold(values: Sequence[float]) -> float:
    """The smallest STEP multiple above every value (no false escalation on dev)."""
    top = max(values, default=0.0)
    return round(math.floor(top / STEP + 1) * STEP, 3)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-references", action="store_true")
    args = parser.parse_args(argv)
    rows = _rows()
    dev = [r for r in rows if r["split"] == "dev"]
    if args.write_references:
        lines = [
            json.dumps({k: r[k] for k in ("text", "expected", "category")}, ensure_ascii=False)
            for r in dev
        ]
        PACKAGED.write_text("\n".join(lines) + "\n", encoding="utf-8")
    embedder = build_embedder(Settings())
    vectors = embedder.embed_passages([r["text"] for r in rows])
    by_text = {r["text"]: v for r, v in zip(rows, vectors, strict=True)}
    refs = [(_reference(r), by_text[r["text"]]) for r in dev]

    never_false, high_false = [], []
    for i, row in enumerate(dev):
        scores = semantic_scores(by_text[row["text"]], refs[:i] + refs[i + 1 :])
        expected = PolicyClass(row["expected"])
        if expected is not PolicyClass.NEVER_INFER:
            never_false.append(_strongest(scores, PolicyClass.NEVER_INFER))
        if expected is PolicyClass.ALLOWED:
            high_false.append(_strongest(scores, PolicyClass.HIGH_BAR))
    never_t, high_t = _threshold(never_false), _threshold(high_false)
    config = InferencePolicyConfig(
        semantic_never_infer_threshold=never_t, semantic_high_bar_threshold=high_t
    )
    out = [
        f"embedder {embedder.model_id}; {len(dev)} dev references",
        f"calibrated on dev (leave one out): never-infer margin {never_t}, high-bar {high_t}",
        "",
        "| split | statements | lexicon right | with second opinion right | corrected | broken |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    notes = []
    for split in ("holdout", "challenge"):
        chosen = [r for r in rows if r["split"] == split]
        lexical_right = with_right = corrected = broken = 0
        for row in chosen:
            expected = PolicyClass(row["expected"])
            lexical = classify(row["text"], config=config)
            scores = semantic_scores(by_text[row["text"]], refs)
            both = classify(row["text"], config=config, second_opinion=scores)
            lexical_right += lexical.policy_class is expected
            with_right += both.policy_class is expected
            if lexical.policy_class is not expected and both.policy_class is expected:
                corrected += 1
            if lexical.policy_class is expected and both.policy_class is not expected:
                broken += 1
                notes.append(f"- broken ({split}): {row['text']!r} -> {both.reason}")
        out.append(
            f"| {split} | {len(chosen)} | {lexical_right} | {with_right} | {corrected} | {broken} |"
        )
    sys.stdout.write("\n".join([*out, "", *notes]) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
