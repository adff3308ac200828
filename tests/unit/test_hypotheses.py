"""Hypothesis lifecycle (spec §3.5.2, §4.2, §5)."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from selfimprint.domain.hypotheses import (
    TERMINAL,
    TRANSITIONS,
    EvidenceAdded,
    HypothesisEvent,
    HypothesisPolicy,
    Reinforced,
    SleepCheck,
    Stance,
    Surfaced,
    apply_event,
    apply_events,
    form_hypothesis,
    is_allowed,
    model_only_support,
    reality_anchor_factor,
)
from selfimprint.domain.models import Hypothesis, HypothesisStatus

pytestmark = pytest.mark.unit

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
POLICY = HypothesisPolicy()


def support(oid: str) -> EvidenceAdded:
    return EvidenceAdded(observation_id=oid, stance=Stance.SUPPORTING)


def model_support(oid: str) -> EvidenceAdded:
    return EvidenceAdded(observation_id=oid, stance=Stance.SUPPORTING, by_model=True)


def contradict(oid: str) -> EvidenceAdded:
    return EvidenceAdded(observation_id=oid, stance=Stance.CONTRADICTING)


def check(days: float = 1.0) -> SleepCheck:
    return SleepCheck(at=T0 + timedelta(days=days))


def final(h: Hypothesis, *events: HypothesisEvent) -> Hypothesis:
    return apply_events(h, events)[-1].hypothesis


def test_new_hypothesis_gets_14_days_and_high_bar_gets_longer() -> None:
    assert form_hypothesis("h1", T0).deadline == T0 + timedelta(days=14)
    high = form_hypothesis("h1", T0, high_bar=True)
    assert high.high_bar and high.deadline == T0 + timedelta(days=28)
    assert high.status is HypothesisStatus.ACTIVE


@pytest.mark.parametrize(
    ("supporting", "contradicting", "expected"),
    [
        (2, 1, HypothesisStatus.CONFIRMED),  # 2 >= 2x1 and 3 observations
        (4, 2, HypothesisStatus.CONFIRMED),  # exactly 2x
        (3, 0, HypothesisStatus.CONFIRMED),
        (2, 0, HypothesisStatus.ACTIVE),  # ratio met, evidence below the threshold
        (3, 2, HypothesisStatus.ACTIVE),  # neither side reaches 2x
        (1, 2, HypothesisStatus.REFUTED),
        (0, 2, HypothesisStatus.REFUTED),
        (0, 1, HypothesisStatus.ACTIVE),  # one contradiction is not enough to delete
        (2, 3, HypothesisStatus.ACTIVE),
    ],
)
def test_sleep_check_resolves_by_evidence(
    supporting: int, contradicting: int, expected: HypothesisStatus
) -> None:
    events: list[HypothesisEvent] = [support(f"s{i}") for i in range(supporting)]
    events += [contradict(f"c{i}") for i in range(contradicting)]
    steps = apply_events(form_hypothesis("h1", T0), [*events, check()])
    assert steps[-1].target is expected
    assert steps[-1].reason.startswith(
        {"confirmed": "confirmed", "refuted": "refuted", "active": "still active"}[expected.value]
    )


def test_evidence_alone_never_resolves_before_the_sleep_check() -> None:
    steps = apply_events(form_hypothesis("h1", T0), [support(f"s{i}") for i in range(5)])
    assert all(s.target is HypothesisStatus.ACTIVE for s in steps)
    assert apply_event(steps[-1].hypothesis, check()).target is HypothesisStatus.CONFIRMED


def test_high_bar_needs_more_evidence_and_lives_longer() -> None:
    high = form_hypothesis("h1", T0, high_bar=True)
    four = final(high, *(support(f"s{i}") for i in range(4)), check(20))
    assert four.status is HypothesisStatus.ACTIVE  # 4 < 6 and before the 28-day deadline
    assert final(four, support("s4"), support("s5"), check(21)).status is (
        HypothesisStatus.CONFIRMED
    )


def test_deadline_archives_as_unresolved_at_exactly_the_deadline() -> None:
    h = final(form_hypothesis("h1", T0), support("s1"))
    assert apply_event(h, SleepCheck(at=h.deadline - timedelta(seconds=1))).target is (
        HypothesisStatus.ACTIVE
    )
    step = apply_event(h, SleepCheck(at=h.deadline))
    assert step.target is HypothesisStatus.ARCHIVED_UNRESOLVED
    assert step.resolved and "deadline" in step.reason


def test_deadline_is_absolute_time_across_a_dst_change() -> None:
    berlin = ZoneInfo("Europe/Berlin")
    created = datetime(2026, 3, 20, 12, 0, tzinfo=berlin)  # CET, 11:00 UTC
    h = form_hypothesis("h1", created)
    assert h.deadline == datetime(2026, 4, 3, 11, 0, tzinfo=UTC)  # 13:00 CEST, not 12:00
    noon_local = datetime(2026, 4, 3, 12, 30, tzinfo=berlin)
    assert apply_event(h, SleepCheck(at=noon_local)).target is HypothesisStatus.ACTIVE


def test_three_reinforcements_without_converting_archive_as_stuck() -> None:
    h = form_hypothesis("h1", T0)
    two = final(h, Reinforced(), Reinforced(), check())
    assert two.status is HypothesisStatus.ACTIVE and two.reinforcements == 2
    step = apply_event(final(two, Reinforced()), check(2))
    assert step.target is HypothesisStatus.ARCHIVED_STUCK
    assert "reinforced 3 times" in step.reason


def test_conversion_wins_over_stuck_and_stuck_over_the_deadline() -> None:
    h = final(form_hypothesis("h1", T0), Reinforced(), Reinforced(), Reinforced())
    assert final(h, support("a"), support("b"), support("c"), check()).status is (
        HypothesisStatus.CONFIRMED
    )
    assert apply_event(h, check(30)).target is HypothesisStatus.ARCHIVED_STUCK


def test_terminal_states_ignore_every_later_event() -> None:
    refuted = final(form_hypothesis("h1", T0), contradict("c1"), contradict("c2"), check())
    assert refuted.status is HypothesisStatus.REFUTED
    for event in (support("s1"), Reinforced(), Surfaced(at=T0), check(1), check(100)):
        step = apply_event(refuted, event)
        assert step.hypothesis == refuted and not step.resolved
        assert step.reason == "ignored: refuted is terminal"


def test_repeated_evidence_counts_once_and_reclassified_evidence_moves() -> None:
    h = final(form_hypothesis("h1", T0), support("o1"), support("o1"))
    assert h.supporting == ("o1",)
    step = apply_event(h, contradict("o1"))
    assert step.hypothesis.supporting == () and step.hypothesis.contradicting == ("o1",)
    assert "moved to contradicting" in step.reason


def test_surfacing_keeps_the_latest_time() -> None:
    late, early = T0 + timedelta(days=3), T0 + timedelta(days=1)
    h = final(form_hypothesis("h1", T0), Surfaced(at=late), Surfaced(at=early))
    assert h.last_surfaced_at == late


def test_every_rule_in_the_table_is_reachable() -> None:
    h = form_hypothesis("h1", T0)
    scenarios: dict[HypothesisStatus, list[HypothesisEvent]] = {
        HypothesisStatus.CONFIRMED: [support("a"), support("b"), support("c"), check()],
        HypothesisStatus.REFUTED: [contradict("a"), contradict("b"), check()],
        HypothesisStatus.ARCHIVED_STUCK: [Reinforced(), Reinforced(), Reinforced(), check()],
        HypothesisStatus.ARCHIVED_UNRESOLVED: [check(14)],
        HypothesisStatus.ACTIVE: [support("a"), Reinforced(), Surfaced(at=T0), check()],
    }
    seen = set()
    for target, events in scenarios.items():
        steps = apply_events(h, events)
        assert steps[-1].target is target
        seen |= {(s.source, s.event, s.target) for s in steps}
    assert seen == {(r.source, r.event, r.target) for r in TRANSITIONS}


def test_events_round_trip_through_json_for_workflow_payloads() -> None:
    adapter: TypeAdapter[HypothesisEvent] = TypeAdapter(HypothesisEvent)
    for event in (support("o1"), Reinforced(), Surfaced(at=T0), check()):
        assert adapter.validate_json(adapter.dump_json(event)) == event


def test_policy_rejects_inconsistent_numbers() -> None:
    with pytest.raises(ValidationError):
        HypothesisPolicy(confirm_ratio=1.0)  # both rules could fire on a tie
    with pytest.raises(ValidationError):
        HypothesisPolicy(high_bar_timeout=timedelta(days=7))
    with pytest.raises(ValidationError):
        HypothesisPolicy(high_bar_min_evidence_to_confirm=2)
    with pytest.raises(ValidationError):
        POLICY.timeout = timedelta(days=1)  # type: ignore[misc]  # frozen


def test_reality_anchor_spares_recently_surfaced_hypotheses() -> None:
    now = T0 + timedelta(days=10)
    fresh = form_hypothesis("h1", T0).model_copy(update={"last_surfaced_at": T0})
    assert reality_anchor_factor(fresh, since=T0, now=now) == 1.0


def test_reality_anchor_decays_never_surfaced_hypotheses_from_creation() -> None:
    h = form_hypothesis("h1", T0)
    got = reality_anchor_factor(h, since=T0, now=T0 + timedelta(days=10))
    assert got == pytest.approx(0.95**10)


def test_reality_anchor_starts_30_days_after_the_last_surfacing() -> None:
    h = form_hypothesis("h1", T0, high_bar=True).model_copy(update={"last_surfaced_at": T0})
    now = T0 + timedelta(days=35)
    assert reality_anchor_factor(h, since=T0, now=T0 + timedelta(days=30)) == 1.0
    assert reality_anchor_factor(h, since=T0, now=now) == pytest.approx(0.95**5)
    done = h.model_copy(update={"status": HypothesisStatus.ARCHIVED_UNRESOLVED})
    assert reality_anchor_factor(done, since=T0, now=now) == 1.0


# --- properties -------------------------------------------------------------------------------

_ids = st.sampled_from([f"o{i}" for i in range(6)])
_times = st.integers(min_value=0, max_value=40 * 24).map(lambda h: T0 + timedelta(hours=h))
_events = st.one_of(
    st.builds(EvidenceAdded, observation_id=_ids, stance=st.sampled_from(Stance)),
    st.just(Reinforced()),
    st.builds(Surfaced, at=_times),
    st.builds(SleepCheck, at=_times),
)


@given(events=st.lists(_events, max_size=40), high_bar=st.booleans())
def test_no_event_sequence_leaves_the_transition_table(
    events: list[HypothesisEvent], high_bar: bool
) -> None:
    hypothesis = form_hypothesis("h1", T0, high_bar=high_bar)
    for event, step in zip(events, apply_events(hypothesis, events), strict=True):
        h = step.hypothesis
        assert is_allowed(step.source, step.event, step.target)
        assert set(h.supporting).isdisjoint(h.contradicting)
        assert len(set(h.supporting)) == len(h.supporting)
        if step.source in TERMINAL:
            assert h == hypothesis
        elif not isinstance(event, SleepCheck):
            assert step.target is HypothesisStatus.ACTIVE
        else:
            sup, con = len(h.supporting), len(h.contradicting)
            match step.target:
                case HypothesisStatus.CONFIRMED:
                    assert sup >= 2 * con and sup + con >= POLICY.evidence_to_confirm(high_bar)
                case HypothesisStatus.REFUTED:
                    assert con >= 2 * sup and sup + con >= POLICY.min_evidence_to_refute
                case HypothesisStatus.ARCHIVED_STUCK:
                    assert h.reinforcements >= POLICY.max_reinforcements
                case HypothesisStatus.ARCHIVED_UNRESOLVED:
                    assert event.at >= h.deadline
                case HypothesisStatus.ACTIVE:
                    assert event.at < h.deadline
                    assert h.reinforcements < POLICY.max_reinforcements
        hypothesis = h


@given(events=st.lists(_events, max_size=30), at=_times)
def test_a_second_check_at_the_same_time_changes_nothing(
    events: list[HypothesisEvent], at: datetime
) -> None:
    h = final(form_hypothesis("h1", T0), *events, SleepCheck(at=at))
    again = apply_event(h, SleepCheck(at=at))
    assert again.hypothesis == h and not again.resolved


@given(
    surfaced=st.none() | st.integers(0, 60),
    a=st.integers(0, 90 * 24),
    b=st.integers(0, 90 * 24),
    c=st.integers(0, 90 * 24),
)
def test_reality_anchor_composes_and_never_grows(
    surfaced: int | None, a: int, b: int, c: int
) -> None:
    a, b, c = sorted((a, b, c))
    h = form_hypothesis("h1", T0).model_copy(
        update={"last_surfaced_at": None if surfaced is None else T0 + timedelta(days=surfaced)}
    )
    ta, tb, tc = (T0 + timedelta(hours=x) for x in (a, b, c))
    ab = reality_anchor_factor(h, since=ta, now=tb)
    bc = reality_anchor_factor(h, since=tb, now=tc)
    ac = reality_anchor_factor(h, since=ta, now=tc)
    assert 0.0 < ac <= ab <= 1.0
    assert math.isclose(ab * bc, ac, rel_tol=1e-9)


# --- the reality anchor gates confirmation (issue 33) --------------------------------------------


def test_model_only_support_does_not_confirm_a_hypothesis_the_dialogue_never_touched() -> None:
    steps = apply_events(
        form_hypothesis("h1", T0), [*(model_support(f"m{i}") for i in range(3)), check(3)]
    )
    assert steps[-1].target is HypothesisStatus.ACTIVE
    assert "only in the model's reading" in steps[-1].reason
    # One observation the rule read too is not enough beside two model-only ones (3 needed).
    mixed = final(
        form_hypothesis("h1", T0), model_support("m0"), model_support("m1"), support("s0"), check(3)
    )
    assert mixed.status is HypothesisStatus.ACTIVE
    ruled = final(form_hypothesis("h1", T0), *(support(f"s{i}") for i in range(3)), check(3))
    assert ruled.status is HypothesisStatus.CONFIRMED


def test_model_only_support_confirms_once_the_dialogue_surfaced_it() -> None:
    surfaced = Surfaced(at=T0 + timedelta(days=2))
    events: list[HypothesisEvent] = [
        *(model_support(f"m{i}") for i in range(3)),
        surfaced,
        check(3),
    ]
    assert final(form_hypothesis("h1", T0), *events).status is HypothesisStatus.CONFIRMED


@pytest.mark.parametrize(("check_day", "expected"), [(31.9, "confirmed"), (32.0, "active")])
def test_model_only_support_counts_for_the_surfacing_window_and_not_after(
    check_day: float, expected: str
) -> None:
    """Both sides of the 30-day window (a policy whose deadline outlives the window: with the
    defaults a hypothesis is archived at 14 or 28 days, before its surfacing can go stale)."""
    long_lived = HypothesisPolicy(timeout=timedelta(days=60), high_bar_timeout=timedelta(days=60))
    h = form_hypothesis("h1", T0, policy=long_lived)
    events: list[HypothesisEvent] = [Surfaced(at=T0 + timedelta(days=2))]
    events += [model_support(f"m{i}") for i in range(3)]
    steps = apply_events(h, [*events, check(check_day)], long_lived)
    assert steps[-1].target.value == expected


def test_model_support_read_again_as_contradicting_is_no_longer_model_support() -> None:
    h = final(form_hypothesis("h1", T0), model_support("m0"), model_support("m1"))
    assert model_only_support(h) == 2
    moved = final(h, contradict("m0"))
    assert (moved.model_supported, moved.contradicting) == (("m1",), ("m0",))
    # The rule reading it as support later makes it the user's own support.
    ruled = final(moved, support("m1"))
    assert model_only_support(ruled) == 1  # already counted: the repeat changes nothing
    stripped = ruled.model_copy(update={"supporting": ()})
    assert model_only_support(stripped) == 0  # ids no longer supporting never count
