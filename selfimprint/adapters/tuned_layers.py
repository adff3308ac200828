"""What every tuned reader of e5 shares (issue 34): the record of how its artefact was trained,
its layers merged with their low-rank updates, mean pooling, and the artefact's file layout.
The type reader, the contradiction reader and the relation reader are each low-rank adapters
on multilingual-e5-small's top layers, saved and read the same way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from selfimprint.adapters.e5_encoder import MATRICES, Array

# Pooled vectors are scaled before the heads, as the linear head's training scales them.
POOL_SCALE = 10.0


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


def mean_pool(states: Array, mask: Array) -> Array:
    """Mean over each text's tokens, unit length."""
    pooled = (states * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
    norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    return np.asarray(pooled / norms, dtype=np.float32)


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


def shipped_data(name: str) -> Path:
    """A file shipped in the package's `adapters/data` (the readers' artefacts)."""
    return Path(str(resources.files("selfimprint.adapters") / "data" / name))
