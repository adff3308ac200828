from __future__ import annotations

from datetime import UTC, datetime

import pytest

from selfimprint.domain.ingestion import plan_ingestion
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.verbatim_extraction import VerbatimConfig, pieces, verbatim_extraction

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


def test_a_long_message_becomes_atomic_memories_that_keep_every_word() -> None:
    text = " ".join(f"Sentence number {n} says something about the trip." for n in range(20))
    extraction = verbatim_extraction([msg("m1", text)])
    contents = [c.content for c in extraction.candidates]
    assert len(contents) > 1
    assert all(len(c) <= 300 and c.endswith("trip.") for c in contents)
    assert " ".join(contents) == text
    assert {c.source_message_ids for c in extraction.candidates} == {("m1",)}
    assert len({c.ref for c in extraction.candidates}) == len(contents)
    plan = plan_ingestion(extraction, [msg("m1", text)], user_id="u1", now=NOW)
    assert len(plan.nodes) == len(contents)


def test_clip_keeps_only_the_first_sentences_that_fit() -> None:
    text = "First sentence is here. " * 30
    (candidate,) = verbatim_extraction(
        [msg("m1", text)], VerbatimConfig(long_messages="clip")
    ).candidates
    assert len(candidate.content) <= 300
    assert candidate.content.endswith("here.")


def test_a_sentence_longer_than_the_cap_is_cut_at_words() -> None:
    sentence = " ".join(["word"] * 100) + " " + "x" * 40
    runs = pieces(sentence, 50)
    assert all(len(r) <= 50 for r in runs)
    assert " ".join(runs) == sentence


def test_four_long_messages_fit_one_batch() -> None:
    text = " ".join(f"Sentence number {n} says something about the trip." for n in range(200))
    extraction = verbatim_extraction([msg(f"m{i}", text) for i in range(4)])
    per_message = {
        m: sum(1 for c in extraction.candidates if c.source_message_ids == (m,))
        for m in ("m0", "m1", "m2", "m3")
    }
    assert per_message == dict.fromkeys(per_message, 16)
