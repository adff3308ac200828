"""A message contradicts what an earlier message of its own batch said, not only older memories
(domain.structured.extractor): with batches of 12 messages, "I work at Initech" and "I quit
Initech" often arrive together."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from selfimprint.domain.messages import Message, Role
from selfimprint.domain.structured.extractor import structured_extraction, texts_to_embed
from selfimprint.domain.structured.head import ExtractionHead, Softmax

pytestmark = pytest.mark.unit

# Every piece reads as a fact: the test is about slots, not types.
HEAD = ExtractionHead(
    embedding_model="test",
    types=Softmax(
        labels=("fact", "event", "emotional_note", "person", "open_loop", "none"),
        weights=((0,),) * 6,
        bias=(4, 0, 0, 0, 0, 0),
    ),
    valence=Softmax(labels=("positive", "negative", "none"), weights=((0,),) * 3, bias=(0, 0, 4)),
)
SENT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _contradicted(*texts: str) -> dict[str, tuple[str, ...]]:
    """Content -> the contents it contradicts, for one batch of these messages."""
    messages = [
        Message(id=f"m{i}", role=Role.USER, text=t, sent_at=SENT + timedelta(minutes=i))
        for i, t in enumerate(texts)
    ]
    vectors = {t: [1.0] for t in texts_to_embed(messages, [])}
    answer = structured_extraction(messages, [], vectors, HEAD, similarity_floor=0.0)
    by_ref = {c.ref: c.content for c in answer.candidates}
    return {
        c.content: tuple(by_ref[r] for r in c.contradicts_memory_ids) for c in answer.candidates
    }


def test_a_message_contradicts_an_earlier_message_of_its_batch() -> None:
    found = _contradicted(
        "I work as a backend developer at Initech.",
        "We had pizza for lunch today.",
        "Actually I quit Initech, I am not working there anymore.",
    )
    assert found["Actually I quit Initech, I am not working there anymore."] == (
        "I work as a backend developer at Initech.",
    )
    assert found["I work as a backend developer at Initech."] == ()


def test_the_pieces_of_one_message_do_not_contradict_each_other() -> None:
    # A long message is split into pieces; a change told in one message is one statement, not
    # a tension with itself.
    found = _contradicted(
        "I work as a backend developer at Initech, mostly on the Java services that handle "
        "billing, invoices, refunds and the reports that the finance team reads every Monday. "
        "Actually I quit Initech last month, I am not working there anymore, and I am looking "
        "for a new role somewhere with a shorter commute and a team that ships small changes."
    )
    assert len(found) == 2
    assert all(not hits for hits in found.values())
