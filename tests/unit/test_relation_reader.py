"""The relation reader (`adapters.relation_reader`, issue 34): it reads the states the type
reader's lower layers computed, the same for a text alone or in a padded batch, one reading
per word (its first chunk), and a file trained on other weights, for other relations or on
other layers than the type reader's does not load."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from selfimprint.adapters.e5_encoder import MATRICES, VECTORS, shipped_weights
from selfimprint.adapters.name_head import ChunkedTokens, chunked_tokens
from selfimprint.adapters.relation_reader import (
    RELATION_LABELS,
    RelationReader,
    load_relation_reader,
)
from selfimprint.adapters.tuned_layers import ReaderMeta, save_reader
from selfimprint.adapters.type_reader import load_reader, shipped_reader_path

pytestmark = pytest.mark.unit

TEXTS = [
    "reggie my boy from church got laid off at the plant",
    "the woman next door Beryl brought us a cottage pie again, every monday since april",
    "вчера с Геной ходили на рыбалку",
]


def _artefact(
    first: int, labels: tuple[str, ...] = RELATION_LABELS
) -> tuple[ReaderMeta, list[dict[str, np.ndarray]], dict[str, np.ndarray]]:
    """Small random adapters and a random head: a reader that reads something, not a trained
    one."""
    weights = shipped_weights()
    rng = np.random.default_rng(5)
    tuned = []
    for layer in weights.layers[first:]:
        adapters = {k: layer[k] for k in VECTORS}
        for name in MATRICES:
            rows, columns = layer[name].shape
            adapters[f"{name}.A"] = rng.normal(0, 0.05, (2, columns)).astype(np.float32)
            adapters[f"{name}.B"] = rng.normal(0, 0.05, (rows, 2)).astype(np.float32)
        tuned.append(adapters)
    heads = {
        "relation.w": rng.normal(0, 0.5, (len(labels), 2 * weights.hidden)).astype(np.float32),
        "relation.b": np.zeros(len(labels), dtype=np.float32),
    }
    meta = ReaderMeta(weights.digest, first, labels, (), {"script": "test"})
    return meta, tuned, heads


def _first_tuned() -> int:
    return load_reader(shipped_reader_path(), shipped_weights()).first_tuned


@pytest.fixture(scope="module")
def reader(tmp_path_factory: pytest.TempPathFactory) -> RelationReader:
    path = tmp_path_factory.mktemp("relations") / "relation_reader.npz"
    save_reader(path, *_artefact(_first_tuned()))
    return load_relation_reader(path, shipped_weights())


def _lower(texts: list[str]) -> tuple[np.ndarray, np.ndarray, list[ChunkedTokens]]:
    weights = shipped_weights()
    chunked = [chunked_tokens(weights, t) for t in texts]
    reader = load_reader(shipped_reader_path(), weights)
    lower, mask = reader.lower_states([c.ids for c in chunked])
    return lower, mask, chunked


def test_a_text_reads_the_same_alone_and_in_a_batch(reader: RelationReader) -> None:
    lower, mask, chunked = _lower(TEXTS)
    batch = reader.relations(lower, mask, chunked)
    for i, text in enumerate(TEXTS):
        alone = reader.relations(*_lower([text]))[0]
        assert alone.keys() == batch[i].keys()
        for word, odds in alone.items():
            assert odds == pytest.approx(batch[i][word], abs=1e-5), (text, word)


def test_each_word_gets_odds_over_the_relations_and_none(reader: RelationReader) -> None:
    read = reader.relations(*_lower(TEXTS[:1]))[0]
    assert {"reggie", "boy", "church"} <= read.keys()
    for odds in read.values():
        assert tuple(odds) == RELATION_LABELS
        assert sum(odds.values()) == pytest.approx(1.0)
    assert read["reggie"] != read["church"]  # the word is read, not only the message


def test_a_reader_for_other_weights_relations_or_layers_does_not_load(tmp_path: Path) -> None:
    weights = shipped_weights()
    meta, tuned, heads = _artefact(_first_tuned())
    path = tmp_path / "other.npz"
    save_reader(path, dataclasses.replace(meta, base_sha256="0" * 64), tuned, heads)
    with pytest.raises(ValueError, match="other e5 weights"):
        load_relation_reader(path, weights)
    save_reader(path, dataclasses.replace(meta, types=RELATION_LABELS[1:]), tuned, heads)
    with pytest.raises(ValueError, match="other relations"):
        load_relation_reader(path, weights)
    save_reader(path, *_artefact(_first_tuned() + 1))
    lower_first = load_relation_reader(path, weights)
    with pytest.raises(ValueError, match="other layers"):
        load_reader(shipped_reader_path(), weights, None, lower_first)
