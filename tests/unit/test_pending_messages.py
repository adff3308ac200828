"""Read your writes (issue 36): the user's messages not yet extracted, shown in the context."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from selfimprint.config import Settings
from selfimprint.domain.context import (
    DEFAULT_CONTEXT,
    ContextConfig,
    assemble_context,
    count_tokens,
    instruction_line,
    prose_budget,
    prose_context,
)
from selfimprint.domain.models import Belief, Node, NodeType
from selfimprint.domain.pending_messages import (
    NO_PENDING,
    ExtractionBacklog,
    PendingMessage,
    heading,
    pending_allowance,
    pending_block,
    readable_chars,
)
from selfimprint.domain.scoring import ScoredMemory
from selfimprint.domain.session_review import ReviewPrompt, ReviewPromptItem, ReviewSide
from selfimprint.domain.tuning import DomainTuning
from selfimprint.domain.users import UserScope
from selfimprint.ports import RetrievalQuery, RetrievalResult
from selfimprint.prompts.context_summary import context_summary_messages
from selfimprint.service.read_path import ContextMode, build_context, pending_only_context

pytestmark = pytest.mark.unit

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


def said(id: str, text: str, minutes_ago: int = 0, *, clipped: bool = False) -> PendingMessage:
    return PendingMessage(
        id=id, sent_at=NOW - timedelta(minutes=minutes_ago), text=text, clipped=clipped
    )


def block_tokens(*lines: str, language: str = "en") -> int:
    return count_tokens("\n".join([f"{heading(language)}:", *lines]))


def config_with_allowance(tokens: int, budget: int = 400) -> ContextConfig:
    """A config whose block may take exactly `tokens` of a `budget` (the share decides)."""
    config = ContextConfig(pending_budget_share=tokens / budget)
    assert pending_allowance("en", budget, config) == tokens
    return config


# --- the backlog -------------------------------------------------------------------------------


def test_a_backlog_cannot_be_negative() -> None:
    assert ExtractionBacklog().pending == 0 and ExtractionBacklog().oldest_pending_sent_at is None
    with pytest.raises(ValidationError):
        ExtractionBacklog(pending=-1)


# --- the allowance -----------------------------------------------------------------------------


def test_the_block_takes_its_share_of_the_budget() -> None:
    assert pending_allowance("en", 400) == 200  # half of 400 by default
    assert pending_allowance("en", 401) == 200  # rounded down: never over the share
    assert pending_allowance("en", 400, ContextConfig(pending_budget_share=0.0)) == 0


def test_the_block_never_takes_what_the_instruction_line_needs() -> None:
    instruction = count_tokens(instruction_line("en"))
    everything = ContextConfig(pending_budget_share=1.0)
    assert pending_allowance("en", 400, everything) == 400 - instruction - 1
    assert pending_allowance("en", instruction, everything) == 0  # nothing left: none, not < 0


def test_a_longer_text_than_the_log_reads_could_never_fit_whole() -> None:
    budget = 400
    limit = readable_chars(budget)
    cheapest_text = "a" * limit  # ASCII letters are the cheapest characters
    assert count_tokens(cheapest_text) > pending_allowance("en", budget)
    assert readable_chars(4000, ContextConfig(pending_budget_share=1.0)) <= 32_000


# --- which messages, in what order -------------------------------------------------------------


def test_newest_first_whatever_order_the_log_gave() -> None:
    block = pending_block(
        [said("m1", "First thing.", 3), said("m3", "Third thing.", 1), said("m2", "Second.", 2)],
        language="en",
        budget_tokens=400,
    )
    assert [m.id for m in block.shown] == ["m3", "m2", "m1"]
    assert block.text == (f"{heading('en')}:\n- Third thing.\n- Second.\n- First thing.")
    assert block.tokens == count_tokens(block.text) and not any(m.truncated for m in block.shown)


def test_at_most_the_configured_number_of_messages() -> None:
    messages = [said(f"m{i}", f"Message number {i}.", minutes_ago=i) for i in range(4)]
    three = ContextConfig(max_pending_messages=3)
    four = ContextConfig(max_pending_messages=4)
    assert [
        m.id for m in pending_block(messages, language="en", budget_tokens=400, config=three).shown
    ] == ["m0", "m1", "m2"]
    assert len(pending_block(messages, language="en", budget_tokens=400, config=four).shown) == 4
    assert (
        pending_block(
            messages, language="en", budget_tokens=400, config=ContextConfig(max_pending_messages=0)
        )
        == NO_PENDING
    )


def test_the_requests_own_message_is_not_repeated() -> None:
    messages = [said("m2", "  How did  the interview go? ", 0), said("m1", "I had it today.", 1)]
    block = pending_block(
        messages, language="en", budget_tokens=400, current_message="how did the interview go?"
    )
    assert [m.id for m in block.shown] == ["m1"]
    other = pending_block(
        messages, language="en", budget_tokens=400, current_message="How did the talk go?"
    )
    assert [m.id for m in other.shown] == ["m2", "m1"]


def test_whitespace_is_collapsed_and_nothing_else_changes() -> None:
    (shown,) = pending_block(
        [said("m1", "My  sister\nAnna moves to Lisbon!")], language="en", budget_tokens=400
    ).shown
    assert shown.text == "My sister Anna moves to Lisbon!" and not shown.truncated


def test_the_section_is_headed_in_the_contexts_language() -> None:
    message = [said("m1", "Переезжаю в Казань.")]
    ru = pending_block(message, language="ru", budget_tokens=400)
    uk = pending_block(message, language="uk", budget_tokens=400)
    de = pending_block(message, language="de", budget_tokens=400)
    assert ru.text.startswith("Только что сказано, ещё не обработано")
    assert uk.text.startswith("Щойно сказано, ще не оброблено")
    assert de.text.startswith("Just said, not yet processed")  # other languages: English


# --- the budget cut ----------------------------------------------------------------------------


def test_a_message_that_fits_exactly_is_whole_and_one_token_more_is_cut() -> None:
    text = "word " * 30
    text = text.strip()
    exact = block_tokens(f"- {text}")
    config = config_with_allowance(exact)
    whole = pending_block([said("m1", text)], language="en", budget_tokens=400, config=config)
    assert whole.shown[0].text == text and not whole.shown[0].truncated
    assert whole.tokens == exact

    tight = config_with_allowance(exact - 1)
    cut = pending_block([said("m1", text)], language="en", budget_tokens=400, config=tight)
    (shown,) = cut.shown
    assert shown.truncated and shown.text.endswith("…") and text.startswith(shown.text[:-1])
    assert cut.tokens <= exact - 1
    longer = shown.text[:-1] + text[len(shown.text) - 1] + "…"  # one character more
    assert block_tokens(f"- {longer}") > exact - 1  # the cut is the longest that fits


def test_a_cut_shorter_than_the_minimum_is_not_shown_and_nothing_older_follows() -> None:
    newest = said("m2", "a" * 200, 0)
    older = said("m1", "Short.", 1)
    room = block_tokens("- " + "a" * 30 + "…")
    at_minimum = ContextConfig(
        pending_budget_share=room / 400, min_pending_chars=30, max_pending_messages=5
    )
    shown = pending_block([newest, older], language="en", budget_tokens=400, config=at_minimum)
    assert [(m.id, len(m.text), m.truncated) for m in shown.shown] == [("m2", 31, True)]

    above_minimum = at_minimum.model_copy(update={"min_pending_chars": 31})
    assert (
        pending_block([newest, older], language="en", budget_tokens=400, config=above_minimum)
        == NO_PENDING
    )


def test_a_message_the_log_clipped_is_shown_cut_even_when_its_start_fits() -> None:
    (shown,) = pending_block(
        [said("m1", "The start of a very long story", clipped=True)],
        language="en",
        budget_tokens=400,
    ).shown
    assert shown.truncated and shown.text == "The start of a very long story…"


def test_nothing_fits_in_a_budget_the_instruction_line_fills() -> None:
    tiny = count_tokens(instruction_line("en")) + 2
    assert pending_block([said("m1", "Hi there.")], language="en", budget_tokens=tiny) == NO_PENDING


# --- in the context ----------------------------------------------------------------------------


def fact(id: str, content: str) -> Node:
    return Node(
        id=id,
        user_id="u",
        type=NodeType.FACT,
        content=content,
        weight_at=NOW - timedelta(days=1),
        created_at=NOW - timedelta(days=1),
        sources=(f"msg-{id}",),
        belief=Belief(first_seen=NOW - timedelta(days=1)),
    )


def scored(id: str, score: float) -> ScoredMemory:
    return ScoredMemory(id=id, score=score, similarity=score, recency=1.0, effective_weight=1.0)


def review(*beliefs: str) -> ReviewPrompt:
    return ReviewPrompt(
        id="r1",
        session=10,
        items=tuple(
            ReviewPromptItem(memory_id=f"b{i}", content=b, confidence=0.9, side=ReviewSide.HIGHEST)
            for i, b in enumerate(beliefs)
        ),
    )


@settings(max_examples=150, deadline=None)
@given(
    texts=st.lists(st.text(min_size=1, max_size=400).filter(str.strip), min_size=1, max_size=12),
    memories=st.lists(st.text(min_size=1, max_size=200).filter(str.strip), max_size=15),
    budget=st.integers(min_value=50, max_value=600),
    language=st.sampled_from(["en", "ru", "uk", "de"]),
    share=st.floats(min_value=0.0, max_value=1.0),
)
def test_pending_messages_never_push_the_context_over_its_budget(
    texts: list[str], memories: list[str], budget: int, language: str, share: float
) -> None:
    config = ContextConfig(pending_budget_share=share)
    messages = [said(f"p{i}", t, minutes_ago=i) for i, t in enumerate(texts)]
    block = pending_block(messages, language=language, budget_tokens=budget, config=config)
    nodes = [fact(f"n{i}", c) for i, c in enumerate(memories)]
    context = assemble_context(
        [scored(n.id, 1.0 - i / 100) for i, n in enumerate(nodes)],
        nodes,
        [],
        [],
        language=language,
        now=NOW,
        budget_tokens=budget,
        config=config,
        review=review("Lives in Leeds.", "Works as a nurse."),
        pending_text=block.text,
    )
    assert context.tokens <= budget and count_tokens(context.text) <= budget
    assert block.tokens <= pending_allowance(language, budget, config)
    # The block is never the part that gives way: sized to fit beside the instruction line.
    assert context.pending_text == block.text
    for shown in block.shown:
        assert f"- {shown.text}" in context.text


def test_the_block_comes_after_the_memories_and_before_the_review() -> None:
    block = pending_block(
        [said("m1", "My sister Anna moves to Lisbon.")], language="en", budget_tokens=400
    )
    context = assemble_context(
        [scored("a", 0.9)],
        [fact("a", "Works as a nurse.")],
        [],
        [],
        language="en",
        now=NOW,
        review=review("Lives in Leeds."),
        pending_text=block.text,
    )
    text = context.text
    assert (
        text.index("Works as a nurse.") < text.index(heading("en")) < text.index("Lives in Leeds")
    )
    assert context.closing_text.startswith(block.text) and context.pending_text == block.text


def test_the_review_gives_way_to_what_the_user_just_said() -> None:
    budget = 120
    block = pending_block(
        [said("m1", "word " * 200)], language="en", budget_tokens=budget
    )  # cut to its whole allowance
    asked = review(*(f"Belief number {i} about the user's life and work." for i in range(4)))
    context = assemble_context(
        [],
        [],
        [],
        [],
        language="en",
        now=NOW,
        budget_tokens=budget,
        review=asked,
        pending_text=block.text,
    )
    assert context.text == f"{instruction_line('en')}\n{block.text}"
    assert context.review == asked  # still in the answer's `review` field
    without = assemble_context(
        [], [], [], [], language="en", now=NOW, budget_tokens=budget, review=asked
    )
    assert "Belief number 0" in without.text  # it fitted alone


def test_prose_keeps_the_block_verbatim_and_does_not_summarise_it() -> None:
    block = pending_block(
        [said("m1", "My sister Anna moves to Lisbon.")], language="en", budget_tokens=400
    )
    extractive = assemble_context(
        [scored("a", 0.9)],
        [fact("a", "Works as a nurse.")],
        [],
        [],
        language="en",
        now=NOW,
        pending_text=block.text,
    )
    _, user = context_summary_messages(extractive, "Hi", budget_tokens=400)
    assert "Works as a nurse." in user["content"] and "Lisbon" not in user["content"]
    assert prose_budget("en", 400, closing_text=extractive.closing_text) < prose_budget("en", 400)
    prose = prose_context(extractive, "A nurse.")
    assert prose is not None and prose.text.endswith(block.text)


# --- the read path -----------------------------------------------------------------------------


class StillEmbedder:
    model_id = "e5"
    dimension = 3
    similarity_floor = 0.0

    def embed_queries(self, texts: Any) -> list[list[float]]:
        return [[1.0, 0.0, 0.0] for _ in texts]

    def embed_passages(self, texts: Any) -> list[list[float]]:
        return self.embed_queries(texts)


@dataclass
class ReadResources:
    tuning: DomainTuning = field(default_factory=DomainTuning)
    settings: Settings = field(default_factory=Settings)
    embedder: StillEmbedder = field(default_factory=StillEmbedder)
    clock: Callable[[], datetime] = lambda: NOW
    graph: Any = None
    llm: Any = None


async def nothing_remembered(_: RetrievalQuery) -> RetrievalResult:
    return RetrievalResult(candidates=(), neighbours=(), edges=())


async def test_the_read_path_shows_what_was_just_said_with_the_tuned_limits() -> None:
    messages = [said("m2", "My sister Anna moves to Lisbon.", 0), said("m1", "Big news.", 1)]
    one = ReadResources(tuning=DomainTuning(context=ContextConfig(max_pending_messages=1)))
    outcome = await build_context(
        one,
        UserScope("t1", "u1"),
        "What should I get her?",
        400,
        ContextMode.FAST,
        nothing_remembered,
        pending=messages,
    )
    assert [m.id for m in outcome.pending.shown] == ["m2"]
    assert outcome.context.text == (
        f"{instruction_line('en')}\n{heading('en')}:\n- My sister Anna moves to Lisbon."
    )
    assert outcome.context.tokens <= 400

    plain = await build_context(
        ReadResources(), UserScope("t1", "u1"), "Hi", 400, ContextMode.FAST, nothing_remembered
    )
    assert plain.pending == NO_PENDING and plain.context.text == ""


async def test_prose_mode_with_nothing_remembered_keeps_the_pending_block() -> None:
    outcome = await build_context(
        ReadResources(),
        UserScope("t1", "u1"),
        "Hi",
        400,
        ContextMode.PROSE,
        nothing_remembered,
        pending=[said("m1", "I got the job!")],
    )
    assert outcome.mode is ContextMode.FAST
    assert outcome.fallback_reason == "no memories to summarise"
    assert outcome.context.text.endswith("- I got the job!")


def test_an_archived_user_still_gets_what_they_just_said() -> None:
    outcome = pending_only_context(
        ReadResources(), "Как дела?", 400, [said("m1", "Я переезжаю в Казань.")]
    )
    assert outcome.context.language == "ru"
    assert outcome.context.text == (
        f"{instruction_line('ru')}\n{heading('ru')}:\n- Я переезжаю в Казань."
    )
    assert outcome.context.tokens <= DEFAULT_CONTEXT.budget_tokens
    empty = pending_only_context(ReadResources(), "Hi", 400, [])
    assert empty.context.text == "" and empty.pending == NO_PENDING
