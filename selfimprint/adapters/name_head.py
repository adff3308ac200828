"""Which words of a message name a person (issue 34): a logistic head on the type reader's
token states, trained by `scripts/train_name_head.py` on the persona corpus's train writers and
shipped as `data/name_head.npz`.

English has no NER model in a PyPI wheel and a first-name list misses every name it was not
written for ("Fergal", "Aoife", "Dermot"): the multilingual encoder has seen such names in
their places in sentences, so a linear read of its states tells "Fergal is taking Aoife to
Belfast" apart without a list. The head is tied to the reader it was fitted on (a sha256 of
`type_reader.npz`): a retrained reader has other states, and then no names are read until the
head is fitted again.

A word is read from its whitespace chunk ("Aoife's," is one chunk): the mean and the first of
the chunk's token states, and whether the word is capitalised, lowercase or shouted.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from selfimprint.adapters.e5_encoder import Array, E5Weights

NAME_FILE = "name_head.npz"

_CHUNK = re.compile(r"\S+")
_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")
_POSSESSIVE = re.compile(r"(?:'s|’s)$")


@dataclass(frozen=True)
class ChunkedTokens:
    """A text's token ids (as `E5Weights.token_ids` gives them) with, per whitespace chunk that
    fits the window, its words (casefolded, possessive dropped) and its token range."""

    ids: list[int]
    chunks: list[tuple[tuple[str, ...], tuple[bool, bool, bool], int, int]]


def chunked_tokens(weights: E5Weights, text: str, prefix: str = "passage: ") -> ChunkedTokens:
    """The text's ids (`E5Weights.token_ids`) with each chunk's token range. SentencePiece never
    joins pieces across a space, so the chunks' pieces, one after another, are the whole
    text's (a trailing space adds a piece of its own after them; checked by the tests)."""
    tokenizer = weights.tokenizer
    ids = weights.token_ids(text, prefix)
    built = [tokenizer.bos]
    for chunk in prefix.split():
        built += tokenizer.content_ids(chunk)
    last = len(ids) - 1  # </s>
    chunks = []
    for match in _CHUNK.finditer(text):
        pieces = tokenizer.content_ids(match.group(0))
        start = len(built)
        built += pieces
        words = [w.group(0) for w in _WORD.finditer(match.group(0))]
        if words and start + len(pieces) <= last:
            first = words[0]
            shape = (first[:1].isupper(), first.islower(), first.isupper() and len(first) > 1)
            keys = tuple(_POSSESSIVE.sub("", w).casefold() for w in words)
            chunks.append((keys, shape, start, start + len(pieces)))
    shared = min(len(built), last)
    if built[:shared] != ids[:shared]:
        return ChunkedTokens(ids, [])  # not the same pieces: no word is read, none misread
    return ChunkedTokens(ids, chunks)


# What a row of `chunk_features` holds; a head fitted on other rows is not loaded.
NAME_FEATURES = "mean,first,shape,previous-mean,next-mean"


def chunk_features(states: Array, chunked: ChunkedTokens) -> NDArray[np.float32]:
    """One row per chunk: its mean state, its first state, capitalised / lowercase / shouted,
    and the mean states of the chunks before and after it (zeros at the ends). The neighbours
    tell "drinks w jordan" from "jordan shoes": on English writers the head never saw they
    raised names found at the same precision (docs/decisions.md, "The name head reads the
    words beside the word")."""
    hidden = states.shape[1]
    means = [states[start:end].mean(0) for _, _, start, end in chunked.chunks]
    zeros = np.zeros(hidden, np.float32)
    rows = [
        np.concatenate(
            [
                means[k],
                states[start],
                np.asarray(shape, np.float32),
                means[k - 1] if k else zeros,
                means[k + 1] if k + 1 < len(means) else zeros,
            ]
        )
        for k, (_, shape, start, _) in enumerate(chunked.chunks)
    ]
    return np.asarray(rows, dtype=np.float32).reshape(len(rows), 4 * hidden + 3)


@dataclass(frozen=True)
class NameHead:
    """Logistic regression on standardised chunk features."""

    weights: Array
    bias: float
    mean: Array
    scale: Array
    reader_sha256: str  # the type_reader.npz whose states it reads
    training: dict[str, object]

    def probabilities(self, features: NDArray[np.float32]) -> NDArray[np.float64]:
        z = (features - self.mean) / self.scale
        logits = z.astype(np.float64) @ self.weights.astype(np.float64) + self.bias
        return np.asarray(1.0 / (1.0 + np.exp(-logits)), dtype=np.float64)

    def chunk_odds(self, states: Array, chunked: ChunkedTokens) -> NDArray[np.float64]:
        """Each chunk's probability of naming a person."""
        if not chunked.chunks:
            return np.zeros(0)
        return self.probabilities(chunk_features(states, chunked))

    def names(self, states: Array, chunked: ChunkedTokens) -> dict[str, float]:
        """Each word's probability of naming a person (its likeliest occurrence)."""
        return words_odds(chunked, self.chunk_odds(states, chunked))


def words_odds(chunked: ChunkedTokens, odds: NDArray[np.float64]) -> dict[str, float]:
    """Each word's probability of naming a person, from its chunks' (its likeliest one)."""
    out: dict[str, float] = {}
    for (keys, _, _, _), p in zip(chunked.chunks, odds, strict=True):
        for key in keys:
            out[key] = max(out.get(key, 0.0), float(p))
    return out


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save_name_head(path: Path, head: NameHead) -> None:
    meta = {"reader_sha256": head.reader_sha256, "bias": head.bias, "training": head.training}
    with path.open("wb") as out:
        np.savez_compressed(
            out,
            meta=np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8),
            weights=np.asarray(head.weights, np.float32),
            mean=np.asarray(head.mean, np.float32),
            scale=np.asarray(head.scale, np.float32),
        )


def load_name_head(path: Path) -> NameHead:
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(bytes(data["meta"]).decode("utf-8"))
        return NameHead(
            weights=np.asarray(data["weights"], np.float32),
            bias=float(meta["bias"]),
            mean=np.asarray(data["mean"], np.float32),
            scale=np.asarray(data["scale"], np.float32),
            reader_sha256=str(meta["reader_sha256"]),
            training=dict(meta["training"]),
        )


def fit_name_head(
    features: NDArray[np.float32],
    labels: Sequence[int],
    *,
    l2: float,
    steps: int,
    reader_sha256: str,
    training: dict[str, object],
) -> NameHead:
    """Class-balanced, L2-regularised logistic regression by full-batch gradient descent
    (deterministic: the same rows give the same head)."""
    y = np.asarray(labels, dtype=np.float64)
    mean = features.mean(0)
    scale = features.std(0) + 1e-6
    z = ((features - mean) / scale).astype(np.float64)
    positive = float(y.mean())
    sample = np.where(y == 1, 0.5 / positive, 0.5 / (1.0 - positive))
    w = np.zeros(z.shape[1])
    b = 0.0
    n = len(y)
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(z @ w + b)))
        g = (p - y) * sample
        w -= 0.5 * (z.T @ g / n + l2 * w / n)
        b -= 0.5 * float(g.mean())
    return NameHead(
        np.asarray(w, np.float32),
        b,
        np.asarray(mean, np.float32),
        np.asarray(scale, np.float32),
        reader_sha256,
        training,
    )
