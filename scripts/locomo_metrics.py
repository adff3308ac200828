"""Evidence recall for the LoCoMo benchmark: how much of a question's evidence a cut of the ranked
list covers.

Two credits for an evidence turn, on a cut of the ranked list (its first k items, or the context the
product builds within its default token budget):

- text-credited (the headline): the items of the cut that cite the turn (its id in their `sources`)
  together show its text: their contents joined contain the turn's message text (whitespace-
  normalised, case-insensitive), or at least 80 % of the turn's distinct word tokens. A memory that
  kept a turn's id but dropped its words does not cover it; a turn stored as several atomic
  memories, each citing it, is covered by their union.
- source-credited: the turn's id is among the cut's `sources`, whatever the contents say.

A raw turn (the flat baseline) cites itself and is its own text: both credits are equal there.
recall = |evidence covered| / |evidence|, averaged over questions (macro), per category and
overall. Memory minus flat differences get a paired bootstrap confidence interval over questions.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from locomo_data import CATEGORY_NAMES

KS = (5, 10, 20)
CONTEXT = "context"  # the cut at the product's default token budget
TOKEN_SHARE_PERCENT = 80  # distinct word tokens of a turn a content must hold to show its text
BOOTSTRAP_RESAMPLES = 10_000
BOOTSTRAP_SEED = 19
BOOTSTRAP_LEVEL = 0.95

_WORD = re.compile(r"\w+")


def cuts(ks: Iterable[int] = KS) -> list[str]:
    """The cut names scores are kept under: "5", "10", "20", "context"."""
    return [*(str(k) for k in ks), CONTEXT]


# --- credit -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """One ranked item: a memory (its sources and content) or a raw turn (itself)."""

    sources: Collection[str]
    content: str


def normalised(text: str) -> str:
    return " ".join(text.lower().split())


def word_tokens(text: str) -> set[str]:
    """Distinct lowercased `\\w+` tokens (Unicode)."""
    return set(_WORD.findall(text.lower()))


def shows_text(content: str, turn_text: str) -> bool:
    """Does `content` hold the turn's text: all of it (normalised), or >= 80 % of its distinct
    word tokens?"""
    if normalised(turn_text) in normalised(content):
        return True
    wanted = word_tokens(turn_text)
    if not wanted:
        return False
    held = len(wanted & word_tokens(content))
    return held * 100 >= TOKEN_SHARE_PERCENT * len(wanted)


def _check(evidence: Collection[str]) -> set[str]:
    if not evidence:
        raise ValueError("a question without evidence cannot be scored")
    return set(evidence)


def recall_at(ranked: Sequence[Collection[str]], evidence: Collection[str], k: int) -> float:
    """Source-credited recall of the first k items: evidence ids among their sources."""
    wanted = _check(evidence)
    covered: set[str] = set()
    for sources in ranked[:k]:
        covered.update(sources)
    return len(covered & wanted) / len(wanted)


def source_credited(cut: Sequence[Item], evidence: Collection[str]) -> float:
    """Source-credited recall of a cut (all its items)."""
    return recall_at([i.sources for i in cut], evidence, len(cut))


def text_covered(
    cut: Sequence[Item], turn_texts: Mapping[str, str], evidence: Collection[str]
) -> set[str]:
    """The evidence turns the cut's citing items show the text of (union over those items)."""
    covered = set()
    for turn_id in _check(evidence):
        citing = [i.content for i in cut if turn_id in i.sources]
        if citing and shows_text("\n".join(citing), turn_texts[turn_id]):
            covered.add(turn_id)
    return covered


def text_credited(
    cut: Sequence[Item], turn_texts: Mapping[str, str], evidence: Collection[str]
) -> float:
    """Text-credited recall of a cut: the share of evidence turns whose citing items show their
    text. `turn_texts`: message id -> the message text as sent."""
    return len(text_covered(cut, turn_texts, evidence)) / len(set(evidence))


def evidence_share(
    cut: Sequence[Item], evidence: Collection[str], tokens: Callable[[str], int]
) -> float:
    """The share of the cut's item tokens that come from items citing an evidence turn (issue
    32, "forgetting earns its keep": a context whose room goes to what the question is about).
    0.0 for an empty cut."""
    wanted = _check(evidence)
    total = sum(tokens(i.content) for i in cut)
    cited = sum(tokens(i.content) for i in cut if wanted & set(i.sources))
    return cited / total if total else 0.0


