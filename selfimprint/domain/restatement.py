"""Whether a new statement says the same thing as a stored memory: the test behind reinforcement
(spec §3.3, a memory mentioned again) and compaction's dedupe (spec §3.9, near-duplicates merge).

A merge keeps one text and credits it with every source, so merging two different statements
silently loses the second. Cosine alone cannot decide: with multilingual-e5-small two unrelated
chat lines sit near 0.86 and greetings above 0.92 (docs/benchmarks-locomo.md). Two statements
restate each other only when every check holds, in this order:

1. **Speaker.** A transcript line's label ("Anna: ...") names who speaks; lines of two speakers
   never merge, nor a labelled line with an unlabelled one.
2. **Mood and polarity**: a question never restates a statement ("Do you like hiking?" / "I
   like hiking"), nor a plan or wish what happened ("I'm planning to go hiking" / "I went
   hiking"); both have the same parity of negations ("I smoke" / "I don't smoke").
3. **Numbers**: the same numbers, in digits or words ("two kids" / "three kids").
4. **Meaning**, one of two ways: the same content words (`selfimprint.domain.terms`: Snowball
   stems, EN / RU by each word's script) with a cosine of at least `same_words_min_cosine`, or
   a cosine at or above the embedder's calibrated floor (`min_cosine`) with a Jaccard overlap
   of content stems of at least `min_overlap`, so that a different subject, place or plan does
   not pass on topic alone.

The floors are tuned per embedder by `scripts/eval_sameness.py` on `tests/data/sameness/`.

Type, valence and tenant are the callers' part (they compare nodes, not texts).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Final

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.terms import read

Cosine = Annotated[float, Field(ge=-1.0, le=1.0)]


class RestatementConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # Raw cosine floors by embedder (a model id starts with the key), tuned with min_overlap
    # by scripts/eval_sameness.py (BENCHMARKS.md "Restatement test"): e5-small on the labelled
    # pairs' tuning half. bge-m3 has no weights on these machines: its floor is the spec's 0.92,
    # not tuned (run the script on a GPU worker with --embedder bge-m3 before relying on it).
    min_cosine: Mapping[str, Cosine] = Field(
        default_factory=lambda: {"intfloat/multilingual-e5-small": 0.97, "BAAI/bge-m3": 0.92}
    )
    # An embedder not in the table (spec §3.9's duplicate threshold).
    default_min_cosine: Cosine = 0.92
    # Share of content stems the two statements have in common (|A ∩ B| / |A ∪ B|), tuned with
    # the e5 floor above.
    min_overlap: Annotated[float, Field(ge=0.0, le=1.0)] = 0.3
    # The same content words (overlap at least this) need only a lower cosine: e5 moves with
    # punctuation, emoji and filler ("so yeah, I'm studying for the bar exam..." is at 0.942).
    # Tuned with the two above; the checks of speaker, mood, polarity and numbers still apply.
    same_words_overlap: Annotated[float, Field(ge=0.0, le=1.0)] = 1.0
    same_words_min_cosine: Cosine = 0.94

    def cosine_floor(self, embedding_model: str | None) -> float:
        for prefix, floor in self.min_cosine.items():
            if embedding_model is not None and embedding_model.startswith(prefix):
                return floor
        return self.default_min_cosine

    def lowest_cosine_floor(self) -> float:
        """The loosest floor of any path: a safe pre-filter for a pairwise scan."""
        return min([self.default_min_cosine, self.same_words_min_cosine, *self.min_cosine.values()])


DEFAULT_RESTATEMENT: Final = RestatementConfig()


class Difference(StrEnum):
    """The first check two statements failed."""

    SPEAKER = "speaker"
    COSINE = "cosine"
    MOOD = "mood"
    POLARITY = "polarity"
    NUMBERS = "numbers"
    CONTENT = "content"


@dataclass(frozen=True)
class Verdict:
    difference: Difference | None
    overlap: float  # Jaccard of content stems (0.0 when a check before it failed)

    @property
    def same(self) -> bool:
        return self.difference is None


def content_overlap(first: str, second: str) -> float:
    a, b = read(first).stems, read(second).stems
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def compare(
    first: str,
    second: str,
    cosine: float,
    *,
    embedding_model: str | None,
    config: RestatementConfig = DEFAULT_RESTATEMENT,
) -> Verdict:
    """Whether `second` says what `first` says, and if not, the first check that failed."""
    a, b = read(first), read(second)
    if a.speaker != b.speaker:
        return Verdict(Difference.SPEAKER, 0.0)
    if a.asks != b.asks or a.intends != b.intends:
        return Verdict(Difference.MOOD, 0.0)
    if a.negations % 2 != b.negations % 2:
        return Verdict(Difference.POLARITY, 0.0)
    if a.numbers != b.numbers:
        return Verdict(Difference.NUMBERS, 0.0)
    overlap = content_overlap(first, second)
    if overlap >= config.same_words_overlap and cosine >= config.same_words_min_cosine:
        return Verdict(None, overlap)
    if cosine < config.cosine_floor(embedding_model):
        return Verdict(Difference.COSINE, overlap)
    if overlap < config.min_overlap:
        return Verdict(Difference.CONTENT, overlap)
    return Verdict(None, overlap)


def restates(
    first: str,
    second: str,
    cosine: float,
    *,
    embedding_model: str | None,
    config: RestatementConfig = DEFAULT_RESTATEMENT,
) -> bool:
    return compare(first, second, cosine, embedding_model=embedding_model, config=config).same
