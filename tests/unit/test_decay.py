"""Forgetting curves, the decay clock and reinforcement (spec §3.3, §3.8.1, §6)."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from pydantic import ValidationError

from selfimprint.domain.decay import (
    DEFAULT_DECAY,
    ActivityTimeline,
    DecayConfig,
    PausedInterval,
    ReinforcementTally,
    coefficient_for,
    decay_days,
    effective_weight,
    expires_at,
    is_expired,
    is_significant_event,
    node_coefficient,
    node_effective_weight,
    reinforce,
    reinforce_node,
)
from selfimprint.domain.models import Belief, Node, NodeType, Valence

pytestmark = pytest.mark.unit

T0 = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def days(n: float) -> timedelta:
    return n * DAY


def node(**overrides: Any) -> Node:
    fields: dict[str, Any] = {
        "id": "n-1",
        "user_id": "u-1",
        "type": NodeType.FACT,
        "content": "Has a dog called Tofu",
        "weight_at": T0,
        "created_at": T0,
        "belief": Belief(first_seen=T0),
    }
    return Node.model_validate(fields | overrides)


# Strategies -------------------------------------------------------------------------------------

offsets = st.floats(min_value=0.0, max_value=400.0, allow_nan=False)
coefficients = st.floats(min_value=0.01, max_value=1.0, exclude_min=True)
weights = st.floats(min_value=0.0, max_value=1.0)


@st.composite
def timelines(draw: st.DrawFn) -> ActivityTimeline:
    """Activity on random days, including absences longer than the 7-day grace period."""
    gaps = draw(st.lists(st.floats(min_value=0.01, max_value=60.0), max_size=12))
    moments = [T0]
    for gap in gaps:
        moments.append(moments[-1] + days(gap))
    return ActivityTimeline.from_activity(moments)


# Coefficients -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("node_type", "kwargs", "expected"),
    [
        (NodeType.EMOTIONAL_NOTE, {"valence": Valence.NEGATIVE}, 0.5),
        (NodeType.EMOTIONAL_NOTE, {"valence": Valence.POSITIVE}, 0.85),
        (NodeType.FACT, {}, 0.92),
        (NodeType.EVENT, {}, 0.95),
        (NodeType.EVENT, {"significant": True}, 0.98),
        (NodeType.PERSON, {}, 0.97),
        (NodeType.OPEN_LOOP, {}, 0.99),
        (NodeType.HYPOTHESIS, {}, 0.92),
        (NodeType.EMOTIONAL_NOTE, {"valence": Valence.NEGATIVE, "pinned": True}, 1.0),
        (NodeType.FACT, {"pinned": True}, 1.0),
    ],
)
def test_coefficient_table_of_spec_3_3(
    node_type: NodeType, kwargs: dict[str, Any], expected: float
) -> None:
    assert coefficient_for(node_type, **kwargs) == expected


def test_an_emotional_note_without_valence_has_no_coefficient() -> None:
    with pytest.raises(ValueError, match="valence"):
        coefficient_for(NodeType.EMOTIONAL_NOTE)


def test_significance_only_for_events_above_the_threshold() -> None:
    assert is_significant_event(NodeType.EVENT, 0.81)
    assert not is_significant_event(NodeType.EVENT, 0.8)  # "above 0.8"
    assert not is_significant_event(NodeType.FACT, 0.99)


def test_coefficients_come_from_the_config() -> None:
    tuned = DecayConfig(fact=0.9, significance_threshold=0.5)
    assert coefficient_for(NodeType.FACT, config=tuned) == 0.9
    assert is_significant_event(NodeType.EVENT, 0.6, tuned)


@pytest.mark.parametrize("bad", [{"fact": 0.0}, {"fact": 1.01}, {"removal_threshold": 0.0}])
def test_config_rejects_impossible_values(bad: dict[str, float]) -> None:
    with pytest.raises(ValidationError):
        DecayConfig.model_validate(bad)


def test_config_is_frozen() -> None:
    with pytest.raises(ValidationError):
        DEFAULT_DECAY.fact = 0.5  # type: ignore[misc]


def test_pinning_overrides_a_stored_coefficient() -> None:
    assert node_coefficient(node(decay_coefficient=0.92, is_pinned=True)) == 1.0
    assert node_coefficient(node(decay_coefficient=0.8)) == 0.8


# Lazy weight ------------------------------------------------------------------------------------


@pytest.mark.parametrize("whole_days", [0, 1, 2, 7, 30])
def test_lazy_weight_matches_the_daily_step_at_whole_days(whole_days: int) -> None:
    expected = 0.8 * 0.92**whole_days
    got = effective_weight(0.8, T0, 0.92, T0 + days(whole_days))
    assert got == pytest.approx(expected, rel=1e-12)


def test_a_negative_emotional_note_halves_each_day() -> None:
    note = node(type=NodeType.EMOTIONAL_NOTE, valence="negative", decay_coefficient=0.5)
    assert node_effective_weight(note, T0 + days(3)) == pytest.approx(0.125)


def test_a_node_expires_when_its_weight_reaches_the_removal_threshold() -> None:
    # The sweeper prunes by `expires_at` in Cypher; this is the instant the weight hits 0.05.
    moment = expires_at(1.0, T0, 0.5)
    assert moment is not None
    periods = (moment - T0) / DEFAULT_DECAY.decay_period
    assert 0.5**periods == pytest.approx(DEFAULT_DECAY.removal_threshold)


# expires_at vs the "time from 1.0 to removal" column of spec §3.3 ------------------------------

# The table rounds to whole days ("~36"), so the closed form must land within half a day of it.
# The negative note row is a range ("~4–5 days") and is checked as one.
TABLE_TOLERANCE_DAYS = 0.5


@pytest.mark.parametrize(
    ("node_type", "kwargs", "table_days"),
    [
        (NodeType.EMOTIONAL_NOTE, {"valence": Valence.POSITIVE}, 18),
        (NodeType.FACT, {}, 36),
        (NodeType.EVENT, {}, 58),
        (NodeType.EVENT, {"significant": True}, 148),
        (NodeType.PERSON, {}, 98),
        (NodeType.OPEN_LOOP, {}, 298),
    ],
)
def test_expiry_agrees_with_the_spec_table(
    node_type: NodeType, kwargs: dict[str, Any], table_days: int
) -> None:
    moment = expires_at(1.0, T0, coefficient_for(node_type, **kwargs))
    assert moment is not None
    assert abs((moment - T0) / DAY - table_days) <= TABLE_TOLERANCE_DAYS


def test_negative_note_expires_within_the_tables_4_to_5_days() -> None:
    moment = expires_at(1.0, T0, coefficient_for(NodeType.EMOTIONAL_NOTE, valence=Valence.NEGATIVE))
    assert moment is not None
    assert 4 <= (moment - T0) / DAY <= 5


def test_pinned_never_expires() -> None:
    assert expires_at(1.0, T0, coefficient_for(NodeType.FACT, pinned=True)) is None


def test_a_weight_already_below_the_threshold_expires_at_once() -> None:
    assert expires_at(0.01, T0, 0.92) == T0
    assert expires_at(0.0, T0, 0.92) == T0


def test_expiry_is_read_on_the_decay_clock_so_an_absence_keeps_a_memory() -> None:
    # Active at T0 and again 60 days later: the clock stood still from day 7 to day 60.
    back = [T0 + days(60 + 5 * i) for i in range(8)]  # then active every 5 days
    timeline = ActivityTimeline.from_activity([T0, *back])
    assert timeline.reading(T0) == T0
    assert timeline.reading(T0 + days(60)) == T0 + days(7)
    fact = node(decay_coefficient=0.92)
    moment = expires_at(1.0, T0, 0.92, timeline=timeline)
    fact = fact.model_copy(update={"expires_at": moment})
    # 0.92 ** 36 < 0.05: a wall-clock expiry would have removed it by day 36.
    assert moment is not None and moment < T0 + days(36)
    assert not is_expired(fact, T0 + days(60), timeline=timeline)
    assert is_expired(fact, T0 + days(60), timeline=None)
    # Back and active again: it fades from where the clock stopped, 29 more active days.
    assert not is_expired(fact, T0 + days(88), timeline=timeline)
    assert is_expired(fact, T0 + days(90), timeline=timeline)
    assert node_effective_weight(fact, T0 + days(60), timeline=timeline) == pytest.approx(0.92**7)


def test_expiry_beyond_the_calendar_is_never() -> None:
    assert expires_at(1.0, T0, 1.0 - 1e-15) is None


@given(
    weight=weights,
    coefficient=coefficients,
    timeline=timelines(),
    stamped=offsets,
    later=offsets,
)
def test_expired_exactly_when_the_effective_weight_is_below_the_threshold(
    weight: float, coefficient: float, timeline: ActivityTimeline, stamped: float, later: float
) -> None:
    at = T0 + days(stamped)
    now = at + days(later)
    memory = node(
        weight=weight,
        weight_at=at,
        created_at=at,
        decay_coefficient=coefficient,
        expires_at=expires_at(weight, at, coefficient, timeline=timeline),
    )
    current = node_effective_weight(memory, now, timeline=timeline)
    threshold = DEFAULT_DECAY.removal_threshold
    assume(not math.isclose(current, threshold, rel_tol=1e-6))
    assume(coefficient < 1.0)  # coefficient 1 is a pin: it never expires
    assert is_expired(memory, now, timeline=timeline) == (current < threshold)


# The decay clock --------------------------------------------------------------------------------


def test_no_pause_for_gaps_up_to_the_grace_period() -> None:
    timeline = ActivityTimeline.from_activity([T0, T0 + days(7), T0 + days(14)])
    assert timeline.pauses == ()
    assert decay_days(T0, T0 + days(14), timeline) == pytest.approx(14)


def test_an_absence_pauses_the_clock_after_the_grace_period() -> None:
    timeline = ActivityTimeline.from_activity([T0, T0 + days(30)])
    assert timeline.pauses == (PausedInterval(start=T0 + days(7), end=T0 + days(30)),)
    assert decay_days(T0, T0 + days(31), timeline) == pytest.approx(8)


def test_the_clock_stands_still_while_the_user_is_still_away() -> None:
    timeline = ActivityTimeline.from_activity([T0])
    assert decay_days(T0, T0 + days(60), timeline) == pytest.approx(7)


def test_spec_6_two_months_away_does_not_erase_memory() -> None:
    fact = node(decay_coefficient=coefficient_for(NodeType.FACT))
    timeline = ActivityTimeline.from_activity([T0])
    returned = T0 + days(60)
    assert node_effective_weight(fact, returned) < DEFAULT_DECAY.removal_threshold
    kept = node_effective_weight(fact, returned, timeline=timeline)
    assert kept == pytest.approx(0.92**7)


def test_late_activity_does_not_rewrite_the_timeline() -> None:
    timeline = ActivityTimeline.from_activity([T0, T0 + days(20)])
    assert timeline.record_activity(T0 + days(10)) == timeline


def test_timeline_rejects_overlapping_or_future_pauses() -> None:
    first = PausedInterval(start=T0, end=T0 + days(5))
    overlapping = PausedInterval(start=T0 + days(4), end=T0 + days(6))
    with pytest.raises(ValidationError, match="overlap"):
        ActivityTimeline(last_active_at=T0 + days(6), pauses=(first, overlapping))
    with pytest.raises(ValidationError, match="last"):
        ActivityTimeline(last_active_at=T0 + days(1), pauses=(first,))
    with pytest.raises(ValidationError, match="end after"):
        PausedInterval(start=T0, end=T0)


def test_a_reversed_interval_counts_no_decay() -> None:
    assert decay_days(T0 + days(2), T0) == 0.0
    assert effective_weight(0.6, T0 + days(2), 0.5, T0) == 0.6


@given(timeline=timelines(), a=offsets, b=offsets, c=offsets)
def test_decay_days_add_up_and_never_exceed_wall_time(
    timeline: ActivityTimeline, a: float, b: float, c: float
) -> None:
    first, middle, last = sorted((a, b, c))
    t1, t2, t3 = T0 + days(first), T0 + days(middle), T0 + days(last)
    whole = decay_days(t1, t3, timeline)
    assert whole == pytest.approx(
        decay_days(t1, t2, timeline) + decay_days(t2, t3, timeline), abs=1e-6
    )
    assert 0.0 <= whole <= (t3 - t1) / DAY + 1e-9


@given(weight=weights, coefficient=coefficients, timeline=timelines(), a=offsets, b=offsets)
def test_weight_never_rises_without_reinforcement(
    weight: float, coefficient: float, timeline: ActivityTimeline, a: float, b: float
) -> None:
    earlier, later = sorted((a, b))
    w_earlier = effective_weight(weight, T0, coefficient, T0 + days(earlier), timeline=timeline)
    w_later = effective_weight(weight, T0, coefficient, T0 + days(later), timeline=timeline)
    assert w_later <= w_earlier <= weight


@given(stored=coefficients, weight=weights, elapsed=offsets, timeline=timelines())
def test_pinned_nodes_never_decay(
    stored: float, weight: float, elapsed: float, timeline: ActivityTimeline
) -> None:
    pinned = node(is_pinned=True, decay_coefficient=stored, weight=weight)
    assert node_effective_weight(pinned, T0 + days(elapsed), timeline=timeline) == weight


@given(timeline=timelines(), weight=weights, coefficient=coefficients, data=st.data())
def test_paused_intervals_do_not_decay(
    timeline: ActivityTimeline,
    weight: float,
    coefficient: float,
    data: st.DataObject,
) -> None:
    intervals = timeline.paused_intervals()
    start, end = data.draw(st.sampled_from(intervals))
    stop = end if end is not None else start + days(365)
    span = (stop - start) / DAY
    x, y = sorted(data.draw(st.lists(st.floats(0.0, span), min_size=2, max_size=2)))
    first, second = start + days(x), min(start + days(y), stop)
    assert decay_days(first, second, timeline) == pytest.approx(0.0, abs=1e-9)
    assert effective_weight(weight, T0, coefficient, second, timeline=timeline) == pytest.approx(
        effective_weight(weight, T0, coefficient, first, timeline=timeline), rel=1e-9, abs=1e-12
    )


# Reinforcement ----------------------------------------------------------------------------------


def test_reinforcement_adds_a_step_and_caps_at_one() -> None:
    assert reinforce(0.5, T0).weight == pytest.approx(0.65)
    assert reinforce(0.95, T0).weight == 1.0


def test_the_eleventh_reinforcement_of_a_day_is_ignored_and_flagged() -> None:
    tally: ReinforcementTally | None = None
    weight = 0.0
    for _ in range(DEFAULT_DECAY.max_reinforcements_per_day):
        result = reinforce(weight, T0, tally)
        assert result.applied and not result.tally.flagged
        weight, tally = result.weight, result.tally
    extra = reinforce(0.2, T0 + timedelta(hours=1), tally)
    assert extra.rate_limited
    assert extra.weight == 0.2
    assert extra.tally.flagged
    assert extra.tally.applied == DEFAULT_DECAY.max_reinforcements_per_day


def test_the_daily_limit_resets_on_the_next_utc_day() -> None:
    spent = ReinforcementTally(day=T0.date(), applied=10, ignored=3)
    tomorrow = datetime(2026, 3, 11, 0, 0, 1, tzinfo=UTC)
    result = reinforce(0.4, tomorrow, spent)
    assert result.applied
    assert result.tally == ReinforcementTally(day=tomorrow.date(), applied=1)


def test_the_day_is_the_utc_day_whatever_the_callers_zone() -> None:
    # 23:30 UTC on the 10th is 01:30 on the 11th in Helsinki: still the 10th's budget.
    helsinki = timezone(timedelta(hours=2))
    late = datetime(2026, 3, 11, 1, 30, tzinfo=helsinki)
    spent = ReinforcementTally(day=T0.date(), applied=10)
    assert reinforce(0.4, late, spent).rate_limited


@given(start=weights, mentions=st.integers(min_value=0, max_value=30))
def test_reinforcement_in_one_day_is_bounded(start: float, mentions: int) -> None:
    tally: ReinforcementTally | None = None
    weight = start
    for _ in range(mentions):
        result = reinforce(weight, T0, tally)
        assert weight <= result.weight <= max(weight, DEFAULT_DECAY.weight_cap)
        weight, tally = result.weight, result.tally
    limit = DEFAULT_DECAY.max_reinforcements_per_day
    applied = min(mentions, limit)
    assert weight <= min(1.0, start + applied * DEFAULT_DECAY.reinforcement_step) + 1e-12
    if tally is not None:
        assert tally.applied == applied
        assert tally.flagged == (mentions > limit)


def test_reinforce_node_materialises_decay_first() -> None:
    fact = node(weight=0.8, decay_coefficient=0.5)
    later = T0 + days(2)
    updated, result = reinforce_node(fact, later)
    assert result.applied
    assert updated.weight == pytest.approx(0.8 * 0.25 + 0.15)
    assert updated.weight_at == later
    assert updated.last_reinforced_at == later
    assert updated.expires_at == expires_at(updated.weight, later, 0.5)
    assert updated.content == fact.content


def test_a_rate_limited_mention_leaves_the_node_unchanged() -> None:
    fact = node(weight=0.5)
    spent = ReinforcementTally(day=T0.date(), applied=10)
    updated, result = reinforce_node(fact, T0 + timedelta(hours=2), spent)
    assert updated is fact
    assert result.tally.flagged


def test_expiry_moves_later_after_reinforcement() -> None:
    fact = node(weight=0.3, decay_coefficient=0.92)
    before = expires_at(fact.weight, fact.weight_at, fact.decay_coefficient)
    updated, _ = reinforce_node(fact, T0 + days(1))
    assert before is not None and updated.expires_at is not None
    assert updated.expires_at > before
    assert math.isclose(
        node_effective_weight(updated, updated.expires_at),
        DEFAULT_DECAY.removal_threshold,
        rel_tol=1e-6,
    )