def fit_count(texts: Sequence[str], budget: int, tokens: Callable[[Sequence[str]], int]) -> int:
    """How many of the first texts fit `budget`: packed in order, stopping before the first one
    that would take `tokens(packed)` over it."""
    n = 0
    while n < len(texts) and tokens(texts[: n + 1]) <= budget:
        n += 1
    return n


# --- merge audit --------------------------------------------------------------------------------


@dataclass
class MergeAudit:
    """How merged memories keep the turns they cite: a memory's first source is the turn it was
    made from, the others were merged into it."""

    memories: int = 0
    with_several_sources: int = 0
    max_sources: int = 0
    merged_sources: int = 0  # non-first sources naming a turn of the conversation
    merged_shown: int = 0  # ... whose text the memory's content shows (`shows_text`)
    capped_users: int = 0  # users whose listing stopped at the cap
    faded: int = 0  # memories below the removal threshold: forgotten, awaiting the sweep

    def add(
        self, memories: Iterable[Item], turn_texts: Mapping[str, str], *, faded: int = 0
    ) -> None:
        self.faded += faded
        for memory in memories:
            sources = list(memory.sources)
            self.memories += 1
            self.with_several_sources += len(sources) > 1
            self.max_sources = max(self.max_sources, len(sources))
            for source in sources[1:]:
                if source in turn_texts:
                    self.merged_sources += 1
                    self.merged_shown += shows_text(memory.content, turn_texts[source])

    def combine(self, other: MergeAudit) -> None:
        self.memories += other.memories
        self.with_several_sources += other.with_several_sources
        self.max_sources = max(self.max_sources, other.max_sources)
        self.merged_sources += other.merged_sources
        self.merged_shown += other.merged_shown
        self.capped_users += other.capped_users
        self.faded += other.faded

    def summary(self) -> dict[str, Any]:
        share = self.merged_shown / self.merged_sources if self.merged_sources else None
        return {
            "memories": self.memories,
            "with_several_sources": self.with_several_sources,
            "max_sources": self.max_sources,
            "merged_sources": self.merged_sources,
            "merged_sources_shown": self.merged_shown,
            "merged_shown_share": None if share is None else round(share, 4),
            "capped_users": self.capped_users,
            "faded": self.faded,
        }


# --- per-question scores ------------------------------------------------------------------------


@dataclass
class QuestionScore:
    key: str  # "<conversation>:<question index>": pairs a question across systems
    category: int
    text: dict[str, float]  # cut -> text-credited recall
    source: dict[str, float]  # cut -> source-credited recall
    tokens: dict[str, int]  # cut -> context tokens
    items: dict[str, int]  # cut -> items (memories or turns) in it
    returned: int  # items the system returned for the question
    # cut -> share of its item tokens citing an evidence turn (`evidence_share`); absent from
    # scores saved before it was measured.
    evidence: dict[str, float] = field(default_factory=dict)


@dataclass
class SystemScores:
    """One system's per-question scores (a memory configuration or the flat baseline)."""

    questions: list[QuestionScore] = field(default_factory=list)

    def add(self, score: QuestionScore) -> None:
        self.questions.append(score)

    def _of(self, category: int | None) -> list[QuestionScore]:
        return [q for q in self.questions if category is None or q.category == category]

    def summary(self) -> dict[str, dict[str, float | int]]:
        """{"overall" | category name: {"n", "text@<cut>", "source@<cut>", "tokens@<cut>",
        "items@<cut>", "evidence_share@<cut>" where measured (means over the questions)}}"""
        out: dict[str, dict[str, float | int]] = {}
        groups: list[tuple[str, int | None]] = [(CATEGORY_NAMES[c], c) for c in CATEGORY_NAMES]
        for name, category in [*groups, ("overall", None)]:
            chosen = self._of(category)
            row: dict[str, float | int] = {"n": len(chosen)}
            names = list(dict.fromkeys(c for q in chosen for c in q.text))
            for cut in names:
                row[f"text@{cut}"] = _mean([q.text[cut] for q in chosen], 4)
                row[f"source@{cut}"] = _mean([q.source[cut] for q in chosen], 4)
                row[f"tokens@{cut}"] = _mean([q.tokens[cut] for q in chosen], 1)
                row[f"items@{cut}"] = _mean([q.items[cut] for q in chosen], 2)
                shares = [q.evidence[cut] for q in chosen if cut in q.evidence]
                if shares:
                    row[f"evidence_share@{cut}"] = _mean(shares, 4)
            out[name] = row
        return out

    def values(self, credit: str, cut: str) -> dict[str, float]:
        """Question key -> its recall under `credit` ("text" | "source") at `cut`."""
        return {q.key: getattr(q, credit)[cut] for q in self.questions}

    def returned_stats(self) -> dict[str, float | int]:
        counts = [q.returned for q in self.questions]
        if not counts:
            return {"min": 0, "mean": 0.0, "max": 0}
        return {"min": min(counts), "mean": round(statistics.fmean(counts), 2), "max": max(counts)}


