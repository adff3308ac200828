"""A feeling with its cause ("Злюсь на себя из-за провала, надо было...") is an emotional note
even when the head reads the whole message as something else (domain.structured.extractor)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from selfimprint.domain.ingestion.extraction import CandidateType
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.models import Valence
from selfimprint.domain.structured.extractor import structured_extraction, texts_to_embed
from selfimprint.domain.structured.head import ExtractionHead, Softmax

pytestmark = pytest.mark.unit

TYPES = ("fact", "event", "emotional_note", "person", "open_loop", "none")
# Two-dimensional "embeddings": [1, 0] reads as an open loop, [0, 1] as a feeling.
HEAD = ExtractionHead(
    embedding_model="test",
    types=Softmax(
        labels=TYPES,
        weights=((0, 0), (0, 0), (0, 4), (0, 0), (4, 0), (0, 0)),
        bias=(0,) * 6,
    ),
    valence=Softmax(labels=("positive", "negative", "none"), weights=((0, 0),) * 3, bias=(0, 1, 0)),
)


def _types(text: str, effect: str) -> list[tuple[str, CandidateType, Valence | None]]:
    message = Message(id="m1", role=Role.USER, text=text, sent_at=datetime(2026, 3, 19, tzinfo=UTC))
    vectors = {t: [0.0, 1.0] if t == effect else [1.0, 0.0] for t in texts_to_embed([message], [])}
    answer = structured_extraction([message], [], vectors, HEAD, similarity_floor=0.0)
    return [(c.content, c.type, c.valence) for c in answer.candidates]


def test_a_feeling_with_its_cause_is_an_emotional_note() -> None:
    text = "Злюсь на себя из-за провального собеседования, надо было готовиться с Мартой."
    found = _types(text, "Злюсь на себя")
    assert (text, CandidateType.EMOTIONAL_NOTE, Valence.NEGATIVE) in found


def test_a_cause_without_a_feeling_keeps_the_head_s_type() -> None:
    text = "Отложил переезд из-за ремонта в новой квартире."
    found = _types(text, "Отложил переезд")
    assert (text, CandidateType.OPEN_LOOP, None) in found
