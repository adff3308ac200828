"""Each open-loop cue a message holds counts, up to `open_loop_cues_counted` (issue 34): a
message that says twice that a thing is still pending is an open loop even where the reader
leans to a fact (the demo's "так и не начал готовиться ..., постоянно откладываю")."""

from __future__ import annotations

import pytest

from selfimprint.domain.structured.cues import cues
from selfimprint.domain.structured.extractor import DEFAULT_STRUCTURED, read_type
from selfimprint.domain.structured.head import ExtractionHead, Softmax

pytestmark = pytest.mark.unit

TYPES = ("fact", "event", "emotional_note", "person", "open_loop", "none")
# On the vector [1, 0] this head reads a fact at 0.60 and every other type at 0.08.
HEAD = ExtractionHead(
    embedding_model="test",
    types=Softmax(labels=TYPES, weights=((2, 0),) + ((0, 0),) * 5, bias=(0,) * 6),
    valence=Softmax(labels=("positive", "negative", "none"), weights=((0, 0),) * 3, bias=(0,) * 3),
)
ONE_CUE = "я так и не начал готовиться к собеседованию"
TWO_CUES = "я так и не начал готовиться к собеседованию, постоянно откладываю"
THREE_CUES = "так и не начал готовиться, постоянно откладываю, не могу решить с чего начать"


def _reading(
    text: str, counted: int = DEFAULT_STRUCTURED.open_loop_cues_counted
) -> tuple[str, float]:
    config = DEFAULT_STRUCTURED.model_copy(update={"open_loop_cues_counted": counted})
    reading = read_type(text, [1.0, 0.0], cues("ru"), HEAD, dated=False, config=config)
    return reading.type, reading.scores["open_loop"]


def test_one_cue_does_not_outweigh_a_fact_reading() -> None:
    assert _reading(ONE_CUE)[0] == "fact"


def test_two_cues_make_an_open_loop() -> None:
    assert _reading(TWO_CUES)[0] == "open_loop"


def test_counting_one_cue_leaves_it_a_fact() -> None:
    assert _reading(TWO_CUES, counted=1)[0] == "fact"


def test_cues_beyond_the_count_add_nothing() -> None:
    assert _reading(THREE_CUES)[1] == pytest.approx(_reading(TWO_CUES)[1])
    assert _reading(THREE_CUES, counted=3)[1] > _reading(TWO_CUES)[1]
