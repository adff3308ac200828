"""An occasion changed in other words (issue 34): a message that says a plan moved or was called
off, and shares no word with the occasion, is matched to the closest upcoming occasion by its
passage embedding, through `structured_extraction`: both sides of `occasion_match`."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from selfimprint.domain.ingestion.extraction import RecentMemory
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.models import NodeType
from selfimprint.domain.structured.extractor import (
    DEFAULT_STRUCTURED,
    structured_extraction,
    texts_to_embed,
)

pytestmark = pytest.mark.unit

FLOOR = 0.5
TEXT = "Rotto's off. ferry's booked out"
RECENT = [
    RecentMemory(
        id="trip", type=NodeType.EVENT, content="I'm taking Ellie to Rottnest on March 28."
    ),
    RecentMemory(id="job", type=NodeType.FACT, content="I work at Tanami Electrical."),
]


def _at(calibrated: float) -> list[float]:
    """A unit vector whose calibrated similarity to [1, 0] is `calibrated`."""
    cosine = FLOOR + calibrated * (1.0 - FLOOR)
    return [cosine, math.sqrt(1.0 - cosine * cosine)]


def _contradicted(text: str, calibrated: float) -> set[str]:
    message = Message(id="m1", role=Role.USER, text=text, sent_at=datetime(2026, 3, 2, tzinfo=UTC))
    texts = texts_to_embed([message], RECENT)
    vectors = dict.fromkeys(texts, [0.0, 1.0])
    vectors[text] = [1.0, 0.0]
    vectors[RECENT[0].content] = _at(calibrated)
    answer = structured_extraction([message], RECENT, vectors, None, similarity_floor=FLOOR)
    return {i for c in answer.candidates for i in c.contradicts_memory_ids}


def test_the_older_occasions_are_embedded_only_for_a_changed_plan() -> None:
    changed = Message(id="m1", role=Role.USER, text=TEXT, sent_at=datetime(2026, 3, 2, tzinfo=UTC))
    other = changed.model_copy(update={"text": "ferry was lovely, Ellie's thrilled"})
    assert RECENT[0].content in texts_to_embed([changed], RECENT)
    assert RECENT[0].content not in texts_to_embed([other], RECENT)


def test_a_plan_called_off_in_other_words_at_the_threshold() -> None:
    match = DEFAULT_STRUCTURED.occasion_match
    assert _contradicted(TEXT, match + 0.01) == {"trip"}
    assert _contradicted(TEXT, match - 0.01) == set()
