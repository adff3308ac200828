"""Belief confidence: dormancy decay, the interpretive cap, evidence streams, review cadence
(the epistemic-memory article)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from selfimprint.domain.belief import (
    DEFAULT_BELIEF,
    BeliefConfig,
    Evidence,
    EvidenceStream,
    EvidenceStreams,
    SessionCounter,
    effective_confidence,
    half_life,
    record_evidence,
    select_for_review,
    update_belief,
)
from selfimprint.domain.models import (
    MAX_EVIDENCE_IDS,
    Belief,
    EvidenceKind,
    Node,
    NodeType,
    Permanence,
)
from selfimprint.domain.permanence import with_evidence

pytestmark = pytest.mark.unit

T0 = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def belief(
    confidence: float = 0.5,
    permanence: Permanence = Permanence.DURABLE,
    kind: EvidenceKind = EvidenceKind.OBSERVED,
) -> Belief:
    return Belief(confidence=confidence, permanence=permanence, first_seen=T0, evidence_kind=kind)


def evidence(id: str, stream: EvidenceStream, supports: bool = True, at: datetime = T0) -> Evidence:
    return Evidence(id=id, stream=stream, supports=supports, at=at)


OBSERVED, SELF_REPORT = EvidenceStream.OBSERVED, EvidenceStream.SELF_REPORT

# Dormancy decay ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("permanence", "half_life_days"),
    [(Permanence.STABLE, 730), (Permanence.DURABLE, 152), (Permanence.SITUATIONAL, 42)],
)
def test_confidence_halves_after_one_half_life(permanence: Permanence, half_life_days: int) -> None:
    assert half_life(permanence) == timedelta(days=half_life_days)
    stale = effective_confidence(belief(0.8, permanence), T0 + timedelta(days=half_life_days))
    assert stale == pytest.approx(0.4)


def test_after_three_months_away_situational_beliefs_fade_most() -> None:
    later = T0 + timedelta(days=91)
    situational = effective_confidence(belief(0.8, Permanence.SITUATIONAL), later)
    durable = effective_confidence(belief(0.8, Permanence.DURABLE), later)
    stable = effective_confidence(belief(0.8, Permanence.STABLE), later)
    assert situational < durable < stable < 0.8
    assert situational == pytest.approx(0.8 * 2 ** (-91 / 42))


def test_dormancy_runs_from_the_latest_evidence() -> None:
    confirmed = Belief(
        confidence=0.8,
        permanence=Permanence.SITUATIONAL,
        first_seen=T0 - timedelta(days=300),
        confirmed_at=T0,
    )
    assert effective_confidence(confirmed, T0) == pytest.approx(0.8)


def test_interpretations_are_capped_at_0_90() -> None:
    generous = belief(0.97, kind=EvidenceKind.INTERPRETATION)
    assert effective_confidence(generous, T0) == pytest.approx(0.90)
    assert effective_confidence(belief(0.97), T0) == pytest.approx(0.97)


def test_half_lives_are_configurable_and_positive() -> None:
    quick = BeliefConfig(durable_half_life=timedelta(days=10))
    assert effective_confidence(belief(0.6), T0 + timedelta(days=10), quick) == pytest.approx(0.3)
    with pytest.raises(ValidationError, match="half-lives"):
        BeliefConfig(stable_half_life=timedelta(0))


@given(
    confidence=st.floats(0.0, 1.0),
    permanence=st.sampled_from(Permanence),
    kind=st.sampled_from(EvidenceKind),
    a=st.floats(0.0, 3000.0),
    b=st.floats(0.0, 3000.0),
)
def test_confidence_never_grows_while_dormant_and_respects_the_cap(
    confidence: float, permanence: Permanence, kind: EvidenceKind, a: float, b: float
) -> None:
    held = belief(confidence, permanence, kind)
    earlier, later = sorted((a, b))
    c_earlier = effective_confidence(held, T0 + earlier * DAY)
    c_later = effective_confidence(held, T0 + later * DAY)
    cap = DEFAULT_BELIEF.interpretation_cap if kind is EvidenceKind.INTERPRETATION else 1.0
    assert c_later <= c_earlier <= min(confidence, cap)


# Evidence streams -------------------------------------------------------------------------------


def test_observed_behaviour_earns_more_confidence_than_self_report() -> None:
    streams = EvidenceStreams()
    observed = record_evidence(belief(0.5), streams, evidence("m1", OBSERVED))
    said = record_evidence(belief(0.5), streams, evidence("m1", SELF_REPORT))
    assert observed.belief.confidence == pytest.approx(0.5 + 0.2 * 0.5)
    assert said.belief.confidence == pytest.approx(0.5 + 0.1 * (0.6 - 0.5))
    assert observed.belief.confirmed_at == T0
    assert said.belief.confirmed_at is None  # "confirmed" is about behaviour


def test_self_report_alone_never_lifts_confidence_past_its_ceiling() -> None:
    current, streams = belief(0.3), EvidenceStreams()
    for i in range(50):
        outcome = record_evidence(current, streams, evidence(f"s{i}", SELF_REPORT, at=T0 + i * DAY))
        current, streams = outcome.belief, outcome.streams
    assert current.confidence <= DEFAULT_BELIEF.self_report_ceiling
    high = record_evidence(belief(0.8), EvidenceStreams(), evidence("s", SELF_REPORT))
    assert high.belief.confidence == pytest.approx(0.8)  # nor pulls a higher one down


def test_a_contradiction_lowers_confidence_and_is_dated() -> None:
    later = T0 + DAY
    outcome = record_evidence(
        belief(0.8), EvidenceStreams(), evidence("m9", OBSERVED, supports=False, at=later)
    )
    assert outcome.belief.confidence < 0.8
    assert outcome.belief.challenged_at == later
    assert outcome.belief.confidence_at == later
    assert outcome.streams.observed_against == ("m9",)


def test_dormancy_applies_before_the_evidence_moves_confidence() -> None:
    gap = timedelta(days=152)
    outcome = record_evidence(belief(0.8), EvidenceStreams(), evidence("m", OBSERVED, at=T0 + gap))
    decayed = 0.4
    assert outcome.belief.confidence == pytest.approx(decayed + 0.2 * (1.0 - decayed))


def test_interpretations_never_pass_the_cap_however_much_behaviour_supports_them() -> None:
    current, streams = belief(0.5, kind=EvidenceKind.INTERPRETATION), EvidenceStreams()
    for i in range(60):
        outcome = record_evidence(current, streams, evidence(f"m{i}", OBSERVED))
        current, streams = outcome.belief, outcome.streams
    assert current.confidence <= 0.90
    assert current.confidence == pytest.approx(0.90, abs=1e-3)


def test_replayed_evidence_counts_once() -> None:
    first = record_evidence(belief(0.5), EvidenceStreams(), evidence("m1", OBSERVED))
    again = record_evidence(first.belief, first.streams, evidence("m1", OBSERVED))
    assert not again.counted
    assert again.belief == first.belief
    assert again.streams == first.streams


def test_saying_one_thing_and_doing_another_is_a_divergence_not_a_verdict() -> None:
    # "I'm a morning person" (self-report) vs sessions at 11pm (observed, contradicting).
    current, streams = belief(0.5), EvidenceStreams()
    outcome = record_evidence(current, streams, evidence("said", SELF_REPORT))
    assert not outcome.diverging
    for i in range(2):
        outcome = record_evidence(
            outcome.belief,
            outcome.streams,
            evidence(f"late-{i}", OBSERVED, supports=False, at=T0 + (i + 1) * DAY),
        )
    assert outcome.diverging
    assert outcome.streams.self_report_for == ("said",)
    assert outcome.streams.observed_against == ("late-0", "late-1")
    assert 0.0 < outcome.belief.confidence < 0.5  # both on record; neither wipes the belief


@given(
    start=st.floats(0.0, 1.0),
    kind=st.sampled_from(EvidenceKind),
    steps=st.lists(
        st.tuples(st.sampled_from(EvidenceStream), st.booleans(), st.floats(0.0, 30.0)),
        max_size=25,
    ),
)
def test_confidence_stays_within_zero_and_the_cap(
    start: float, kind: EvidenceKind, steps: list[tuple[EvidenceStream, bool, float]]
) -> None:
    cap = DEFAULT_BELIEF.interpretation_cap if kind is EvidenceKind.INTERPRETATION else 1.0
    # Beliefs are written through the cap; the model itself cannot know a configured cap.
    current, streams = belief(min(start, cap), kind=kind), EvidenceStreams()
    moment = T0
    for i, (stream, supports, gap_days) in enumerate(steps):
        moment += gap_days * DAY
        outcome = record_evidence(current, streams, evidence(f"e{i}", stream, supports, moment))
        current, streams = outcome.belief, outcome.streams
        assert 0.0 <= current.confidence <= cap
    ceiling = max(min(start, cap), DEFAULT_BELIEF.self_report_ceiling)
    if all(stream is SELF_REPORT for stream, _, _ in steps):
        assert current.confidence <= ceiling + 1e-12


# Review cadence ---------------------------------------------------------------------------------


def test_review_is_due_on_every_tenth_session() -> None:
    counter = SessionCounter()
    due = []
    for _ in range(30):
        counter = counter.advanced()
        if counter.review_due():
            due.append(counter.sessions)
    assert due == [10, 20, 30]
    assert not SessionCounter().review_due()


def test_review_shows_three_highest_and_three_lowest_with_ties_by_id() -> None:
    confidences = {
        "b": 0.9,
        "a": 0.9,
        "c": 0.8,
        "d": 0.7,
        "e": 0.5,
        "f": 0.2,
        "h": 0.1,
        "g": 0.1,
    }
    selection = select_for_review(confidences)
    assert selection.highest == ("a", "b", "c")
    assert selection.lowest == ("g", "h", "f")


def test_review_never_shows_a_belief_twice() -> None:
    selection = select_for_review({"a": 0.9, "b": 0.5, "c": 0.4, "d": 0.1})
    assert selection.highest == ("a", "b", "c")
    assert selection.lowest == ("d",)
    assert select_for_review({}).highest == ()


@given(
    st.dictionaries(st.from_regex(r"[a-z]{1,4}", fullmatch=True), st.floats(0.0, 1.0), max_size=20)
)
def test_review_selection_is_disjoint_and_splits_high_from_low(
    confidences: dict[str, float],
) -> None:
    selection = select_for_review(confidences)
    assert not set(selection.highest) & set(selection.lowest)
    assert len(selection.highest) == min(3, len(confidences))
    assert len(selection.lowest) == min(3, len(confidences) - len(selection.highest))
    if selection.highest and selection.lowest:
        assert min(confidences[i] for i in selection.highest) >= max(
            confidences[i] for i in selection.lowest
        )
    assert select_for_review(dict(reversed(list(confidences.items())))) == selection


# Evidence stored on the belief ---------------------------------------------------------------


def test_update_belief_stores_its_evidence_and_a_replay_changes_nothing() -> None:
    first = update_belief(belief(0.5), evidence("m1", OBSERVED, at=T0 + DAY))
    assert first.counted and first.belief.observed_for == ("m1",)
    assert first.belief.confirmed_at == T0 + DAY and first.belief.confidence > 0.5
    again = update_belief(first.belief, evidence("m1", OBSERVED, at=T0 + 2 * DAY))
    assert not again.counted and again.belief == first.belief
    against = update_belief(first.belief, evidence("m2", SELF_REPORT, supports=False))
    assert against.belief.self_report_against == ("m2",)
    assert against.belief.observed_for == ("m1",)
    assert against.belief.challenged_at is not None


def test_a_belief_keeps_only_the_newest_evidence_ids() -> None:
    current = belief(0.5)
    for i in range(MAX_EVIDENCE_IDS + 5):
        current = update_belief(current, evidence(f"m{i}", OBSERVED, at=T0 + i * DAY)).belief
    assert len(current.observed_for) == MAX_EVIDENCE_IDS
    assert current.observed_for[-1] == f"m{MAX_EVIDENCE_IDS + 4}"
    assert "m0" not in current.observed_for


# Confirmation anchors dormancy; stable permanence (domain.permanence) ----------------------------


def test_a_confirmed_belief_fades_from_its_confirmation_not_from_first_sight() -> None:
    old = belief(0.5)
    confirmed = update_belief(old, evidence("m1", OBSERVED, at=T0 + 100 * DAY)).belief
    assert confirmed.confirmed_at == T0 + 100 * DAY
    later = T0 + 100 * DAY + timedelta(days=152)
    # One durable half-life after the confirmation: half the confirmed confidence, whereas the
    # unconfirmed belief has been dormant 252 days by then.
    assert effective_confidence(confirmed, later) == pytest.approx(confirmed.confidence / 2)
    assert effective_confidence(old, later) == pytest.approx(0.5 * 2 ** (-252 / 152))
    assert effective_confidence(confirmed, later) > effective_confidence(old, later)


def _node(permanence: Permanence = Permanence.DURABLE, node_type: str = "fact") -> Node:
    return Node(
        id="f1",
        user_id="u1",
        type=NodeType(node_type),
        content="works at the harbour",
        weight_at=T0,
        created_at=T0,
        belief=belief(0.5, permanence),
    )


def _confirmed(node: Node, days: Sequence[int]) -> Node:
    for d in days:
        node = with_evidence(node, evidence(f"m{d}", OBSERVED, at=T0 + d * DAY))
    return node


def test_three_confirmations_over_two_months_make_a_fact_stable() -> None:
    assert _confirmed(_node(), [10, 30]).belief.permanence is Permanence.DURABLE
    # Three observations, but the last only 50 days after first sight: not yet.
    assert _confirmed(_node(), [10, 30, 50]).belief.permanence is Permanence.DURABLE
    stable = _confirmed(_node(), [10, 30, 61])
    assert stable.belief.permanence is Permanence.STABLE
    assert half_life(stable.belief.permanence) == timedelta(days=730)


def test_moods_and_events_never_become_stable() -> None:
    mood = _node(Permanence.SITUATIONAL, "fact")
    assert _confirmed(mood, [10, 30, 61]).belief.permanence is Permanence.SITUATIONAL
    event = _node(node_type="event")
    assert _confirmed(event, [10, 30, 61]).belief.permanence is Permanence.DURABLE


def test_a_challenge_inside_the_window_keeps_a_fact_durable() -> None:
    node = _confirmed(_node(), [10])
    node = with_evidence(node, evidence("x1", OBSERVED, supports=False, at=T0 + 20 * DAY))
    node = _confirmed(node, [30, 50, 70])
    assert node.belief.permanence is Permanence.DURABLE  # challenged 50 days before day 70
    assert _confirmed(node, [81]).belief.permanence is Permanence.STABLE  # 61 days after


def test_a_challenged_stable_belief_falls_back_to_durable() -> None:
    stable = _confirmed(_node(), [10, 30, 61])
    challenged = with_evidence(stable, evidence("x1", OBSERVED, supports=False, at=T0 + 70 * DAY))
    assert challenged.belief.permanence is Permanence.DURABLE
    assert challenged.belief.challenged_at == T0 + 70 * DAY
    # A replay of the same evidence is the same node.
    assert with_evidence(challenged, evidence("x1", OBSERVED, supports=False)) is challenged
