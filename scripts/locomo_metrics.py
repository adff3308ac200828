"""Evidence recall for the LoCoMo benchmark: how much of a question's evidence the top-k covers.

A ranked item (a memory, or a raw turn for the flat baseline) covers the message ids it came from
(a memory's `sources`; a turn covers itself). recall@k = |evidence covered by the first k items| /
|evidence|, averaged over questions (macro), per category and overall.
"""

from __future__ import annotations

import statistics
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field

from locomo_data import CATEGORY_NAMES

KS = (5, 10, 20)


def recall_at(ranked: Sequence[Collection[str]], evidence: Collection[str], k: int) -> float:
    if not evidence:
        raise ValueError("a question without evidence cannot be scored")
    covered: set[str] = set()
    for sources in ranked[:k]:
        covered.update(sources)
    return len(covered & set(evidence)) / len(set(evidence))


@dataclass
class QuestionScore:
    category: int
    recall: dict[int, float]  # k -> recall@k
    tokens: dict[int, int]  # k -> context tokens of the first k items
    returned: int  # items the system returned for the question
    # The memory pipeline only: the context the product gives at its default token budget.
    default_context: tuple[float, int, int] | None = None  # recall, tokens, memories in it


@dataclass
class SystemScores:
    """One system's per-question scores (memory pipeline or flat baseline)."""

    questions: list[QuestionScore] = field(default_factory=list)

    def add(self, score: QuestionScore) -> None:
        self.questions.append(score)

    def _of(self, category: int | None) -> list[QuestionScore]:
        return [q for q in self.questions if category is None or q.category == category]

    def summary(self, ks: Iterable[int]) -> dict[str, dict[str, float | int]]:
        """{"overall" | category name: {"n", "recall@k", "tokens@k" (mean)}}"""
        ks = list(ks)
        out: dict[str, dict[str, float | int]] = {}
        groups: list[tuple[str, int | None]] = [(CATEGORY_NAMES[c], c) for c in CATEGORY_NAMES]
        for name, category in [*groups, ("overall", None)]:
            chosen = self._of(category)
            row: dict[str, float | int] = {"n": len(chosen)}
            for k in ks:
                row[f"recall@{k}"] = (
                    round(statistics.fmean(q.recall[k] for q in chosen), 4) if chosen else 0.0
                )
                row[f"tokens@{k}"] = (
                    round(statistics.fmean(q.tokens[k] for q in chosen), 1) if chosen else 0.0
                )
            defaults = [q.default_context for q in chosen if q.default_context is not None]
            if defaults:
                row["recall@default_context"] = round(statistics.fmean(d[0] for d in defaults), 4)
                row["tokens@default_context"] = round(statistics.fmean(d[1] for d in defaults), 1)
                row["memories@default_context"] = round(statistics.fmean(d[2] for d in defaults), 2)
            out[name] = row
        return out

    def returned_stats(self) -> dict[str, float | int]:
        counts = [q.returned for q in self.questions]
        if not counts:
            return {"min": 0, "mean": 0.0, "max": 0}
        return {"min": min(counts), "mean": round(statistics.fmean(counts), 2), "max": max(counts)}


def ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if b else None
