"""What a memory was said in reply to (domain.reply_context), and what retrieval does with it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from selfimprint.domain.ingestion.extraction import CandidateType, ExtractedMemory, Extraction
from selfimprint.domain.ingestion.planner import plan_ingestion
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.reply_context import (
    context_of,
    context_terms,
    contextual_passage,
    replied_to,
)
from selfimprint.domain.terms import lexical_relevance, search_terms

pytestmark = pytest.mark.unit

NOW = datetime(2026, 5, 4, 18, 0, tzinfo=UTC)


def message(i: int, text: str, role: Role = Role.USER) -> Message:
    return Message(id=f"m{i}", role=role, text=text, sent_at=NOW + timedelta(seconds=i))


ASKED = message(1, "What did you paint at the class?", Role.ASSISTANT)
ANSWER = message(2, "A sunset over the harbour.")
MORE = message(3, "It took me three evenings.")


def test_each_user_message_replies_to_the_one_before_it() -> None:
    assert replied_to([ASKED, ANSWER, MORE], None, 300) == {
        "m2": "What did you paint at the class?",
        "m3": "A sunset over the harbour.",
    }


def test_the_first_message_of_a_batch_replies_to_the_message_before_the_batch() -> None:
    assert replied_to([ANSWER], ASKED, 300) == {"m2": "What did you paint at the class?"}
    assert replied_to([ANSWER], None, 300) == {}  # the first message of a conversation


def test_a_long_message_is_kept_by_its_end_at_a_word_and_0_turns_it_off() -> None:
    long = message(1, "word " * 100 + "so what did you paint?", Role.ASSISTANT)
    context = replied_to([long, ANSWER], None, 40)["m2"]
    assert context.endswith("so what did you paint?")
    assert len(context) <= 40 and not context.startswith("ord")
    assert replied_to([ASKED, ANSWER], None, 0) == {}


def test_a_memory_takes_its_first_source_s_context() -> None:
    replies = {"m2": "What did you paint?"}
    assert context_of(("m2", "m3"), replies) == "What did you paint?"
    assert context_of(("m3", "m2"), replies) is None
    assert context_of((), replies) is None
    assert contextual_passage("Q?", "A.") == "Q?\nA."


def test_context_terms_are_the_reply_s_words_the_memory_does_not_hold() -> None:
    terms = context_terms("What did you paint at the harbour?", "A sunset over the harbour.")
    assert "paint" in terms
    assert "harbour" not in terms  # the memory's own
    assert set(terms) <= set(search_terms("What did you paint at the harbour?"))


def test_a_term_only_the_reply_context_holds_counts_its_share() -> None:
    idf = {"paint": 2.0, "sunset": 1.0}
    query = ["paint", "sunset"]
    own = lexical_relevance(query, ["sunset"], idf)
    assert own == pytest.approx(1 / 3)
    with_context = lexical_relevance(query, ["sunset"], idf, ["paint"], 0.5)
    assert with_context == pytest.approx((1.0 + 0.5 * 2.0) / 3.0)
    # A term the memory holds itself counts whole, whatever the context says.
    assert lexical_relevance(query, ["sunset", "paint"], idf, ["paint"], 0.5) == 1.0
    assert lexical_relevance(query, ["sunset"], idf, ["paint"], 0.0) == own


def _answer(ref: str = "n1") -> Extraction:
    return Extraction(
        candidates=(
            ExtractedMemory(
                ref=ref,
                type=CandidateType.FACT,
                content="A sunset over the harbour.",
                importance=0.5,
                valence=None,
                dates_mentioned=(),
                people=(),
                evidence_kind="self_report",
                source_message_ids=("m2",),
                contradicts_memory_ids=(),
            ),
        ),
        edges=(),
    )


def test_a_new_memory_keeps_its_reply_context_vector_and_terms() -> None:
    plan = plan_ingestion(
        _answer(),
        [ASKED, ANSWER],
        user_id="u-1",
        now=NOW + timedelta(minutes=1),
        embeddings={"n1": [1.0, 0.0]},
        embedding_model="e5",
        context_embeddings={"n1": [0.6, 0.8]},
        replies=replied_to([ASKED, ANSWER], None, 300),
    )
    (node,) = plan.nodes
    assert node.content == "A sunset over the harbour."  # the user's words, not the question's
    assert node.context_embedding == (0.6, 0.8)
    assert "paint" in node.context_terms


def test_without_the_vector_or_the_reply_a_memory_has_no_context() -> None:
    later = NOW + timedelta(minutes=1)
    vectors = {"n1": [1.0, 0.0]}
    no_vector = plan_ingestion(
        _answer(),
        [ASKED, ANSWER],
        user_id="u-1",
        now=later,
        embeddings=vectors,
        embedding_model="e5",
        replies={"m2": ASKED.text},
    )
    no_reply = plan_ingestion(
        _answer(),
        [ASKED, ANSWER],
        user_id="u-1",
        now=later,
        embeddings=vectors,
        embedding_model="e5",
        context_embeddings={"n1": [0.6, 0.8]},
    )
    for plan in (no_vector, no_reply):
        (node,) = plan.nodes
        assert node.context_embedding is None and node.context_terms == ()
