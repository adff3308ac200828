"""The contradiction reader (`adapters.contradiction_reader`, issue 34): each text alone through
the lower layers, the pair joined through the tuned ones. A pair reads the same alone or in a
batch of longer pairs, states kept for a text read before change nothing, and a file trained on
other weights or for other labels does not load."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from selfimprint.adapters.contradiction_reader import (
    LABELS,
    MEMORY_TOKENS,
    MESSAGE_TOKENS,
    E5ContradictionReader,
    contradiction_reader_for,
    joined,
    load_contradiction_reader,
    lower_states,
    memory_ids,
    message_ids,
)
from selfimprint.adapters.e5_encoder import MATRICES, VECTORS, shipped_weights
from selfimprint.adapters.tuned_layers import ReaderMeta, save_reader
from tests.unit.scripts import load_script

pytestmark = pytest.mark.unit

FIRST = 10


def _artefact(
    digest: str, labels: tuple[str, ...] = LABELS
) -> tuple[ReaderMeta, list[dict[str, np.ndarray]], dict[str, np.ndarray]]:
    """Small random adapters on the top two layers and a random head: a reader that reads
    something, not a trained one."""
    weights = shipped_weights()
    rng = np.random.default_rng(3)
    tuned = []
    for layer in weights.layers[FIRST:]:
        adapters = {k: layer[k] for k in VECTORS}
        for name in MATRICES:
            rows, columns = layer[name].shape
            adapters[f"{name}.A"] = rng.normal(0, 0.05, (2, columns)).astype(np.float32)
            adapters[f"{name}.B"] = rng.normal(0, 0.05, (rows, 2)).astype(np.float32)
        tuned.append(adapters)
    heads = {
        "pair.w": rng.normal(0, 1.0, (2, weights.hidden)).astype(np.float32),
        "pair.b": np.zeros(2, dtype=np.float32),
    }
    return ReaderMeta(digest, FIRST, labels, (), {"script": "test"}), tuned, heads


@pytest.fixture(scope="module")
def reader(tmp_path_factory: pytest.TempPathFactory) -> E5ContradictionReader:
    path = tmp_path_factory.mktemp("reader") / "pairs.npz"
    save_reader(path, *_artefact(shipped_weights().digest))
    return load_contradiction_reader(path, shipped_weights())


PAIRS = [
    ("I work at the Karratha mine.", "last swing at karratha done, starting at the port monday"),
    ("Booked a shack at Yallingup for Easter.", "pulling the pin on yallingup"),
    ("Живу в общаге на Пирогова.", "всё, переехала к бабушке, общага в прошлом 🙂" * 4),
]


def test_a_pair_reads_the_same_alone_and_in_a_batch(reader: E5ContradictionReader) -> None:
    batch = reader.contradiction_odds(PAIRS)
    alone = [reader.contradiction_odds([pair])[0] for pair in PAIRS]
    assert batch == pytest.approx(alone, abs=1e-5)
    assert all(0.0 < p < 1.0 for p in batch)
    assert len({round(p, 4) for p in batch}) == len(batch)  # the pairs are read, not a constant
    assert reader.contradiction_odds([]) == []


def test_the_memory_and_the_message_are_read_in_their_own_roles(
    reader: E5ContradictionReader,
) -> None:
    memory, message = PAIRS[0]
    forward, backward = reader.contradiction_odds([(memory, message), (message, memory)])
    assert forward != pytest.approx(backward, abs=1e-4)


def test_joined_pads_each_pair_after_its_memory_and_message() -> None:
    hidden = 4
    memory, message = np.ones((2, hidden), np.float32), np.full((3, hidden), 2.0, np.float32)
    x, mask = joined([(memory, message), (memory[:1], message[:1])])
    assert x.shape == (2, 5, hidden)
    assert mask.tolist() == [[1, 1, 1, 1, 1], [1, 1, 0, 0, 0]]
    assert x[1, :, 0].tolist() == [1.0, 2.0, 0.0, 0.0, 0.0]


def test_a_reader_for_other_weights_or_other_labels_does_not_load(tmp_path: Path) -> None:
    path = tmp_path / "pairs.npz"
    save_reader(path, *_artefact("0" * 64))
    with pytest.raises(ValueError, match="other e5 weights"):
        load_contradiction_reader(path, shipped_weights())
    save_reader(path, *_artefact(shipped_weights().digest, ("a", "b")))
    with pytest.raises(ValueError, match="not a contradiction reader"):
        load_contradiction_reader(path, shipped_weights())


def test_a_long_message_and_memory_are_cut_to_their_windows(reader: E5ContradictionReader) -> None:
    weights = shipped_weights()
    memory, message = "I work at the mine. " * 40, "last swing done, starting at the port " * 40
    assert len(memory_ids(weights, memory)) == MEMORY_TOKENS
    assert len(message_ids(weights, message)) == MESSAGE_TOKENS
    assert memory_ids(weights, memory)[-1] == weights.tokenizer.eos
    (odds,) = reader.contradiction_odds([(memory, message)])
    longer = reader.contradiction_odds([(memory + " and more", message + " and more")])[0]
    assert odds == pytest.approx(longer, abs=1e-6)  # what lies past the windows is not read


def test_a_reader_whose_tuned_layers_are_not_the_top_ones_does_not_load(tmp_path: Path) -> None:
    meta, tuned, heads = _artefact(shipped_weights().digest)
    path = tmp_path / "pairs.npz"
    save_reader(path, dataclasses.replace(meta, first_tuned=FIRST - 1), tuned, heads)
    with pytest.raises(ValueError, match="not the top layers"):
        load_contradiction_reader(path, shipped_weights())


def test_training_and_serving_read_a_pair_alike(reader: E5ContradictionReader) -> None:
    """The jax forward the training script fits (`scripts/adapter_training.pooled_fn`) and the
    numpy forward the server runs give one reading (needs `.[train]`)."""
    jax = pytest.importorskip("jax")
    training = load_script("adapter_training")
    weights = shipped_weights()
    meta, tuned, heads = _artefact(weights.digest)
    pooled = training.pooled_fn(jax, weights, FIRST, len(tuned))
    memory, message = PAIRS[0]
    x, mask = joined(
        [
            (
                lower_states(weights, memory_ids(weights, memory), FIRST),
                lower_states(weights, message_ids(weights, message), FIRST),
            )
        ]
    )
    logits = np.asarray(pooled(tuned, x, mask)) @ heads["pair.w"].T + heads["pair.b"]
    odds = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
    assert float(odds[0, 1]) == pytest.approx(reader.contradiction_odds([PAIRS[0]])[0], abs=1e-4)


def test_another_embedder_gets_no_reader() -> None:
    assert contradiction_reader_for("BAAI/bge-m3") is None
