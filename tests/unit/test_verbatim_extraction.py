from __future__ import annotations

from datetime import UTC, datetime

import pytest

from selfimprint.domain.ingestion.extraction import (
    CandidateEvidence,
    CandidateType,
    ExtractedMemory,
    Extraction,
)
from selfimprint.domain.ingestion.planner import plan_ingestion
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.verbatim_extraction import (
    VerbatimConfig,
    keep_the_users_words,
    pieces,
    verbatim_extraction,
)

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


def test_the_messages_a_model_invented_about_are_kept_in_the_users_words() -> None:
    """SmolLM2 answered with its prompt's example: the guard drops it, the words stay."""
    messages = [
        msg("m1", "I play chess at the Lisbon club."),
        msg("m2", "My brother Tomas is a nurse."),
    ]
    copied = ExtractedMemory(
        ref="n1",
        type=CandidateType.PERSON,
        content="Anna is the user's sister.",
        importance=0.5,
        valence=None,
        dates_mentioned=(),
        people=("Anna",),
        evidence_kind=CandidateEvidence.SELF_REPORT,
        source_message_ids=("m1",),
        contradicts_memory_ids=(),
    )
    faithful = copied.model_copy(
        update={"ref": "n2", "content": "Brother Tomas is a nurse.", "source_message_ids": ("m2",)}
    )
    answer, kept = keep_the_users_words(
        Extraction(candidates=(copied, faithful), edges=()), messages
    )
    assert kept == ("m1",)
    plan = plan_ingestion(answer, messages, user_id="u1", now=NOW)
    assert sorted(n.content for n in plan.nodes) == [
        "Brother Tomas is a nurse.",
        "I play chess at the Lisbon club.",
    ]
    # Nothing proposed is the model saying "nothing to remember": left alone.
    empty = Extraction(candidates=(), edges=())
    assert keep_the_users_words(empty, messages) == (empty, ())
