"""Whatever a user types, structured extraction answers a valid Extraction whose every memory is
a span of the user's own message, up to whitespace (so the grounding guard keeps it)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from selfimprint.domain.grounding import DEFAULT_GROUNDING, ground
from selfimprint.domain.ingestion.extraction import RecentMemory
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.models import NodeType
from selfimprint.domain.structured.extractor import structured_extraction, texts_to_embed
from selfimprint.domain.structured.head import shipped_head

pytestmark = pytest.mark.unit

SENT = datetime(2026, 5, 5, 23, 59, tzinfo=UTC)
RECENT = [
    RecentMemory(id="r1", type=NodeType.FACT, content="I work at Initech."),
    RecentMemory(id="r2", type=NodeType.PERSON, content="My sister Anna"),
]
ODD = [
    "🙂🙂🙂",
    "def f(x):\n    return x  # because reasons",
    "Я" * 2_000,
    "because because because so so so",
    "из-за из-за, потому что",
    "I quit  . I quit there anymore anymore",
    "明天我去北京 because 我很累",
    "on 31.02 and 99.99.9999 at 25:61, the 0th of Smarch",
    "Mr. Dr. Prof. and my sister, my sister, my sister",
    "Марта Марта Марта, моя моя коллега коллега",
    "\x00\x01 control \u200b zero-width",
    # Shouted words before a colon read like a speaker's label ("Caroline: hey"): they are
    # still the user's own words, so a memory that repeats them is grounded (issue 34).
    "FAR EXAM: 74!!! ONE DOWN TWO TO GO, so proud",
]


def _extract(text: str) -> None:
    if not text.strip():
        return  # the message model refuses blank text (the API answers 422)
    message = Message(id="m1", role=Role.USER, sent_at=SENT, text=text)
    head = shipped_head()
    texts = texts_to_embed([message], RECENT)
    # Vectors of the head's dimension (all equal): the head runs, cosine ties are harmless.
    dimension = len(head.types.weights[0]) if head else 4
    vectors = {t: [1.0 / dimension**0.5] * dimension for t in texts}
    answer = structured_extraction([message], RECENT, vectors, head, similarity_floor=0.78)
    for candidate in answer.candidates:
        # A span of the message, up to the whitespace that long messages are re-joined with.
        assert candidate.content and " ".join(candidate.content.split()) in " ".join(
            text.split()
        ), candidate
        assert candidate.source_message_ids == ("m1",)
        verdict = ground(
            candidate.content, candidate.source_message_ids, [message], DEFAULT_GROUNDING
        )
        assert verdict.holds(DEFAULT_GROUNDING), candidate


@pytest.mark.parametrize("text", ODD)
def test_odd_messages(text: str) -> None:
    _extract(text)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(min_size=1, max_size=300))
def test_any_text(text: str) -> None:
    _extract(text)
