from __future__ import annotations

from datetime import UTC, datetime

import pytest

from selfimprint.domain.ingestion import plan_ingestion
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.verbatim_extraction import verbatim_extraction

pytestmark = pytest.mark.unit

NOW = datetime(2026, 3, 20, 10, tzinfo=UTC)


def msg(mid: str, text: str, role: Role = Role.USER) -> Message:
    return Message(id=mid, role=role, text=text, sent_at=NOW)


def test_each_user_message_becomes_one_memory_with_its_source() -> None:
    extraction = verbatim_extraction(
        [
            msg("m1", "У меня собеседование в Яндексе 28 марта, я очень волнуюсь."),
            msg("m2", "Sounds stressful, good luck!", Role.ASSISTANT),
            msg("m3", "ok"),
        ]
    )
    assert [c.content for c in extraction.candidates] == [
        "У меня собеседование в Яндексе 28 марта, я очень волнуюсь."
    ]
    assert extraction.candidates[0].source_message_ids == ("m1",)
    plan = plan_ingestion(
        extraction, [msg("m1", "У меня собеседование в Яндексе 28 марта.")], user_id="u1", now=NOW
    )
    assert [n.sources for n in plan.nodes] == [("m1",)]


def test_long_messages_are_clipped_at_a_sentence_boundary() -> None:
    text = "First sentence is here. " * 30
    (candidate,) = verbatim_extraction([msg("m1", text)]).candidates
    assert len(candidate.content) <= 300
    assert candidate.content.endswith("here.")