def _mean(values: Sequence[float], digits: int) -> float:
    return round(statistics.fmean(values), digits) if values else 0.0


# --- paired bootstrap ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PairedInterval:
    mean: float  # mean per-question difference a - b
    low: float
    high: float
    n: int
    resamples: int
    seed: int
    level: float

    def as_dict(self) -> dict[str, float | int]:
        return {
            "mean_difference": round(self.mean, 4),
            "ci_low": round(self.low, 4),
            "ci_high": round(self.high, 4),
            "n": self.n,
            "resamples": self.resamples,
            "seed": self.seed,
            "level": self.level,
        }


def paired_bootstrap(
    a: Mapping[str, float],
    b: Mapping[str, float],
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = BOOTSTRAP_LEVEL,
) -> PairedInterval:
    """The mean of the per-question differences a - b (paired by question key) and its
    percentile bootstrap interval: questions resampled with replacement `resamples` times."""
    if set(a) != set(b):
        raise ValueError("the two systems were not scored on the same questions")
    if not a:
        raise ValueError("no questions to compare")
    keys = sorted(a)
    diffs = np.array([a[k] - b[k] for k in keys], dtype=np.float64)
    rng = np.random.default_rng(seed)
    means = np.empty(resamples, dtype=np.float64)
    chunk = max(1, 2_000_000 // len(keys))  # bounded memory for the index matrix
    for start in range(0, resamples, chunk):
        rows = min(chunk, resamples - start)
        picks = rng.integers(0, len(keys), size=(rows, len(keys)))
        means[start : start + rows] = diffs[picks].mean(axis=1)
    tail = (1.0 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return PairedInterval(
        mean=float(diffs.mean()),
        low=float(low),
        high=float(high),
        n=len(keys),
        resamples=resamples,
        seed=seed,
        level=level,
    )


# Recall by the age of a question's evidence (issue 32): in active days, on the user's decay
# clock (the days forgetting counts), from the oldest evidence turn to the question.
AGE_BUCKETS: tuple[tuple[str, float, float], ...] = (
    ("< 7 days", 0.0, 7.0),
    ("7-30 days", 7.0, 30.0),
    ("30-90 days", 30.0, 90.0),
    (">= 90 days", 90.0, float("inf")),
)


def recall_by_age(
    memory: Mapping[str, float], flat: Mapping[str, float], ages: Mapping[str, float]
) -> list[dict[str, Any]]:
    """Per age bucket: the questions in it, the memory's and flat's mean recall, and the
    difference. `memory`, `flat`: question key -> recall; `ages`: question key -> age in active
    days. A bucket without questions is reported with n = 0 and no means."""
    rows = []
    for name, low, high in AGE_BUCKETS:
        keys = [k for k in memory if k in flat and low <= ages.get(k, -1.0) < high]
        mine = _mean([memory[k] for k in keys], 4) if keys else None
        theirs = _mean([flat[k] for k in keys], 4) if keys else None
        rows.append(
            {
                "age": name,
                "n": len(keys),
                "memory": mine,
                "flat": theirs,
                "difference": None if mine is None or theirs is None else round(mine - theirs, 4),
            }
        )
    return rows
