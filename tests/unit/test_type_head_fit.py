"""The type head's training converges (scripts/train_extraction_head.py, issue 34): the same
data gives the same weights, and vectors a rounding error apart (another build of the embedding
engine) give nearly the same ones. The fixed step of 0.5 it replaced oscillated on vectors that
share a large common direction, as e5's do, and where it stopped depended on such errors."""

from __future__ import annotations

import numpy as np
import pytest

from tests.unit.scripts import load_script

pytestmark = pytest.mark.unit

train = load_script("train_extraction_head")


def _vectors(seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(3), 40)
    centres = rng.normal(size=(3, 16))
    # A large shared direction, like the common part of e5 vectors (scaled by 10 in training).
    common = np.full(16, 3.0)
    x = common + centres[labels] + 0.8 * rng.normal(size=(labels.size, 16))
    return x * 10.0, labels


def test_the_fit_is_deterministic_and_stops_before_its_step_limit() -> None:
    x, y = _vectors()
    w1, b1 = train.fit(x, y, 3, l2=0.01, steps=100_000)
    w2, b2 = train.fit(x, y, 3, l2=0.01, steps=100_000)
    assert np.array_equal(w1, w2) and np.array_equal(b1, b2)
    # Converged: more steps change nothing.
    w3, b3 = train.fit(x, y, 3, l2=0.01, steps=200_000)
    assert np.array_equal(w1, w3) and np.array_equal(b1, b3)
    accuracy = float(((x @ w1.T + b1).argmax(axis=1) == y).mean())
    assert accuracy > 0.9


def test_vectors_a_rounding_error_apart_give_nearly_the_same_head() -> None:
    x, y = _vectors()
    nudged = x * (1.0 + 1e-9 * np.random.default_rng(1).standard_normal(x.shape))
    w1, b1 = train.fit(x, y, 3, l2=0.01, steps=100_000)
    w2, b2 = train.fit(nudged, y, 3, l2=0.01, steps=100_000)
    assert np.abs(w1 - w2).max() < 1e-4 * np.abs(w1).max()
    assert np.abs(b1 - b2).max() < 1e-4 * max(np.abs(b1).max(), 1.0)


def test_the_step_is_the_inverse_of_the_largest_curvature() -> None:
    x, y = _vectors()
    xc = x - x.mean(axis=0)
    weights = np.ones(len(y))
    largest = float(np.linalg.eigvalsh(xc.T @ xc / len(y)).max())
    assert train.step_size(xc, weights) == pytest.approx(1.0 / largest, rel=1e-6)
