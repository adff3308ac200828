"""The relation reader (`adapters.relation_reader`, issue 34): it reads the states the type
reader's lower layers computed, the same for a text alone or in a padded batch, one reading
per word (its first chunk), and a file trained on other weights, for other relations or on
other layers than the type reader's does not load."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from selfimprint.adapters import type_reader
from selfimprint.adapters.e5_encoder import MATRICES, VECTORS, shipped_weights
from selfimprint.adapters.name_head import ChunkedTokens, chunked_tokens
from selfimprint.adapters.relation_reader import (
    RELATION_LABELS,
    RelationReader,
    load_relation_reader,
)
from selfimprint.adapters.tuned_layers import ReaderMeta, read_artefact, save_reader
from selfimprint.adapters.type_reader import (
    E5_MODEL_ID,
    load_reader,
    shipped_name_head,
    shipped_reader_path,
    type_reader_for,
)
from selfimprint.domain.structured.cues import cues
from selfimprint.domain.structured.extractor import DEFAULT_STRUCTURED, name_readings
from selfimprint.domain.structured.head import BlendedReader, head_for
from selfimprint.domain.structured.people import find_people

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


def _lower(
    texts: list[str],
) -> tuple[np.ndarray, np.ndarray, list[ChunkedTokens], list[NDArray[np.float64]]]:
    """The texts' lower states, chunks and the shipped name head's odds of each chunk."""
    weights = shipped_weights()
    chunked = [chunked_tokens(weights, t) for t in texts]
    typed = load_reader(shipped_reader_path(), weights)
    names = shipped_name_head(shipped_reader_path())
    assert names is not None
    lower, mask = typed.lower_states([c.ids for c in chunked])
    states, _ = typed.token_states([c.ids for c in chunked])
    odds = [names.chunk_odds(states[i], c) for i, c in enumerate(chunked)]
    return lower, mask, chunked, odds


def test_a_text_reads_the_same_alone_and_in_a_batch(reader: RelationReader) -> None:
    batch = reader.relations(*_lower(TEXTS))
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


def test_a_word_said_twice_is_read_where_it_most_likely_names_someone(
    reader: RelationReader,
) -> None:
    lower, mask, chunked, _ = _lower(["mark my words, Mark is going to quit by friday"])
    marks = [k for k, (keys, _, _, _) in enumerate(chunked[0].chunks) if "mark" in keys]
    assert marks == [0, 3]
    first, second = np.zeros(len(chunked[0].chunks)), np.zeros(len(chunked[0].chunks))
    first[0], second[3] = 0.9, 0.9
    read_first = reader.relations(lower, mask, chunked, [first])[0]["mark"]
    read_second = reader.relations(lower, mask, chunked, [second])[0]["mark"]
    assert read_first != pytest.approx(read_second)
    assert reader.relations(lower, mask, chunked, [second])[0]["words"] != read_second


def test_the_type_reader_reads_relations_only_where_it_reads_a_name(
    reader: RelationReader,
) -> None:
    weights = shipped_weights()
    typed = load_reader(
        shipped_reader_path(), weights, shipped_name_head(shipped_reader_path()), reader
    )
    texts = [*TEXTS, "ok thanks, that helps a lot"]
    readings = typed.readings(texts, {})
    assert readings[texts[-1]].relations == {}  # no word it reads as a name: no relation layers
    for text in TEXTS:
        alone = reader.relations(*_lower([text]))[0]
        assert readings[text].relations.keys() == alone.keys()
        for word, odds in alone.items():
            assert readings[text].relations[word] == pytest.approx(odds, abs=1e-5), (text, word)
    linear = head_for(E5_MODEL_ID)
    assert linear is not None
    blended = BlendedReader(typed, linear, 0.5).reading(TEXTS[0], None)
    assert blended is not None
    assert blended.relations.keys() == readings[TEXTS[0]].relations.keys()
    assert blended.relations["reggie"] == pytest.approx(
        readings[TEXTS[0]].relations["reggie"], abs=1e-5
    )


def test_a_reader_for_other_weights_relations_or_layers_does_not_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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
    other_layers = load_relation_reader(path, weights)
    with pytest.raises(ValueError, match="other layers"):
        load_reader(shipped_reader_path(), weights, None, other_layers)
    # Shipped beside the type reader, it is left out and the type reader reads as before.
    beside = read_artefact(shipped_reader_path())[0]
    same_layers = _artefact(beside.first_tuned)
    monkeypatch.setattr(type_reader, "shipped_data", lambda name: path)
    assert type_reader.shipped_relation_reader(beside) is None
    save_reader(path, *same_layers)
    assert type_reader.shipped_relation_reader(beside) is not None


@pytest.mark.parametrize(
    ("text", "name", "relation"),
    [
        ("my team leader Oluwaseun signed off my leave at last", "Oluwaseun", "manager"),
        ("our boy Cathal starts big school in september", "Cathal", "son"),
    ],
)
def test_the_shipped_reader_reads_relations_no_rule_word_says(
    text: str, name: str, relation: str
) -> None:
    # Names in no message of the corpus it was trained on, beside words no relation rule holds.
    reader = type_reader_for(E5_MODEL_ID, DEFAULT_STRUCTURED.head_share)
    assert reader is not None
    readings = name_readings(reader, text, None)
    rules_alone = find_people(
        text,
        cues("en"),
        likely=readings["likely"],
        unlikely=readings["unlikely"],
        possible=readings["possible"],
    )
    assert [(m.name, m.relation) for m in rules_alone] == [(name, None)]
    read = find_people(text, cues("en"), **readings)
    assert [(m.name, m.relation) for m in read] == [(name, relation)]
