"""The relation reader (issue 34): who a person a message names is to the user, read from the
message's tokens, trained by `scripts/train_relation_reader.py` on the persona corpus's train
writers and shipped as `data/relation_reader.npz`.

The rules of `domain.structured.relations` read a relation where a relation word stands beside
the name; new writers say it in words no rule was written for ("my boy from church", "the
woman next door", "lil bro", "завуч моя"). The reader is multilingual-e5-small with its own
low-rank adapters on the top layers (the layers below are the embedder's, computed once for
this reader and the type reader) and a softmax over the guide's relations and "none", read
from the name's token states beside the whole message's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from selfimprint.adapters.e5_encoder import Array, E5Weights, run_layers
from selfimprint.adapters.name_head import ChunkedTokens
from selfimprint.adapters.tuned_layers import POOL_SCALE, ReaderMeta, merged_layer, read_artefact
from selfimprint.domain.structured.relations import NO_RELATION, RELATIONS

RELATION_FILE = "relation_reader.npz"
# The guide's relations, then "none": the order of the softmax's rows.
RELATION_LABELS: tuple[str, ...] = (*RELATIONS, NO_RELATION)


class RelationReader:
    """Reads each chunk's relation odds from a text's states below the tuned layers."""

    def __init__(
        self,
        weights: E5Weights,
        meta: ReaderMeta,
        tuned: Sequence[Mapping[str, Array]],
        heads: Mapping[str, Array],
    ) -> None:
        if weights.digest != meta.base_sha256:
            raise ValueError("the relation reader was trained on other e5 weights")
        if meta.types != RELATION_LABELS:
            raise ValueError("the relation reader reads other relations")
        self._weights = weights
        self.first_tuned = meta.first_tuned
        self._layers = tuple(
            merged_layer(weights.layers[meta.first_tuned + i], t) for i, t in enumerate(tuned)
        )
        self._w = np.asarray(heads["relation.w"], dtype=np.float64)
        self._b = np.asarray(heads["relation.b"], dtype=np.float64)

    def relations(
        self,
        lower: Array,
        mask: Array,
        chunked: Sequence[ChunkedTokens],
        name_odds: Sequence[NDArray[np.float64]],
    ) -> list[dict[str, dict[str, float]]]:
        """For each text of a padded batch, the odds of each relation and of none for the person
        each word names (casefolded), read at the word's chunk the name head reads likeliest a
        name (`name_odds`, one per chunk: "mark my words, Mark is quitting" reads the second);
        `lower`: the texts' states below `first_tuned` [texts, tokens, hidden], `mask` their
        real tokens."""
        states = run_layers(self._weights, lower, self._layers, mask)
        out: list[dict[str, dict[str, float]]] = []
        for i, text in enumerate(chunked):
            where: dict[str, int] = {}
            for k, (keys, _, _, _) in enumerate(text.chunks):
                for key in keys:
                    if key not in where or name_odds[i][k] > name_odds[i][where[key]]:
                        where[key] = k
            whole = _unit(states[i][mask[i] > 0].mean(0))
            read: dict[int, dict[str, float]] = {}
            for k in sorted(set(where.values())):
                _, _, start, end = text.chunks[k]
                features = np.concatenate([_unit(states[i, start:end].mean(0)), whole])
                logits = self._w @ features.astype(np.float64) + self._b
                odds = np.exp(logits - logits.max())
                odds /= odds.sum()
                read[k] = {label: float(p) for label, p in zip(RELATION_LABELS, odds, strict=True)}
            out.append({key: read[k] for key, k in where.items()})
        return out


def _unit(v: Array) -> Array:
    return np.asarray(v / max(float(np.linalg.norm(v)), 1e-12) * POOL_SCALE, dtype=np.float32)


def load_relation_reader(path: Path, weights: E5Weights) -> RelationReader:
    meta, tuned, heads = read_artefact(path)
    return RelationReader(weights, meta, tuned, heads)
