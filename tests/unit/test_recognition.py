"""Recognition (domain.recognition, issue 32): a faded memory comes back when the query matches
it strongly and specifically: above a floor, and standing out from the query's typical
similarity to the user's memories (a robust z-score: median and scaled median absolute
deviation)."""

from __future__ import annotations

import pytest

from selfimprint.domain.fading import FadingConfig, deleted_when_faded
from selfimprint.domain.models import NodeType, Valence
from selfimprint.domain.recognition import (
    MAD_TO_DEVIATION,
    SimilaritySpread,
    distinctiveness,
    recognised,
    unclipped_similarity,
)
from selfimprint.domain.scoring import ScoringConfig

SPECIFIC = ScoringConfig(
    recognition_min_similarity=0.1,
    recognition_min_distinctiveness=1.5,
    recognition_min_lexical=None,
)


def test_the_spread_is_the_median_and_scaled_median_absolute_deviation() -> None:
    spread = SimilaritySpread.of([0.0, 0.1, 0.2, 0.9])
    assert spread is not None
    assert spread.centre == pytest.approx(0.15)
    # Absolute deviations 0.15, 0.05, 0.05, 0.75: their median is 0.1.
    assert spread.deviation == pytest.approx(MAD_TO_DEVIATION * 0.1)
    assert spread.size == 4
    assert SimilaritySpread.of([]) is None


def test_a_second_strong_match_does_not_hide_the_first() -> None:
    """Seven memories, two of them close to the query (the cat allergy and the octopus
    documentary for "animals"): a standard deviation would be inflated by the pair and put
    the allergy at 1.4; the robust spread leaves it far above the rest."""
    similarities = [0.43, 0.50, 0.09, 0.09, 0.07, 0.02, 0.0]
    spread = SimilaritySpread.of(similarities)
    assert spread is not None
    assert distinctiveness(0.43, spread, SPECIFIC) > 3.0


def test_distinctiveness_counts_deviations_above_the_centre_with_a_floored_deviation() -> None:
    spread = SimilaritySpread(centre=0.1, deviation=0.1, size=10)
    assert distinctiveness(0.25, spread, SPECIFIC) == pytest.approx(1.5)
    flat = SimilaritySpread(centre=0.1, deviation=0.0, size=10)
    # A query equally like every memory: the floor (0.05) keeps a hair's difference small.
    assert distinctiveness(0.11, flat, SPECIFIC) == pytest.approx(0.2)


def test_the_spread_is_read_on_the_unclipped_calibrated_scale() -> None:
    assert unclipped_similarity(0.78, 0.78) == 0.0
    assert unclipped_similarity(0.67, 0.78) == pytest.approx(-0.5)
    assert unclipped_similarity(0.89, 0.78) == pytest.approx(0.5)


def test_a_match_that_stands_out_is_recognised_one_that_does_not_is_not() -> None:
    """Both sides of the distinctiveness bar (1.5 deviations) and of the floor (0.1)."""
    spread = SimilaritySpread(centre=0.1, deviation=0.1, size=10)
    assert recognised(0.26, NodeType.FACT, SPECIFIC, spread=spread)
    assert not recognised(0.24, NodeType.FACT, SPECIFIC, spread=spread)
    low = SimilaritySpread(centre=0.0, deviation=0.02, size=10)
    assert recognised(0.11, NodeType.FACT, SPECIFIC, spread=low)
    assert not recognised(0.09, NodeType.FACT, SPECIFIC, spread=low)


def test_without_a_spread_a_specific_match_cannot_be_shown() -> None:
    assert not recognised(0.9, NodeType.FACT, SPECIFIC, spread=None)
    absolute = ScoringConfig(recognition_min_distinctiveness=None)
    bar = absolute.recognition_min_similarity
    assert recognised(bar, NodeType.FACT, absolute)
    assert not recognised(bar - 0.01, NodeType.FACT, absolute)


def test_inferences_and_an_operators_noise_are_never_recognised() -> None:
    spread = SimilaritySpread(centre=0.0, deviation=0.1, size=10)
    assert not recognised(0.9, NodeType.HYPOTHESIS, SPECIFIC, spread=spread)
    note = NodeType.EMOTIONAL_NOTE
    # Issue 32: a negative note a question singles out is recognised like any note ...
    assert recognised(0.9, note, SPECIFIC, Valence.NEGATIVE, spread)
    # ... unless the operator lists its valence as noise.
    noise = SPECIFIC.model_copy(update={"unrecognised_valences": (Valence.NEGATIVE,)})
    assert not recognised(0.9, note, noise, Valence.NEGATIVE, spread)
    assert recognised(0.9, note, SPECIFIC, Valence.POSITIVE, spread)


def test_words_and_meaning_together_recognise() -> None:
    """Issue 32's words-and-meaning rule: lexical relevance at least `recognition_min_lexical` and
    `recognition_lexical_distinctiveness` deviations out; both sides of each bar."""
    spread = SimilaritySpread(centre=0.1, deviation=0.1, size=10)
    words = ScoringConfig(recognition_min_lexical=0.5, recognition_lexical_distinctiveness=0.5)
    assert recognised(0.16, NodeType.FACT, words, spread=spread, lexical=0.5)
    assert not recognised(0.16, NodeType.FACT, words, spread=spread, lexical=0.49)
    assert not recognised(0.14, NodeType.FACT, words, spread=spread, lexical=1.0)
    assert not recognised(0.16, NodeType.FACT, SPECIFIC, spread=spread, lexical=1.0)


def test_the_sweeper_deletes_a_faded_negative_note_only_once_superseded() -> None:
    """Issue 32, deletion is for noise: a superseded transient feeling; an unended negative note
    is kept faded (a question may single it out); operators may restore the old rule."""
    note = NodeType.EMOTIONAL_NOTE
    assert deleted_when_faded(note, Valence.NEGATIVE, superseded=True)
    assert not deleted_when_faded(note, Valence.NEGATIVE, superseded=False)
    assert not deleted_when_faded(note, Valence.POSITIVE, superseded=True)
    assert not deleted_when_faded(NodeType.FACT, None, superseded=True)
    every = FadingConfig(noise_only_when_superseded=False)
    assert deleted_when_faded(note, Valence.NEGATIVE, every, superseded=False)
    assert deleted_when_faded(
        NodeType.EVENT, None, FadingConfig(deleted_when_faded=(NodeType.EVENT,))
    )
