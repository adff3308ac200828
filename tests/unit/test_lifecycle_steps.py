"""The lifecycle's decisions without a Temporal server (domain.lifecycle): the priority ladder
over every combination of what the workflow can know, the wait's deadline, and the rules the
workflow used to hold inline (sessions, compaction after a deep pass, the forget overlap)."""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from selfimprint.domain.lifecycle import (
    EXTRACTION_BATCH,
    FORGET_OVERLAP_GRACE,
    MIN_WAIT,
    Extract,
    MoveTier,
    PlannedSleep,
    Reconcile,
    ReplayForget,
    Situation,
    Sleep,
    SoftReset,
    Step,
    Wait,
    compaction_due,
    forget_overlapped,
    next_step,
    starts_session,
    tier_move_due,
)
from selfimprint.domain.lifecycle_timings import LifecycleTimings
from selfimprint.domain.sleep_policy import Depth, SleepKind
from selfimprint.domain.sleep_writes import SleepStatus
from selfimprint.domain.users import Tier

pytestmark = pytest.mark.unit

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
TIMINGS = LifecycleTimings()


def quiet(**changes: object) -> Situation:
    """A hot user with nothing to do: reconciled an hour ago, active an hour ago, no sleep."""
    base = Situation(
        tier=Tier.HOT,
        pending=(),
        forget_waits=(),
        paused=False,
        rehydrate_requested=False,
        sleep_requested=None,
        soft_reset_requested=False,
        planned_sleep=None,
        last_active_at=NOW - timedelta(hours=1),
        last_reconcile_at=NOW - timedelta(hours=1),
        timings=TIMINGS,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


# --- the ladder over every combination ---------------------------------------------------------

TIERS = (Tier.HOT, Tier.WARM, Tier.COLD)
PENDING = ((), ("m1", "m2", "m3", "m4", "m5"))
FORGETS = ("none", "waiting", "free")  # a queued replay waiting on m1, or on nothing pending
PLANNED = ("none", "due", "later")
IDLE = ("fresh", "long")  # last activity an hour ago, or 40 days ago (any tier move is due)
RECONCILE = ("due", "later")


def _situation(
    tier: Tier,
    pending: tuple[str, ...],
    forget: str,
    paused: bool,
    rehydrate: bool,
    requested: bool,
    soft_reset: bool,
    planned: str,
    idle: str,
    reconcile: str,
) -> Situation:
    waits: tuple[frozenset[str], ...] = {
        "none": (),
        "waiting": (frozenset({"m1"}),),
        "free": (frozenset({"gone"}),),
    }[forget]
    sleep = {
        "none": None,
        "due": PlannedSleep(NOW - timedelta(minutes=1), Depth.FULL, SleepKind.DEEP),
        "later": PlannedSleep(NOW + timedelta(hours=3), Depth.LIGHT, SleepKind.REGULAR),
    }[planned]
    return quiet(
        tier=tier,
        pending=pending,
        forget_waits=waits,
        paused=paused,
        rehydrate_requested=rehydrate,
        sleep_requested=Depth.FULL if requested else None,
        soft_reset_requested=soft_reset,
        planned_sleep=sleep,
        last_active_at=NOW - (timedelta(hours=1) if idle == "fresh" else timedelta(days=40)),
        last_reconcile_at=NOW - (timedelta(days=2) if reconcile == "due" else timedelta(hours=1)),
    )


def _expected(s: Situation) -> type[Step]:
    """The ladder as the spec orders it (domain.lifecycle's docstring), one rule a line."""
    pending = set(s.pending)
    if any(pending.isdisjoint(w) for w in s.forget_waits):
        return ReplayForget
    needs_graph = bool(s.pending) or s.rehydrate_requested or s.sleep_requested is not None
    if s.tier is not Tier.HOT and (needs_graph or s.soft_reset_requested):
        return MoveTier
    if s.pending:
        return Extract
    if s.soft_reset_requested:
        return SoftReset
    if s.sleep_requested is not None:
        return Sleep
    if not s.paused and s.planned_sleep is not None and s.planned_sleep.at <= NOW:
        return Sleep
    assert s.last_active_at is not None
    idle = NOW - s.last_active_at
    if not s.paused and s.tier is not Tier.COLD and idle >= TIMINGS.warm_after:
        return MoveTier
    assert s.last_reconcile_at is not None
    if NOW - s.last_reconcile_at >= TIMINGS.reconcile_every:
        return Reconcile
    return Wait


BOOLS = (False, True)
COMBINATIONS = list(
    itertools.product(TIERS, PENDING, FORGETS, BOOLS, BOOLS, BOOLS, BOOLS, PLANNED, IDLE, RECONCILE)
)


def test_every_combination_takes_the_step_the_ladder_names() -> None:
    assert len(COMBINATIONS) == 3 * 2 * 3 * 16 * 3 * 2 * 2
    for combination in COMBINATIONS:
        situation = _situation(*combination)
        step = next_step(situation, NOW)
        assert type(step) is _expected(situation), combination


# --- what each step carries --------------------------------------------------------------------


def test_extraction_takes_the_oldest_batch() -> None:
    pending = tuple(f"m{i}" for i in range(10))
    assert next_step(quiet(pending=pending), NOW) == Extract(pending[:EXTRACTION_BATCH])
    assert next_step(quiet(pending=pending), NOW, batch=2) == Extract(("m0", "m1"))


def test_a_graph_outside_neo4j_comes_back_hot_before_anything_touches_it() -> None:
    for tier in (Tier.WARM, Tier.COLD):
        assert next_step(quiet(tier=tier, pending=("m1",)), NOW) == MoveTier(Tier.HOT)
        assert next_step(quiet(tier=tier, rehydrate_requested=True), NOW) == MoveTier(Tier.HOT)


def test_the_first_free_forget_runs_first() -> None:
    waits: tuple[frozenset[str], ...] = (frozenset({"m1"}), frozenset({"m9"}), frozenset())
    assert next_step(quiet(pending=("m1",), forget_waits=waits), NOW) == ReplayForget(1)


def test_a_requested_sleep_is_explicit_and_a_planned_one_is_not() -> None:
    assert next_step(quiet(sleep_requested=Depth.LIGHT), NOW) == Sleep(
        Depth.LIGHT, None, explicit=True
    )
    due = PlannedSleep(NOW, Depth.FULL, SleepKind.DEEP)
    assert next_step(quiet(planned_sleep=due), NOW) == Sleep(
        Depth.FULL, SleepKind.DEEP, explicit=False
    )


def test_idle_graphs_move_one_tier_colder() -> None:
    warm_due = NOW - TIMINGS.warm_after
    assert next_step(quiet(last_active_at=warm_due), NOW) == MoveTier(Tier.WARM)
    cold_due = NOW - TIMINGS.cold_after
    assert next_step(quiet(tier=Tier.WARM, last_active_at=cold_due), NOW) == MoveTier(Tier.COLD)
    assert isinstance(next_step(quiet(tier=Tier.COLD, last_active_at=cold_due), NOW), Wait)


# --- the wait ------------------------------------------------------------------------------------


def test_the_wait_ends_at_the_earliest_deadline() -> None:
    later = PlannedSleep(NOW + timedelta(hours=2), Depth.LIGHT, SleepKind.REGULAR)
    assert next_step(quiet(planned_sleep=later), NOW) == Wait(timedelta(hours=2))
    # No sleep planned: the reconcile, an hour ago plus a day, comes before the tier move.
    assert next_step(quiet(), NOW) == Wait(timedelta(hours=23))
    # The tier move when it comes first.
    nearly_idle = NOW - TIMINGS.warm_after + timedelta(minutes=5)
    assert next_step(quiet(last_active_at=nearly_idle), NOW) == Wait(timedelta(minutes=5))


def test_paused_waits_only_for_the_reconcile() -> None:
    later = PlannedSleep(NOW + timedelta(minutes=10), Depth.LIGHT, SleepKind.REGULAR)
    assert next_step(quiet(paused=True, planned_sleep=later), NOW) == Wait(timedelta(hours=23))


def test_the_wait_is_never_shorter_than_a_second() -> None:
    almost = PlannedSleep(NOW + timedelta(milliseconds=10), Depth.LIGHT, SleepKind.REGULAR)
    assert next_step(quiet(planned_sleep=almost), NOW) == Wait(MIN_WAIT)


def test_never_reconciled_waits_a_whole_period() -> None:
    step = next_step(quiet(last_reconcile_at=None, last_active_at=None), NOW)
    assert step == Wait(TIMINGS.reconcile_every)


# --- the rules beside the ladder -------------------------------------------------------------


def test_tier_move_due() -> None:
    last = NOW - timedelta(days=1)
    assert tier_move_due(Tier.HOT, last, TIMINGS) == (last + TIMINGS.warm_after, Tier.WARM)
    assert tier_move_due(Tier.WARM, last, TIMINGS) == (last + TIMINGS.cold_after, Tier.COLD)
    assert tier_move_due(Tier.COLD, last, TIMINGS) is None
    assert tier_move_due(Tier.HOT, None, TIMINGS) is None


def test_a_session_starts_after_the_gap() -> None:
    gap = TIMINGS.session_gap
    assert starts_session(None, NOW, gap)
    assert starts_session(NOW - gap, NOW, gap)
    assert not starts_session(NOW - gap + timedelta(seconds=1), NOW, gap)


@pytest.mark.parametrize(
    ("kind", "status", "last", "due"),
    [
        (SleepKind.DEEP, SleepStatus.COMPLETED, None, True),
        (SleepKind.DEEP, SleepStatus.SKIPPED, NOW - timedelta(days=7), True),
        (SleepKind.DEEP, SleepStatus.COMPLETED, NOW - timedelta(days=6), False),
        (SleepKind.DEEP, SleepStatus.FAILED, None, False),
        (SleepKind.DEEP, SleepStatus.CANCELLED, None, False),
        (SleepKind.REGULAR, SleepStatus.COMPLETED, None, False),
        (None, SleepStatus.COMPLETED, None, False),
    ],
)
def test_compaction_follows_a_deep_pass_once_a_week(
    kind: SleepKind | None, status: SleepStatus, last: datetime | None, due: bool
) -> None:
    assert compaction_due(kind, status, NOW, last, TIMINGS.compaction_every) is due


def test_a_forget_overlaps_what_ran_with_it_or_just_before() -> None:
    started = NOW
    quiet_before = NOW - FORGET_OVERLAP_GRACE - timedelta(seconds=1)
    assert not forget_overlapped(
        operation_running=False,
        messages_pending=False,
        last_operation_ended_at=quiet_before,
        forget_started_at=started,
    )
    assert not forget_overlapped(
        operation_running=False,
        messages_pending=False,
        last_operation_ended_at=None,
        forget_started_at=started,
    )
    for running, pending, ended in [
        (True, False, None),
        (False, True, None),
        (False, False, NOW - FORGET_OVERLAP_GRACE),
        (False, False, NOW + timedelta(minutes=5)),
    ]:
        assert forget_overlapped(
            operation_running=running,
            messages_pending=pending,
            last_operation_ended_at=ended,
            forget_started_at=started,
        )
