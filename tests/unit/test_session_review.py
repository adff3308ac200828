"""The session review (epistemic-memory article, component 8): when, which beliefs, answers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from selfimprint.domain.belief import effective_confidence
from selfimprint.domain.models import Belief, Node, NodeType, Permanence, TensionKind
from selfimprint.domain.session_review import (
    AnswerProblem,
    ReviewSide,
    ReviewVerdict,
    answered_belief,
    check_answers,
    due_review_session,
    plan_answers,
    plan_review,
    review_prompt,
)

pytestmark = pytest.mark.unit

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def belief_node(
    id: str, confidence: float, type: NodeType = NodeType.FACT, age_days: float = 1, **kw: Any
) -> Node:
    at = NOW - timedelta(days=age_days)
    values: dict[str, Any] = {
        "id": id,
        "user_id": "u",
        "type": type,
        "content": f"belief {id}",
        "weight_at": at,
        "created_at": at,
        "belief": Belief(confidence=confidence, first_seen=at),
    }
    if type is NodeType.HYPOTHESIS:
        values["is_inference"] = True
    return Node.model_validate(values | kw)


@pytest.mark.parametrize(
    ("sessions", "last", "due"),
    [(0, 0, None), (9, 0, None), (10, 0, 10), (11, 0, 10), (10, 10, None), (19, 10, None),
     (20, 10, 20), (35, 10, 30)],
)  # fmt: skip
def test_the_review_is_due_on_every_tenth_session_until_opened(
    sessions: int, last: int, due: int | None
) -> None:
    assert due_review_session(sessions, last) == due


def test_three_highest_and_three_lowest_by_effective_confidence() -> None:
    nodes = [belief_node(f"f{i}", 0.1 * (i + 1)) for i in range(8)]
    # Stored 0.85 but dormant for two years (durable: ~5-month half-life): effectively low.
    nodes.append(belief_node("stale", 0.85, age_days=730))
    review = plan_review(10, nodes, NOW)
    assert review is not None and review.id == "review-10" and review.session == 10
    sides = {i.memory_id: i.side for i in review.items}
    assert [i.memory_id for i in review.items if i.side is ReviewSide.HIGHEST] == [
        "f7", "f6", "f5"
    ]  # fmt: skip
    assert [i.memory_id for i in review.items if i.side is ReviewSide.LOWEST] == [
        "stale", "f0", "f1"
    ]  # fmt: skip
    assert len(sides) == 6


def test_events_open_loops_hypotheses_and_pinned_memories_are_not_reviewed() -> None:
    nodes = [
        belief_node("event", 0.1, type=NodeType.EVENT),
        belief_node("loop", 0.1, type=NodeType.OPEN_LOOP),
        belief_node("hyp", 0.1, type=NodeType.HYPOTHESIS),
        belief_node("pinned", 0.1, is_pinned=True),
        belief_node("person", 0.5, type=NodeType.PERSON),
    ]
    review = plan_review(10, nodes, NOW)
    assert review is not None and review.memory_ids == ("person",)
    assert plan_review(10, nodes[:4], NOW) is None


def test_the_prompt_drops_beliefs_gone_since() -> None:
    kept = belief_node("kept", 0.7)
    review = plan_review(10, [kept, belief_node("gone", 0.2)], NOW)
    assert review is not None
    prompt = review_prompt(review, [kept], NOW)
    assert prompt is not None and [i.memory_id for i in prompt.items] == ["kept"]
    assert prompt.items[0].confidence == round(effective_confidence(kept.belief, NOW), 4)
    assert review_prompt(review, [], NOW) is None


def test_answers_must_name_the_reviews_beliefs_once_and_not_change() -> None:
    review = plan_review(10, [belief_node("a", 0.9), belief_node("b", 0.1)], NOW)
    assert review is not None
    ok = [("a", ReviewVerdict.CONFIRM), ("b", ReviewVerdict.WRONG)]
    assert check_answers(review, ok, None).problem is None
    unknown = check_answers(review, [("x", ReviewVerdict.CONFIRM)], None)
    assert (unknown.problem, unknown.memory_ids) == (AnswerProblem.NOT_IN_REVIEW, ("x",))
    twice = check_answers(review, [("a", ReviewVerdict.CONFIRM), ("a", ReviewVerdict.WRONG)], None)
    assert twice.problem is AnswerProblem.ANSWERED_TWICE
    assert check_answers(review, ok, dict(ok)).replay
    other = check_answers(review, [("a", ReviewVerdict.WRONG)], dict(ok))
    assert other.problem is AnswerProblem.ALREADY_ANSWERED


def test_confirm_lifts_a_weak_belief_and_wrong_zeroes_a_strong_one_once() -> None:
    weak, strong = belief_node("weak", 0.2, age_days=30), belief_node("strong", 0.8)
    confirmed = answered_belief(weak, "review-10", ReviewVerdict.CONFIRM, NOW)
    assert confirmed is not None
    assert effective_confidence(confirmed.belief, NOW) > effective_confidence(weak.belief, NOW)
    assert confirmed.belief.self_report_for == ("review:review-10:weak",)
    assert answered_belief(confirmed, "review-10", ReviewVerdict.CONFIRM, NOW) is None
    wrong = answered_belief(strong, "review-10", ReviewVerdict.WRONG, NOW)
    assert wrong is not None and wrong.belief.confidence == 0.0
    assert wrong.belief.challenged_at == NOW
    assert wrong.belief.self_report_against == ("review:review-10:strong",)
    assert answered_belief(wrong, "review-10", ReviewVerdict.WRONG, NOW) is None


def test_a_stable_belief_is_reviewed_by_its_own_decay() -> None:
    """Same stored confidence, a year dormant: the situational belief faded, the stable did not."""
    year_ago = NOW - timedelta(days=365)

    def held(id: str, permanence: Permanence) -> Node:
        belief = Belief(confidence=0.6, permanence=permanence, first_seen=year_ago)
        return belief_node(id, 0.6, age_days=365, belief=belief)

    review = plan_review(10, [held("s", Permanence.STABLE), held("t", Permanence.SITUATIONAL)], NOW)
    assert review is not None
    assert [i.memory_id for i in review.items] == ["s", "t"]  # most confident first


# --- divergence: the answer against the user's own words (issue 33) -----------------------------


def _evidenced(id: str, said_for: int, said_against: int) -> Node:
    node = belief_node(id, 0.5)
    streams = {
        "observed_for": tuple(f"msg-{id}-for-{i}" for i in range(said_for)),
        "observed_against": tuple(f"msg-{id}-against-{i}" for i in range(said_against)),
    }
    return node.model_copy(update={"belief": node.belief.model_copy(update=streams)})


@pytest.mark.parametrize(
    ("said_for", "said_against", "verdict", "diverges"),
    [
        (1, 0, ReviewVerdict.WRONG, True),  # restated, then called wrong
        (0, 0, ReviewVerdict.WRONG, False),  # said once: the words show no direction
        (1, 1, ReviewVerdict.WRONG, False),  # as often contradicted as restated
        (1, 0, ReviewVerdict.CONFIRM, False),  # the answer agrees with the words
        (0, 1, ReviewVerdict.CONFIRM, True),  # contradicted since, then confirmed
        (1, 1, ReviewVerdict.CONFIRM, False),
    ],
)
def test_an_answer_against_the_users_own_words_opens_a_divergence(
    said_for: int, said_against: int, verdict: ReviewVerdict, diverges: bool
) -> None:
    node = _evidenced("m1", said_for, said_against)
    writes = plan_answers([node], "review-10", {"m1": verdict}, NOW)
    (answered,) = writes.nodes  # the answer is applied either way
    assert answered.belief.self_report_for or answered.belief.self_report_against
    if not diverges:
        assert writes.divergences == ()
        return
    (tension,) = writes.divergences
    assert tension.kind is TensionKind.DIVERGENCE
    assert (tension.node_a, tension.node_b) == ("m1", "review:review-10:m1")
    assert tension.a_said == node.content and "session review" in tension.b_said
    assert tension.keeps_its_words  # it outlives the memory's decay, as every tension does
    # A retry of the same answers changes nothing and opens nothing again.
    again = plan_answers([answered], "review-10", {"m1": verdict}, NOW)
    assert again.nodes == () and again.divergences == ()
    # A later answer in the same direction: already diverging, no second tension.
    later = plan_answers([answered], "review-20", {"m1": verdict}, NOW)
    assert later.divergences == ()
