"""Extractive context assembly (spec §3.4, DESIGN.md §5 read path)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from selfimprint.domain.context import (
    AssembledContext,
    PreparedQuestion,
    assemble_context,
    count_tokens,
    instruction_line,
    prose_budget,
    prose_context,
)
from selfimprint.domain.models import Belief, Edge, EdgeType, Node, NodeType, Valence
from selfimprint.domain.recognition import SimilaritySpread
from selfimprint.domain.scoring import DEFAULT_SCORING, ScoredMemory, ScoringConfig
from selfimprint.domain.session_review import ReviewPrompt, ReviewPromptItem, ReviewSide

pytestmark = pytest.mark.unit

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


def node(id: str, content: str, type: NodeType = NodeType.FACT, **fields: Any) -> Node:
    values: dict[str, Any] = {
        "id": id,
        "user_id": "u",
        "type": type,
        "content": content,
        "weight_at": NOW - timedelta(days=1),
        "created_at": NOW - timedelta(days=1),
        "sources": (f"msg-{id}",),
        "belief": Belief(first_seen=NOW - timedelta(days=1)),
    }
    if type is NodeType.EMOTIONAL_NOTE:
        values["valence"] = Valence.NEGATIVE
    if type is NodeType.HYPOTHESIS:
        values["is_inference"] = True
    return Node.model_validate(values | fields)


def scored(id: str, score: float) -> ScoredMemory:
    return ScoredMemory(id=id, score=score, similarity=score, recency=1.0, effective_weight=1.0)


def link(source: str, target: str, type: EdgeType = EdgeType.CAUSED_BY) -> Edge:
    return Edge(source_id=source, target_id=target, type=type, created_at=NOW)


def assemble(
    nodes: list[tuple[Node, float]],
    neighbours: list[Node] | None = None,
    edges: list[Edge] | None = None,
    language: str = "en",
    budget: int | None = None,
) -> AssembledContext:
    return assemble_context(
        [scored(n.id, s) for n, s in nodes],
        [n for n, _ in nodes],
        neighbours or [],
        edges or [],
        language=language,
        now=NOW,
        budget_tokens=budget,
    )


# --- token estimate ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "at_least"),
    [
        ("", 0),
        ("Hello", 2),  # one word, 1.3 tokens
        ("The user works at DataInc as a designer.", 10),  # ~9 real tokens
        ("Пользователь работает дизайнером в DataInc.", 15),  # ~12 with a multilingual vocab
        ("今日は仕事が忙しい", 9),
    ],
)
def test_token_estimate_errs_on_the_high_side(text: str, at_least: int) -> None:
    assert count_tokens(text) >= at_least


@given(st.text(max_size=300), st.text(max_size=300))
def test_token_estimate_never_grows_faster_than_its_parts(a: str, b: str) -> None:
    # What makes `prose_budget` safe: instruction + prose never costs more than both apart.
    assert count_tokens(a + b) <= count_tokens(a) + count_tokens(b)
    assert count_tokens(a) >= len(a.split())


# --- layout -----------------------------------------------------------------------------------


def test_the_context_opens_with_the_instruction_in_the_users_language() -> None:
    fact = node("f", "Работает в DataInc.")
    context = assemble([(fact, 0.9)], language="ru")
    first, _, body = context.text.partition("\n")
    assert first == instruction_line("ru") and "не цитируй" in first
    assert "- Работает в DataInc." in body
    assert (context.language, context.template_language, context.language_fallback) == (
        "ru",
        "ru",
        False,
    )
    assert context.tokens == count_tokens(context.text)


def test_without_a_template_it_falls_back_to_english_and_says_so() -> None:
    context = assemble([(node("f", "Arbeitet bei DataInc."), 0.9)], language="de")
    assert context.text.startswith(instruction_line("en"))
    assert (context.language, context.template_language, context.language_fallback) == (
        "de",
        "en",
        True,
    )


def test_a_causal_chain_reads_as_one_line() -> None:
    mood = node("a", "Is in a bad mood.", NodeType.EMOTIONAL_NOTE)
    interview = node("b", "Failed the interview.", NodeType.EVENT)
    prep = node("c", "Had no time to prepare.", NodeType.EVENT)
    unrelated = node("d", "Lives in Tallinn.")
    context = assemble(
        [(mood, 0.9), (prep, 0.5), (unrelated, 0.4)],
        neighbours=[interview],
        edges=[link("a", "b"), link("b", "c"), link("b", "a", EdgeType.FOLLOWED_BY)],
    )
    assert (
        "- Is in a bad mood. -> caused by Failed the interview. -> caused by Had no time to "
        "prepare." in context.text
    )
    assert context.text.count("Failed the interview.") == 1
    assert "Known:\n- Lives in Tallinn." in context.text


def test_followed_by_reads_as_after_in_russian() -> None:
    context = assemble(
        [(node("a", "Уволился."), 0.9), (node("b", "Поругался с начальником."), 0.8)],
        edges=[link("a", "b", EdgeType.FOLLOWED_BY)],
        language="ru",
    )
    assert "- Уволился. -> после Поругался с начальником." in context.text


def test_people_open_loops_and_hypotheses_have_their_own_sections() -> None:
    context = assemble(
        [
            (node("p", "Anna is the user's sister.", NodeType.PERSON), 0.9),
            (node("o", "Has not decided whether to accept the offer.", NodeType.OPEN_LOOP), 0.8),
            (node("h", "May be burning out.", NodeType.HYPOTHESIS), 0.7),
        ]
    )
    assert "People:\n- Anna is the user's sister." in context.text
    assert "Unresolved:\n- Has not decided whether to accept the offer." in context.text
    assert "Tentative, unconfirmed:\n- May be burning out." in context.text
    assert context.open_loop_questions == (
        "Any news on this: Has not decided whether to accept the offer?",
    )


def test_a_hypothesis_inside_a_chain_is_marked_tentative() -> None:
    context = assemble(
        [
            (node("a", "Sleeps badly.", NodeType.EVENT), 0.9),
            (node("h", "Stress.", NodeType.HYPOTHESIS), 0.8),
        ],
        edges=[link("a", "h")],
    )
    assert "Sleeps badly. -> caused by Stress. (tentative)" in context.text


def test_memories_used_carry_scores_and_sources_best_first() -> None:
    strong, weak = node("s", "Strong."), node("w", "Weak.")
    neighbour = node("n", "Neighbour.")
    context = assemble([(weak, 0.3), (strong, 0.9)], neighbours=[neighbour], edges=[link("s", "n")])
    assert [(m.id, m.score) for m in context.memories_used] == [
        ("s", 0.9),
        ("n", 0.45),
        ("w", 0.3),
    ]
    assert context.memories_used[0].sources == ("msg-s",)


def _with_similarity(
    memory: Node, score: float, similarity: float, scoring: ScoringConfig = DEFAULT_SCORING
) -> AssembledContext:
    kept = node("k", "Kept.")
    return assemble_context(
        [
            ScoredMemory(
                id=memory.id, score=score, similarity=similarity, recency=1.0, effective_weight=0.0
            ),
            scored("k", 0.1),
        ],
        [memory, kept],
        [],
        [],
        language="en",
        now=NOW,
        spread=APART,
        scoring=scoring,
    )


# A query that matches the user's memories in general not at all: any match is specific, and
# the similarity floor decides (domain.recognition).
APART = SimilaritySpread(centre=0.0, deviation=0.0, size=10)


def test_a_faded_memory_stays_out_unless_the_query_recognises_it() -> None:
    """Issue 32: decayed under the removal threshold, a memory is kept but leaves the default
    pool; only a query that matches it at least `recognition_min_similarity` (and specifically:
    here every match is) brings it back."""
    faded = node("g", "Faded.", expires_at=NOW - timedelta(hours=1))
    bar = DEFAULT_SCORING.recognition_min_similarity
    weak = _with_similarity(faded, score=0.9, similarity=bar - 0.01)
    assert [m.id for m in weak.memories_used] == ["k"]
    strong = _with_similarity(faded, score=0.5, similarity=bar)
    assert [m.id for m in strong.memories_used] == ["g", "k"]


@pytest.mark.parametrize(("max_rank", "recognised"), [(None, True), (3, True), (2, False)])
def test_recognition_can_ask_for_a_near_rank_too(max_rank: int | None, recognised: bool) -> None:
    """Issue 32's ablation switch `recognition_max_rank`: the faded memory passes the similarity
    bar and is third nearest of the query's candidates; with the rank limit at 3 it is
    recognised, at 2 it is not; without the limit the bar alone decides."""
    faded = node("g", "Faded.", expires_at=NOW - timedelta(hours=1))
    live = [node("a", "A."), node("b", "B."), node("c", "C.")]
    bar = DEFAULT_SCORING.recognition_min_similarity
    candidates = [
        ScoredMemory(id=n.id, score=0.5, similarity=s, recency=1.0, effective_weight=1.0)
        for n, s in zip(live, (bar + 0.3, bar + 0.2, bar - 0.1), strict=True)
    ] + [ScoredMemory(id="g", score=0.9, similarity=bar + 0.1, recency=1.0, effective_weight=0.0)]
    scoring = DEFAULT_SCORING.model_copy(update={"recognition_max_rank": max_rank})
    context = assemble_context(
        candidates, [*live, faded], [], [], language="en", now=NOW, scoring=scoring, spread=APART
    )
    assert ("g" in {m.id for m in context.memories_used}) is recognised


@pytest.mark.parametrize(("factor", "order"), [(1.0, ["g", "a"]), (0.7, ["a", "g"])])
def test_a_recognised_memory_ranks_by_its_score_times_the_factor(
    factor: float, order: list[str]
) -> None:
    """Issue 32's knob `recognised_score_factor` (1.0 shipped): a recognised faded memory
    scored 0.6 outranks a live one scored 0.5 as it is, and not at 0.7 of its score."""
    faded = node("g", "Faded.", expires_at=NOW - timedelta(hours=1))
    live = node("a", "A.")
    bar = DEFAULT_SCORING.recognition_min_similarity
    candidates = [
        ScoredMemory(id="a", score=0.5, similarity=bar + 0.1, recency=1.0, effective_weight=1.0),
        ScoredMemory(id="g", score=0.6, similarity=bar + 0.2, recency=1.0, effective_weight=0.0),
    ]
    scoring = DEFAULT_SCORING.model_copy(update={"recognised_score_factor": factor})
    context = assemble_context(
        candidates, [live, faded], [], [], language="en", now=NOW, scoring=scoring, spread=APART
    )
    assert [m.id for m in context.memories_used] == order


def test_a_superseded_memory_is_shown_as_past_after_the_current_one() -> None:
    """Issue 33: "I work at Sber" ended by a later "I don't work at Sber any more" is history:
    listed under its own heading with the day it ended, ranked below the current job (at
    `superseded_score_factor` of its score), and an ended plan is not asked about."""
    ended = NOW - timedelta(days=20)
    old_job = node("old", "Работаю сейчас в Сбере.", valid_until=ended)
    new_job = node("new", "Работаю в Тинькофф.")
    old_plan = node("plan", "Собираюсь взять собаку.", valid_until=ended, type=NodeType.OPEN_LOOP)
    context = assemble([(old_job, 0.9), (new_job, 0.6), (old_plan, 0.5)], language="ru")
    assert [m.id for m in context.memories_used] == ["new", "old", "plan"]
    known, past = context.text.split("Уже неверно (история):")
    assert "Тинькофф" in known and "Сбере" not in known
    assert f"Работаю сейчас в Сбере. (до {ended.date().isoformat()})" in past
    assert context.open_loop_questions == ()


def test_a_faded_note_a_question_singles_out_comes_back_whatever_its_valence() -> None:
    """Issue 32: a faded negative note is not noise to a question that recognises it ("last
    week my grandma passed away"); an operator may still list negative notes as noise."""
    faded = node("e", "So frustrated.", type=NodeType.EMOTIONAL_NOTE, expires_at=NOW)
    context = _with_similarity(faded, score=0.9, similarity=1.0)
    assert [m.id for m in context.memories_used] == ["e", "k"]
    joy = faded.model_copy(update={"content": "So proud of the painting.", "valence": "positive"})
    context = _with_similarity(joy, score=0.9, similarity=1.0)
    assert [m.id for m in context.memories_used] == ["e", "k"]
    noise = ScoringConfig(unrecognised_valences=(Valence.NEGATIVE,))
    context = _with_similarity(faded, score=0.9, similarity=1.0, scoring=noise)
    assert [m.id for m in context.memories_used] == ["k"]


def test_a_faded_neighbour_does_not_come_back_through_its_link() -> None:
    faded = node("f", "Faded neighbour.", expires_at=NOW - timedelta(hours=1))
    context = assemble([(node("s", "Strong."), 0.9)], neighbours=[faded], edges=[link("s", "f")])
    assert [m.id for m in context.memories_used] == ["s"]


def test_the_budget_drops_the_weakest_memories_first() -> None:
    memories = [(node(f"m{i}", f"Memory number {i} is here."), 1 - i / 100) for i in range(50)]
    context = assemble(memories, budget=80)
    kept = [m.id for m in context.memories_used]
    assert 0 < len(kept) < 50 and kept == [f"m{i}" for i in range(len(kept))]
    assert context.tokens <= 80


def test_when_nothing_fits_the_context_is_empty() -> None:
    context = assemble([(node("f", "A fact."), 0.9)], budget=5)
    assert (context.text, context.tokens, context.memories_used) == ("", 0, ())


# --- properties -------------------------------------------------------------------------------

contents = st.text(
    alphabet=st.sampled_from("abcxyz абвгд 漢字 .,-!?\n0123"), min_size=1, max_size=120
).filter(str.strip)
graphs = st.lists(
    st.tuples(st.sampled_from(list(NodeType)), contents, st.floats(0, 1)), max_size=25
)
edge_lists = st.lists(
    st.tuples(st.integers(0, 30), st.integers(0, 30), st.sampled_from(list(EdgeType))),
    max_size=30,
)


def random_context(
    graph: list[tuple[NodeType, str, float]],
    pairs: list[tuple[int, int, EdgeType]],
    budget: int,
    language: str,
) -> AssembledContext:
    nodes = [
        (node(f"n{i}", content, kind), score) for i, (kind, content, score) in enumerate(graph)
    ]
    half = len(nodes) // 2
    edges = [link(f"n{a}", f"n{b}", t) for a, b, t in pairs if a != b]
    return assemble(
        nodes[:half],
        neighbours=[n for n, _ in nodes[half:]],
        edges=edges,
        language=language,
        budget=budget,
    )


@settings(max_examples=40, deadline=None)
@given(graphs, edge_lists, st.integers(1, 500), st.sampled_from(["en", "ru", "uk", "de", "und"]))
def test_the_context_never_exceeds_its_budget_and_is_deterministic(
    graph: list[tuple[NodeType, str, float]],
    pairs: list[tuple[int, int, EdgeType]],
    budget: int,
    language: str,
) -> None:
    context = random_context(graph, pairs, budget, language)
    assert context.tokens == count_tokens(context.text) <= budget
    assert context == random_context(graph, pairs, budget, language)
    ids = [m.id for m in context.memories_used]
    assert len(ids) == len(set(ids))


# --- prose mode -------------------------------------------------------------------------------


def test_a_prose_summary_that_fits_replaces_the_text() -> None:
    extractive = assemble([(node("f", "Works at DataInc."), 0.9)], language="ru")
    prose = prose_context(extractive, "Работает в DataInc, доволен работой.", budget_tokens=100)
    assert prose is not None
    assert prose.text == f"{instruction_line('ru')}\nРаботает в DataInc, доволен работой."
    assert prose.memories_used == extractive.memories_used
    assert prose.tokens == count_tokens(prose.text) <= 100


def test_a_prose_summary_over_budget_or_empty_is_refused() -> None:
    extractive = assemble([(node("f", "Works at DataInc."), 0.9)])
    assert prose_context(extractive, "word " * 200, budget_tokens=100) is None
    assert prose_context(extractive, "   ", budget_tokens=100) is None


def test_the_prose_budget_leaves_room_for_the_instruction() -> None:
    room = prose_budget("en", 400)
    assert 0 < room < 400
    assert count_tokens(f"{instruction_line('en')}\n" + "x" * (room * 4)) <= 400


# --- the session review and prepared questions ----------------------------------------------


def a_review(*contents: str) -> ReviewPrompt:
    half = (len(contents) + 1) // 2
    return ReviewPrompt(
        id="review-10",
        session=10,
        items=tuple(
            ReviewPromptItem(
                memory_id=f"b{i}",
                content=c,
                confidence=0.8 if i < half else 0.2,
                side=ReviewSide.HIGHEST if i < half else ReviewSide.LOWEST,
            )
            for i, c in enumerate(contents)
        ),
    )


def test_the_review_is_asked_in_the_users_language_and_closes_the_text() -> None:
    review = a_review("Ты живёшь в Казани.", "Ты не любишь кофе.")
    context = assemble_context(
        [scored("a", 0.9)],
        [node("a", "Работает врачом.")],
        [],
        [],
        language="ru",
        now=NOW,
        review=review,
    )
    assert context.text.endswith(
        "Прежде чем продолжим: я верно о вас думаю?\n"
        "- Ты живёшь в Казани. (уверен)\n- Ты не любишь кофе. (не уверен)"
    )
    assert "Работает врачом." in context.text
    assert context.review == review and context.closing_text in context.text


def test_the_review_is_kept_before_memories_within_the_budget() -> None:
    review = a_review(*(f"Belief number {i} about the user's life." for i in range(6)))
    memories = [(node(f"m{i}", f"Memory {i} " + "word " * 12), 1.0 - i / 100) for i in range(20)]
    context = assemble_context(
        [scored(n.id, s) for n, s in memories],
        [n for n, _ in memories],
        [],
        [],
        language="en",
        now=NOW,
        budget_tokens=250,
        review=review,
    )
    assert context.closing_text and context.text.endswith(context.closing_text)
    assert count_tokens(context.text) <= 250
    assert 0 < len(context.memories_used) < 20  # the memories got what the review left


def test_a_review_too_big_for_the_budget_stays_out_of_the_text_but_is_returned() -> None:
    review = a_review(*(f"Belief number {i} " + "long " * 30 for i in range(6)))
    context = assemble_context(
        [], [], [], [], language="en", now=NOW, budget_tokens=50, review=review
    )
    assert context.text == "" and context.closing_text == "" and context.review == review


def test_without_memories_the_review_alone_is_the_context() -> None:
    context = assemble_context([], [], [], [], language="en", now=NOW, review=a_review("X."))
    assert context.text == f"{instruction_line('en')}\n{context.closing_text}"


def test_prepared_questions_join_the_context_without_repeating_its_open_loops() -> None:
    loop = node("loop", "Waiting to hear back about the flat", type=NodeType.OPEN_LOOP)
    prepared = [
        PreparedQuestion(id="q1", question="Is the flat settled?", node_id="loop"),
        PreparedQuestion(id="q2", question="How did the visa interview go?", node_id="visa"),
        PreparedQuestion(id="q3", question="How did the visa interview go?", node_id="visa2"),
    ]
    context = assemble_context(
        [scored("loop", 0.9)], [loop], [], [], language="en", now=NOW, prepared=prepared
    )
    assert context.open_loop_questions == (
        "Any news on this: Waiting to hear back about the flat?",
        "How did the visa interview go?",
    )


def test_prose_keeps_the_review() -> None:
    extractive = assemble_context(
        [scored("a", 0.9)],
        [node("a", "Works as a nurse.")],
        [],
        [],
        language="en",
        now=NOW,
        review=a_review("Lives in Leeds."),
    )
    prose = prose_context(extractive, "A nurse.")
    assert prose is not None and prose.text.endswith(extractive.closing_text)


def test_a_prose_summary_written_to_its_allowance_fits_beside_the_review() -> None:
    extractive = assemble_context(
        [scored("a", 0.9)],
        [node("a", "Works as a nurse.")],
        [],
        [],
        language="en",
        now=NOW,
        budget_tokens=200,
        review=a_review("Lives in Leeds.", "Has a cat called Miso."),
    )
    assert extractive.closing_text
    room = prose_budget("en", 200, closing_text=extractive.closing_text)
    assert room < prose_budget("en", 200)
    summary = ("nurse " * 400)[: room * 4].strip()
    while count_tokens(summary) > room:
        summary = summary.rsplit(" ", 1)[0]
    assert prose_context(extractive, summary, budget_tokens=200) is not None


def test_an_unseen_monthly_summary_is_announced_after_the_review_in_the_users_language() -> None:
    ru = assemble_context(
        [], [], [], [], language="ru", now=NOW, review=a_review("X."), summary_month="2026-11"
    )
    assert ru.closing_text.startswith("Сначала спроси пользователя:")  # the review first
    assert ru.text.endswith(
        "Готова сводка того, что ты помнишь о пользователе за 2026-11: "
        "предложи её показать; любую запись можно исправить или удалить."
    )
    assert ru.summary_month == "2026-11"
    plain = assemble_context([], [], [], [], language="en", now=NOW)
    assert plain.closing_text == "" and plain.text == "" and plain.summary_month is None


def test_a_span_of_a_message_already_shown_whole_is_left_out() -> None:
    whole = node("whole", "My colleague Marta offered a mock interview.", sources=("m1",))
    span = node("span", "My colleague Marta", NodeType.PERSON, sources=("m1",))
    elsewhere = node("other", "My colleague Marta", NodeType.PERSON, sources=("m2",))
    # The span ranks first: the whole sentence of the same message takes its place.
    used = assemble([(span, 0.9), (whole, 0.8), (elsewhere, 0.7)]).memories_used
    assert [m.id for m in used] == ["whole", "other"]  # another message's words stay
    used = assemble([(whole, 0.9), (span, 0.8)]).memories_used
    assert [m.id for m in used] == ["whole"]


@pytest.mark.parametrize(
    ("holds", "similarity_gap", "shown"),
    [
        (True, -0.01, []),  # faded, not recognised: holds its room, the live one does not fit
        (False, -0.01, ["k"]),  # the switch off: the live one takes the room
        (True, 0.0, ["g"]),  # recognised: shown in its place
    ],
)
def test_a_faded_memory_holds_its_room_in_the_budget(
    holds: bool, similarity_gap: float, shown: list[str]
) -> None:
    """Issue 32, "forgetting earns its keep" (`ScoringConfig.faded_hold_room`): a faded memory
    the query does not recognise, ranked above a live one, keeps its room in a budget that
    fits one of them: what ranks below it does not move up into the room forgetting freed."""
    live = node("k", "Kept line.")
    faded = node("g", "Faded one.", expires_at=NOW - timedelta(hours=1))
    alone = assemble_context([scored("k", 0.1)], [live], [], [], language="en", now=NOW)
    bar = DEFAULT_SCORING.recognition_min_similarity
    scoring = DEFAULT_SCORING.model_copy(update={"faded_hold_room": holds})
    context = assemble_context(
        [
            ScoredMemory(
                id="g", score=0.9, similarity=bar + similarity_gap, recency=1.0, effective_weight=0
            ),
            scored("k", 0.1),
        ],
        [faded, live],
        [],
        [],
        language="en",
        now=NOW,
        budget_tokens=alone.tokens,  # the instruction and one line
        spread=APART,
        scoring=scoring,
    )
    assert [m.id for m in context.memories_used] == shown
