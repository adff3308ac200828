"""Adaptive sleep scheduling (spec §3.6) and the trigger rule (spec §3.5)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from pydantic import ValidationError

from selfimprint.domain.sleep_policy import (
    DEFAULT_SCHEDULE,
    ActivityLevel,
    ActivityLog,
    ActivityStats,
    Depth,
    NextSleep,
    Plan,
    ScheduleState,
    SleepKind,
    SleepOperation,
    SleepPolicy,
    TriggerRule,
    activity_level,
    local_instant,
    next_sleep_at,
    operations_for,
)

pytestmark = pytest.mark.unit

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
MOSCOW = ZoneInfo("Europe/Moscow")
HELSINKI = ZoneInfo("Europe/Helsinki")
START = datetime(2026, 2, 1, tzinfo=UTC)
ORDER = list(ActivityLevel)[::-1]  # inactive < dormant < light < regular < very_active


def stats(week: int, month: int | None = None, last: datetime | None = START) -> ActivityStats:
    return ActivityStats(
        messages_in_rate_window=week,
        messages_in_month_window=week if month is None else month,
        last_message_at=last,
    )


def log_of(*messages: datetime) -> ActivityLog:
    log = ActivityLog()
    for at in messages:
        log = log.record(at)
    return log


def busy_day(day: datetime, count: int = 8, first_hour: int = 9) -> list[datetime]:
    """`count` messages an hour apart from `first_hour` on `day` (UTC)."""
    return [day.replace(hour=first_hour) + timedelta(hours=i) for i in range(count)]


def state(
    plan: Plan, messages: list[datetime], last_sleep: datetime | None = None
) -> ScheduleState:
    return ScheduleState(
        plan=plan, activity=log_of(*messages), last_sleep_at=last_sleep, tracking_since=START
    )


def very_active_until(day: datetime) -> list[datetime]:
    return [m for d in range(7) for m in busy_day(day - timedelta(days=d))]


# --- activity level ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("week", "month", "level"),
    [
        (35, 35, ActivityLevel.VERY_ACTIVE),  # 5/day over 7 days
        (34, 34, ActivityLevel.REGULAR),
        (7, 7, ActivityLevel.REGULAR),  # 1/day
        (6, 6, ActivityLevel.LIGHT),
        (1, 1, ActivityLevel.LIGHT),  # 1/week
        (0, 1, ActivityLevel.DORMANT),  # 1/month
    ],
)
def test_activity_level_follows_the_spec_thresholds(
    week: int, month: int, level: ActivityLevel
) -> None:
    assert activity_level(stats(week, month), START) is level


def test_thirty_silent_days_make_a_user_inactive() -> None:
    recent = stats(0, 1, last=START - timedelta(days=29, hours=23))
    assert activity_level(recent, START) is ActivityLevel.DORMANT
    assert activity_level(stats(0, 1, START - timedelta(days=30)), START) is ActivityLevel.INACTIVE
    assert activity_level(stats(0, 0, last=None), START) is ActivityLevel.INACTIVE


def test_a_message_younger_than_thirty_days_keeps_the_user_dormant() -> None:
    # Found by the property below: 29 d 23 h 59 min of silence fell outside 30 calendar days.
    message = START + timedelta(days=9, minutes=1)
    now = START + timedelta(days=39)
    log = log_of(message)
    assert log.stats(now).messages_in_month_window == 1
    assert activity_level(log.stats(now), now) is ActivityLevel.DORMANT
    later = message + timedelta(days=30)
    assert activity_level(log.stats(later), later) is ActivityLevel.INACTIVE


def test_activity_log_counts_utc_days_and_forgets_after_the_month_window() -> None:
    log = log_of(*(START + timedelta(days=d, hours=1) for d in range(45)))
    now = START + timedelta(days=44, hours=2)
    assert len(log.days) == 31  # the 30 days before `now` touch 31 UTC days
    assert log.messages_in_last(7, now) == 7
    assert log.stats(now).messages_in_month_window == 31
    assert log.last_message_at == START + timedelta(days=44, hours=1)
    with pytest.raises(ValueError):
        log.record(now, messages=0)
    berlin_night = datetime(2026, 3, 2, 0, 30, tzinfo=BERLIN)  # still 1 March in UTC
    assert ActivityLog().record(berlin_night).days[0].day == date(2026, 3, 1)


# --- the table and the plan -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("plan", "level", "every", "most", "depth"),
    [
        (Plan.PAID, ActivityLevel.VERY_ACTIVE, 1, 1, Depth.FULL),
        (Plan.PAID, ActivityLevel.REGULAR, 2, 2, Depth.FULL),
        (Plan.PAID, ActivityLevel.LIGHT, 7, 7, Depth.LIGHT),
        (Plan.PAID, ActivityLevel.DORMANT, 30, 30, Depth.LIGHT),
        (Plan.FREE, ActivityLevel.VERY_ACTIVE, 3, 7, Depth.FULL),
        (Plan.FREE, ActivityLevel.REGULAR, 7, 7, Depth.LIGHT),
        (Plan.FREE, ActivityLevel.LIGHT, 14, 14, Depth.LIGHT),
        (Plan.FREE, ActivityLevel.DORMANT, 30, 30, Depth.LIGHT),
    ],
)
def test_default_schedule_is_the_spec_table(
    plan: Plan, level: ActivityLevel, every: int, most: int, depth: Depth
) -> None:
    row = SleepPolicy().row(plan, level)
    assert (row.every_days, row.every_max_days, row.depth) == (every, most, depth)
    assert row.regular_passes is (plan is Plan.PAID and level is ActivityLevel.VERY_ACTIVE)


def test_full_runs_all_six_operations_in_order_and_light_only_two() -> None:
    assert operations_for(Depth.FULL) == (
        SleepOperation.PATTERN_DETECTION,
        SleepOperation.CONNECTION_INFERENCE,
        SleepOperation.HYPOTHESIS_FORMATION,
        SleepOperation.IMPORTANCE_RECALIBRATION,
        SleepOperation.SCHEDULED_TRIGGERS,
        SleepOperation.OPEN_LOOP_PREPARATION,
    )
    assert operations_for(Depth.LIGHT) == (
        SleepOperation.PATTERN_DETECTION,
        SleepOperation.IMPORTANCE_RECALIBRATION,
    )


def test_policy_rejects_an_incomplete_schedule_and_zoned_times() -> None:
    with pytest.raises(ValidationError):
        SleepPolicy(schedule=DEFAULT_SCHEDULE[:-1])
    with pytest.raises(ValidationError):
        SleepPolicy(schedule=(*DEFAULT_SCHEDULE, DEFAULT_SCHEDULE[0]))
    with pytest.raises(ValidationError):
        TriggerRule(deep_pass_at=time(3, tzinfo=UTC))


# --- local 03:00 across time zones and DST ----------------------------------------------------


def deep_pass_after(last_sleep: datetime, tz: ZoneInfo) -> NextSleep:
    """The next pass of a daily (paid very active) user who last wrote before `last_sleep`."""
    messages = very_active_until(last_sleep - timedelta(days=1))
    return next_sleep_at(state(Plan.PAID, messages, last_sleep), last_sleep, tz)


def test_berlin_spring_forward_day_is_23_hours_long() -> None:
    last = datetime(2026, 3, 28, 3, 5, tzinfo=BERLIN)  # CET
    nxt = deep_pass_after(last, BERLIN)
    assert nxt.kind is SleepKind.DEEP and nxt.depth is Depth.FULL
    assert nxt.at == datetime(2026, 3, 29, 1, 0, tzinfo=UTC)  # 03:00 CEST
    assert nxt.at - last == timedelta(hours=22, minutes=55)
    assert "2026-03-29 03:00 CEST" in nxt.reason and "[Europe/Berlin]" in nxt.reason


def test_berlin_fall_back_day_is_25_hours_long() -> None:
    last = datetime(2026, 10, 24, 3, 5, tzinfo=BERLIN)  # CEST
    nxt = deep_pass_after(last, BERLIN)
    assert nxt.at == datetime(2026, 10, 25, 2, 0, tzinfo=UTC)  # 03:00 CET
    assert nxt.at - last == timedelta(hours=24, minutes=55)


@pytest.mark.parametrize(
    ("last", "expected"),
    [
        (datetime(2026, 3, 7, 3, 5, tzinfo=NEW_YORK), datetime(2026, 3, 8, 7, 0, tzinfo=UTC)),
        (datetime(2026, 10, 31, 3, 5, tzinfo=NEW_YORK), datetime(2026, 11, 1, 8, 0, tzinfo=UTC)),
        (datetime(2026, 3, 28, 3, 5, tzinfo=MOSCOW), datetime(2026, 3, 29, 0, 0, tzinfo=UTC)),
        (datetime(2026, 10, 24, 3, 5, tzinfo=MOSCOW), datetime(2026, 10, 25, 0, 0, tzinfo=UTC)),
    ],
)
def test_deep_pass_is_at_three_local_in_new_york_and_moscow(
    last: datetime, expected: datetime
) -> None:
    assert isinstance(last.tzinfo, ZoneInfo)
    assert deep_pass_after(last, last.tzinfo).at == expected


def test_three_oclock_inside_a_gap_runs_when_the_gap_ends() -> None:
    # Helsinki jumps from 03:00 EET to 04:00 EEST: 03:00 does not exist on 2026-03-29.
    nxt = deep_pass_after(datetime(2026, 3, 28, 3, 5, tzinfo=HELSINKI), HELSINKI)
    assert nxt.at == datetime(2026, 3, 29, 1, 0, tzinfo=UTC)
    assert nxt.at is not None and nxt.at.astimezone(HELSINKI).hour == 4


def test_skipped_and_repeated_wall_times_resolve_to_first_valid_instant() -> None:
    spring, autumn = date(2026, 3, 29), date(2026, 10, 25)
    assert local_instant(spring, time(2, 30), BERLIN) == datetime(2026, 3, 29, 1, tzinfo=UTC)
    assert local_instant(autumn, time(2, 30), BERLIN) == datetime(2026, 10, 25, 0, 30, tzinfo=UTC)
    assert local_instant(date(2026, 3, 8), time(2, 15), NEW_YORK) == datetime(
        2026, 3, 8, 7, tzinfo=UTC
    )
    assert local_instant(date(2026, 11, 1), time(1, 30), NEW_YORK) == datetime(
        2026,
        11,
        1,
        5,
        30,
        tzinfo=UTC,  # 01:30 EDT, the first of the two
    )


def test_the_regular_pass_counts_six_real_hours_across_spring_forward() -> None:
    last_sleep = datetime(2026, 3, 29, 1, 30, tzinfo=BERLIN)  # CET, 00:30 UTC
    messages = very_active_until(datetime(2026, 3, 28, tzinfo=UTC)) + [
        datetime(2026, 3, 29, 1, 0, tzinfo=UTC)
    ]
    nxt = next_sleep_at(state(Plan.PAID, messages, last_sleep), last_sleep, BERLIN)
    assert nxt.kind is SleepKind.REGULAR
    assert nxt.at == datetime(2026, 3, 29, 6, 30, tzinfo=UTC)  # 08:30 CEST: 7 wall-clock hours


# --- the trigger rule -------------------------------------------------------------------------


def test_regular_pass_waits_for_thirty_minutes_of_silence() -> None:
    last_sleep = datetime(2026, 3, 10, 2, 0, tzinfo=UTC)
    messages = very_active_until(datetime(2026, 3, 10, tzinfo=UTC))  # last at 16:00 UTC
    nxt = next_sleep_at(state(Plan.PAID, messages, last_sleep), last_sleep, MOSCOW)
    assert nxt.kind is SleepKind.REGULAR
    assert nxt.at == datetime(2026, 3, 10, 16, 30, tzinfo=UTC)
    assert "30 min of silence" in nxt.reason


def test_deep_pass_waits_for_silence_when_the_user_writes_at_night() -> None:
    day = datetime(2026, 3, 10, tzinfo=UTC)
    messages = [m for d in range(7) for m in busy_day(day - timedelta(days=d + 1), count=2)]
    messages.append(datetime(2026, 3, 9, 23, 50, tzinfo=UTC))  # 02:50 MSK on the due day
    last_sleep = datetime(2026, 3, 8, 0, 0, tzinfo=UTC)  # 03:00 MSK, two days before
    nxt = next_sleep_at(state(Plan.PAID, messages, last_sleep), messages[-1], MOSCOW)
    assert (nxt.level, nxt.kind) == (ActivityLevel.REGULAR, SleepKind.DEEP)
    assert nxt.at == datetime(2026, 3, 10, 0, 20, tzinfo=UTC)  # 03:20 MSK


def test_no_regular_pass_without_new_messages_or_for_slower_tiers() -> None:
    last_sleep = datetime(2026, 3, 10, 17, 0, tzinfo=UTC)
    messages = very_active_until(datetime(2026, 3, 10, tzinfo=UTC))
    quiet = next_sleep_at(state(Plan.PAID, messages, last_sleep), last_sleep, MOSCOW)
    assert quiet.kind is SleepKind.DEEP
    regular = [m for m in messages if m.hour < 11]  # 2/day: paid regular, every 2 days
    early = datetime(2026, 3, 10, 2, 0, tzinfo=UTC)
    nxt = next_sleep_at(state(Plan.PAID, regular, early), early, MOSCOW)
    assert nxt.level is ActivityLevel.REGULAR and nxt.kind is SleepKind.DEEP
    assert nxt.at == datetime(2026, 3, 12, 0, 0, tzinfo=UTC)


def test_free_active_cadence_stretches_from_3_to_7_days_without_new_messages() -> None:
    day = datetime(2026, 3, 10, tzinfo=UTC)
    messages = very_active_until(day)
    after = datetime(2026, 3, 10, 20, 0, tzinfo=UTC)  # after the last message
    assert next_sleep_at(state(Plan.FREE, messages, after), after, MOSCOW).at == datetime(
        2026, 3, 17, 0, tzinfo=UTC
    )
    before = datetime(2026, 3, 10, 2, 0, tzinfo=UTC)
    assert next_sleep_at(state(Plan.FREE, messages, before), before, MOSCOW).at == datetime(
        2026, 3, 13, 0, tzinfo=UTC
    )


def test_first_pass_is_anchored_on_tracking_start() -> None:
    messages = [START + timedelta(hours=10)]  # one message: light, weekly
    nxt = next_sleep_at(state(Plan.PAID, messages), START + timedelta(hours=11), MOSCOW)
    assert nxt.depth is Depth.LIGHT and "tracking began" in nxt.reason
    assert nxt.at == local_instant(date(2026, 2, 8), time(3), MOSCOW)


def test_inactive_users_are_off_and_overdue_passes_are_due() -> None:
    messages = [START, START + timedelta(days=8)]
    off = next_sleep_at(state(Plan.PAID, messages), START + timedelta(days=38), MOSCOW)
    assert off.at is None and off.kind is None and off.reason.startswith("off:")
    assert next_sleep_at(state(Plan.PAID, messages), START + timedelta(days=39), MOSCOW).at is None
    late = START + timedelta(days=12)  # still light; the weekly pass was due on day 7
    due = next_sleep_at(state(Plan.PAID, messages), late, MOSCOW)
    assert due.at is not None and due.at < late and "overdue" in due.reason
    early = next_sleep_at(state(Plan.PAID, messages), START + timedelta(days=2), MOSCOW)
    assert early.at is not None and early.at > START + timedelta(days=2)


# --- properties -------------------------------------------------------------------------------

ZONES = [
    ZoneInfo(k)
    for k in (
        "Europe/Berlin",
        "America/New_York",
        "Europe/Moscow",
        "Europe/Helsinki",
        "Asia/Kolkata",
        "Australia/Lord_Howe",
        "Pacific/Chatham",
        "America/Santiago",
    )
]
_offsets = st.integers(min_value=0, max_value=400 * 24 * 60).map(lambda m: timedelta(minutes=m))


@given(
    plan=st.sampled_from(Plan),
    tz=st.sampled_from(ZONES),
    message_offsets=st.lists(_offsets, min_size=1, max_size=60),
    sleep_offset=st.none() | _offsets,
    extra=st.integers(0, 3 * 24 * 60).map(lambda m: timedelta(minutes=m)),
)
@example(  # 29 d 23 h 59 min of silence read as inactive (calendar-day month window)
    plan=Plan.PAID,
    tz=ZoneInfo("Europe/Berlin"),
    message_offsets=[timedelta(days=9, minutes=1)],
    sleep_offset=timedelta(days=36),
    extra=timedelta(days=3),
)
def test_next_sleep_respects_the_trigger_rule_everywhere(
    plan: Plan,
    tz: ZoneInfo,
    message_offsets: list[timedelta],
    sleep_offset: timedelta | None,
    extra: timedelta,
) -> None:
    messages = sorted(START + o for o in message_offsets)
    last_sleep = None if sleep_offset is None else START + sleep_offset
    now = max(messages[-1], last_sleep or START) + extra
    st_ = state(plan, messages, last_sleep)
    nxt = next_sleep_at(st_, now, tz)
    assert nxt == next_sleep_at(st_, now, tz)  # deterministic
    if nxt.at is None:
        assert now - messages[-1] >= timedelta(days=30)
        return
    rule = SleepPolicy().trigger
    anchor = last_sleep or START
    assert nxt.at >= messages[-1] + rule.min_idle  # never interrupts a session
    assert nxt.at > anchor  # never re-runs the pass just done
    assert nxt.depth is SleepPolicy().row(plan, nxt.level).depth
    if nxt.kind is SleepKind.REGULAR:
        assert plan is Plan.PAID and nxt.level is ActivityLevel.VERY_ACTIVE
        assert nxt.at >= anchor + rule.regular_pass_after
    elif nxt.at != messages[-1] + rule.min_idle:
        local_day = nxt.at.astimezone(tz).date()
        assert nxt.at == local_instant(local_day, rule.deep_pass_at, tz)
    # Running the pass moves the next one into the future.
    ran = st_.model_copy(update={"last_sleep_at": max(nxt.at, now)})
    following = next_sleep_at(ran, max(nxt.at, now), tz)
    assert following.at is None or following.at > max(nxt.at, now)


@given(
    week=st.integers(0, 200),
    more=st.integers(0, 200),
    month_extra=st.integers(0, 200),
    idle=st.integers(0, 40 * 24),
)
def test_more_messages_never_lower_the_activity_level(
    week: int, more: int, month_extra: int, idle: int
) -> None:
    last = START - timedelta(hours=idle)
    low = stats(week, week + month_extra, last)
    high = stats(week + more, week + more + month_extra, last)
    assert ORDER.index(activity_level(high, START)) >= ORDER.index(activity_level(low, START))


# --- 60 simulated days ------------------------------------------------------------------------

Pattern = Callable[[int], list[time]]  # day index -> local times of that day's messages


def simulate(plan: Plan, pattern: Pattern, tz: ZoneInfo, days: int = 60) -> Counter[str]:
    """Drive the policy like the lifecycle workflow: wake on messages and on planned passes."""
    begin = datetime(2026, 3, 1, tzinfo=tz)  # crosses Berlin's and New York's spring forward
    messages = sorted(
        local_instant(begin.date() + timedelta(days=d), t, tz)
        for d in range(days)
        for t in pattern(d)
    )
    end = begin + timedelta(days=days)
    sched = ScheduleState(plan=plan, tracking_since=begin)
    now, i, counts = begin, 0, Counter[str]()
    while now < end:
        planned = next_sleep_at(sched, now, tz)
        wake = None if planned.at is None else max(planned.at, now)
        if i < len(messages) and (wake is None or messages[i] <= wake):
            now = messages[i]
            sched = sched.model_copy(update={"activity": sched.activity.record(now)})
            i += 1
            continue
        if wake is None or wake >= end:
            break
        assert planned.kind is not None and planned.depth is not None
        counts[f"{planned.depth.value}"] += 1
        counts[f"{planned.kind.value}"] += 1
        if wake >= begin + timedelta(days=days - 10):
            counts["last_10_days"] += 1
        now = wake
        sched = sched.model_copy(update={"last_sleep_at": now})
    return counts


def hours(*hs: int) -> Pattern:
    return lambda _day: [time(h) for h in hs]


def every(n: int, *hs: int) -> Pattern:
    return lambda day: [time(h) for h in hs] if day % n == 0 else []


@pytest.mark.parametrize(
    ("plan", "pattern", "full", "light"),
    [
        # 8/day: very active from day 5; a deep pass a night, regular passes 6 h apart
        (Plan.PAID, hours(*range(10, 18)), range(200, 240), range(0, 1)),
        (Plan.PAID, hours(9, 19), range(28, 32), range(0, 1)),  # 2/day: every 2 days
        (Plan.PAID, every(3, 12), range(0, 1), range(8, 10)),  # 2-3/week: weekly light
        (Plan.FREE, hours(*range(10, 18)), range(18, 22), range(0, 2)),  # every 3 days
        (Plan.FREE, hours(9, 19), range(0, 1), range(8, 10)),  # weekly light
        (Plan.FREE, every(4, 12), range(0, 1), range(3, 5)),  # biweekly light
    ],
)
@pytest.mark.parametrize("tz", [BERLIN, NEW_YORK, MOSCOW])
def test_sixty_days_per_tier(
    plan: Plan, pattern: Pattern, full: range, light: range, tz: ZoneInfo
) -> None:
    counts = simulate(plan, pattern, tz)
    assert counts["full"] in full and counts["light"] in light, counts


def test_very_active_paid_users_get_a_deep_pass_every_night() -> None:
    counts = simulate(Plan.PAID, hours(*range(10, 18)), BERLIN)
    assert counts["deep"] in range(55, 61) and counts["regular"] <= 3 * 60, counts


def test_a_user_who_leaves_stops_sleeping_after_thirty_days() -> None:
    pattern: Pattern = lambda day: [time(12), time(18)] if day < 20 else []  # noqa: E731
    counts = simulate(Plan.PAID, pattern, BERLIN)
    assert counts["full"] > 0 and counts["last_10_days"] == 0, counts
