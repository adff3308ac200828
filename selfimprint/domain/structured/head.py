"""What reads the type of a message (or none: small talk) and its valence: a `TypeReader`.

Two kinds exist: this module's small classifier head on the embeddings the stack already
computes (`ExtractionHead`), and the fine-tuned reader of `selfimprint.adapters.type_reader`,
which reads the message's tokens (issue 34); the extractor sees only the protocol.

Multinomial logistic regression, weights in `data/type_head.json`, trained by
`scripts/train_extraction_head.py` on the train split of tests/data/extraction/ only. A head
belongs to one embedding model: with another embedder it does not apply.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Protocol

NONE = "none"  # the type label of a message that says nothing to remember


@dataclass(frozen=True)
class Softmax:
    labels: tuple[str, ...]
    weights: tuple[tuple[float, ...], ...]  # one row per label
    bias: tuple[float, ...]

    def probabilities(self, vector: Sequence[float]) -> dict[str, float]:
        logits = [
            b + math.fsum(w * x for w, x in zip(row, vector, strict=True))
            for row, b in zip(self.weights, self.bias, strict=True)
        ]
        top = max(logits)
        exps = [math.exp(v - top) for v in logits]
        total = math.fsum(exps)
        return {label: e / total for label, e in zip(self.labels, exps, strict=True)}

    def to_json(self) -> dict[str, object]:
        return {
            "labels": list(self.labels),
            "weights": [[round(w, 6) for w in row] for row in self.weights],
            "bias": [round(b, 6) for b in self.bias],
        }

    @classmethod
    def from_json(cls, raw: dict[str, object]) -> Softmax:
        labels = raw["labels"]
        weights = raw["weights"]
        bias = raw["bias"]
        assert isinstance(labels, list) and isinstance(weights, list) and isinstance(bias, list)
        return cls(
            labels=tuple(str(label) for label in labels),
            weights=tuple(tuple(float(w) for w in row) for row in weights),
            bias=tuple(float(b) for b in bias),
        )


@dataclass(frozen=True)
class Reading:
    """A reader's probabilities for one text: of each type (and none), and of each valence; a
    reader of words may add, for each word (casefolded), how likely it names a person and,
    where it reads relations, how likely each relation (or "none") is of the person it names
    (the word's first occurrence)."""

    types: dict[str, float]
    valence: dict[str, float]
    names: Mapping[str, float] = field(default_factory=dict)
    relations: Mapping[str, Mapping[str, float]] = field(default_factory=dict)


class TypeReader(Protocol):
    def reading(self, text: str, vector: Sequence[float] | None) -> Reading | None:
        """`text`'s reading; `vector` is its passage vector, where the stack computed one
        (None: a reader that needs it reads nothing)."""
        ...

    def readings(
        self, texts: Sequence[str], vectors: Mapping[str, Sequence[float]]
    ) -> dict[str, Reading]:
        """The readings of `texts` at once (a reader of tokens runs them as one batch); a text
        it cannot read is left out."""
        ...


@dataclass(frozen=True)
class KnownReadings:
    """Readings computed ahead (`TypeReader.readings`), served by text; another text is read by
    `reader` itself."""

    known: Mapping[str, Reading]
    reader: TypeReader

    def reading(self, text: str, vector: Sequence[float] | None) -> Reading | None:
        found = self.known.get(text)
        return found if found is not None else self.reader.reading(text, vector)

    def readings(
        self, texts: Sequence[str], vectors: Mapping[str, Sequence[float]]
    ) -> dict[str, Reading]:
        missing = [t for t in texts if t not in self.known]
        return {t: self.known[t] for t in texts if t in self.known} | self.reader.readings(
            missing, vectors
        )


@dataclass(frozen=True)
class BlendedReader:
    """Two readers' probabilities averaged, `second_share` of them the second's; where the
    second reads nothing (no vector), the first alone."""

    first: TypeReader
    second: TypeReader
    second_share: float

    def reading(self, text: str, vector: Sequence[float] | None) -> Reading | None:
        return self._blend(self.first.reading(text, vector), self.second.reading(text, vector))

    def readings(
        self, texts: Sequence[str], vectors: Mapping[str, Sequence[float]]
    ) -> dict[str, Reading]:
        firsts = self.first.readings(texts, vectors)
        seconds = self.second.readings(texts, vectors)
        blended = {t: self._blend(firsts.get(t), seconds.get(t)) for t in texts}
        return {t: r for t, r in blended.items() if r is not None}

    def _blend(self, a: Reading | None, b: Reading | None) -> Reading | None:
        if a is None or b is None:
            return a or b
        share = self.second_share
        # Only a reader of words reads names and relations: nothing to average.
        return Reading(
            _mix(a.types, b.types, share),
            _mix(a.valence, b.valence, share),
            a.names or b.names,
            a.relations or b.relations,
        )


def _mix(a: Mapping[str, float], b: Mapping[str, float], share: float) -> dict[str, float]:
    return {k: (1.0 - share) * a.get(k, 0.0) + share * b.get(k, 0.0) for k in {*a, *b}}


@dataclass(frozen=True)
class ExtractionHead:
    embedding_model: str
    types: Softmax  # fact, event, emotional_note, person, open_loop, none
    valence: Softmax  # positive, negative, none

    def reading(self, text: str, vector: Sequence[float] | None) -> Reading | None:
        if vector is None:
            return None
        return Reading(self.types.probabilities(vector), self.valence.probabilities(vector))

    def readings(
        self, texts: Sequence[str], vectors: Mapping[str, Sequence[float]]
    ) -> dict[str, Reading]:
        read = {t: self.reading(t, vectors.get(t)) for t in texts}
        return {t: r for t, r in read.items() if r is not None}

    def to_json(self) -> dict[str, object]:
        return {
            "embedding_model": self.embedding_model,
            "types": self.types.to_json(),
            "valence": self.valence.to_json(),
        }


HEAD_FILE = "data/type_head.json"


@cache
def shipped_head() -> ExtractionHead | None:
    """The head shipped in the package, or None when none was trained yet."""
    path = resources.files("selfimprint.domain.structured").joinpath(HEAD_FILE)
    if not path.is_file():
        return None
    raw = json.loads(path.read_text())
    return ExtractionHead(
        embedding_model=str(raw["embedding_model"]),
        types=Softmax.from_json(raw["types"]),
        valence=Softmax.from_json(raw["valence"]),
    )


def head_for(embedding_model: str) -> ExtractionHead | None:
    head = shipped_head()
    return head if head is not None and head.embedding_model == embedding_model else None
