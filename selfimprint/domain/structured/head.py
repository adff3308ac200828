"""A small classifier head on the embeddings the stack already computes: the type of a message
(or none: small talk) and its valence.

Multinomial logistic regression, weights in `data/type_head.json`, trained by
`scripts/train_extraction_head.py` on the train split of tests/data/extraction/ only. A head
belongs to one embedding model: with another embedder it does not apply.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

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
class ExtractionHead:
    embedding_model: str
    types: Softmax  # fact, event, emotional_note, person, open_loop, none
    valence: Softmax  # positive, negative, none

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
