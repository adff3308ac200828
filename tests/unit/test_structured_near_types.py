"""The types the structured reader nearly chose (issue 33: when the type is uncertain, the
slower curve wins; the planner applies it, `test_ingestion`)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from selfimprint.domain.ingestion.extraction import CandidateType
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.structured.extractor import structured_extraction, texts_to_embed
from selfimprint.domain.structured.head import ExtractionHead, Softmax

pytestmark = pytest.mark.unit

TYPES = ("fact", "event", "emotional_note", "person", "open_loop", "none")
# A feeling slightly ahead of a fact on [1, 1] (probabilities 0.48 / 0.43); a feeling alone on
# [0, 1].
HEAD = ExtractionHead(
    embedding_model="test",
    types=Softmax(
        labels=TYPES,
        weights=((3, 0), (0, 0), (0, 3.1), (0, 0), (0, 0), (0, 0)),
        bias=(0,) * 6,
    ),
    valence=Softmax(
        labels=("positive", "negative", "none"), weights=((0, 0), (0, 1), (0, 0)), bias=(0,) * 3
    ),
)
TEXT = "Rain again, the usual on the walk back."


def _read(vector: list[float]) -> tuple[str, tuple[CandidateType, ...]]:
    message = Message(id="m1", role=Role.USER, text=TEXT, sent_at=datetime(2026, 3, 1, tzinfo=UTC))
    vectors = dict.fromkeys(texts_to_embed([message], []), vector)
    answer = structured_extraction([message], [], vectors, HEAD, similarity_floor=0.0)
    (candidate,) = answer.candidates
    near = next((n.types for n in answer.near if n.ref == candidate.ref), ())
    return candidate.type.value, near


def test_a_close_second_type_is_a_near_reading() -> None:
    assert _read([1.0, 1.0]) == ("emotional_note", (CandidateType.FACT,))


def test_a_clear_reading_has_none() -> None:
    assert _read([0.0, 1.0]) == ("emotional_note", ())
