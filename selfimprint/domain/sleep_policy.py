"""Adaptive sleep scheduling (spec §3.6) and the sleep trigger rule (spec §3.5).

Activity level, from the messages of the last 7 and 30 UTC days (`ActivityLog`):

- very_active: >= 5 messages/day on average over the last 7 days;
- regular: >= 1 message/day on average over the last 7 days;
- light: at least 1 message in the last 7 days;
- dormant: at least 1 message in the last 30 days;
- inactive: no message for 30 days or more: sleep is off until the next message.

Plan x level gives a cadence (every N days) and a depth (full: all six operations of §3.5.1;
light: pattern detection and importance recalibration only). The default table is the spec's.

When a pass runs (the trigger rule of §3.5, with the cadence folded in):

- deep pass: at 03:00 local on the first local date at least N days after the local date of the
  last sleep; an overdue deep pass runs as soon as the rule allows;
- regular pass, for tiers that allow it (paid very active): 6 h after the last sleep, and only
  if the user wrote since then;
- either waits until the user has been silent for 30 min; a message moves the time.

Every pass counts as a sleep for the cadence, smart-skipped ones included. Times are compared as
absolute instants (UTC); only the 03:00 anchor is local: a skipped local time (spring forward)
resolves to the end of the gap, a repeated one (fall back) to its first occurrence.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from typing import Annotated
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field, model_validator

from selfimprint.domain.models import AwareDatetime


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _utc(value: datetime) -> datetime:
    # Arithmetic on two datetimes sharing a ZoneInfo is wall-clock arithmetic: normalise first.
    return value.astimezone(UTC)


class Plan(StrEnum):
    PAID = "paid"
    FREE = "free"


class ActivityLevel(StrEnum):
    VERY_ACTIVE = "very_active"
    REGULAR = "regular"
    LIGHT = "light"
    DORMANT = "dormant"
    INACTIVE = "inactive"


class Depth(StrEnum):
    FULL = "full"
    LIGHT = "light"


class SleepKind(StrEnum):
    DEEP = "deep"  # the 03:00-local pass of the tier's cadence
    REGULAR = "regular"  # the "> 6 h since the last sleep" pass for active users


class SleepOperation(StrEnum):
    """The six operations of spec §3.5.1, in the order they run."""

    PATTERN_DETECTION = "pattern_detection"
    CONNECTION_INFERENCE = "connection_inference"
    HYPOTHESIS_FORMATION = "hypothesis_formation"
    IMPORTANCE_RECALIBRATION = "importance_recalibration"
    SCHEDULED_TRIGGERS = "scheduled_triggers"
    OPEN_LOOP_PREPARATION = "open_loop_preparation"


class ActivityThresholds(_Frozen):
    # DESIGN §5 / §3.8.1: activity statistics over the last 7 days (hot = messaged in 7 days).
    rate_window_days: Annotated[int, Field(ge=1)] = 7
    # §3.6: "Paid, very active (5+ messages/day)".
    very_active_per_day: Annotated[float, Field(gt=0)] = 5.0
    # §3.6: "Paid, regular (1–5/day)".
    regular_per_day: Annotated[float, Field(gt=0)] = 1.0
    # §3.6: "Paid, light (1–7/week)".
    light_per_week: Annotated[int, Field(ge=1)] = 1
    # §3.6: "Paid, dormant (1–4/month)"; a month is 30 days.
    dormant_per_month: Annotated[int, Field(ge=1)] = 1
    month_window_days: Annotated[int, Field(ge=1)] = 30
    # §3.6: "Any, inactive 30+ days: Off".
    inactive_after: timedelta = timedelta(days=30)

    @model_validator(mode="after")
    def _ordered(self) -> ActivityThresholds:
        if self.regular_per_day > self.very_active_per_day:
            raise ValueError("regular_per_day must not exceed very_active_per_day")
        if self.month_window_days < self.rate_window_days:
            raise ValueError("the month window must cover the rate window")
        return self


DEFAULT_THRESHOLDS = ActivityThresholds()


class DailyMessages(_Frozen):
    day: date  # UTC calendar day
    messages: Annotated[int, Field(ge=1)]


class ActivityStats(_Frozen):
    messages_in_rate_window: Annotated[int, Field(ge=0)]
    messages_in_month_window: Annotated[int, Field(ge=0)]
    last_message_at: AwareDatetime | None


class ActivityLog(_Frozen):
    """Messages per UTC day over the month window: small enough to live in workflow state."""

    days: tuple[DailyMessages, ...] = ()
    last_message_at: AwareDatetime | None = None

    def record(
        self, at: datetime, messages: int = 1, thresholds: ActivityThresholds = DEFAULT_THRESHOLDS
    ) -> ActivityLog:
        if messages < 1:
            raise ValueError("record at least one message")
        at = _utc(at)
        counts = {d.day: d.messages for d in self.days}
        counts[at.date()] = counts.get(at.date(), 0) + messages
        # The month window reaches back month_window_days x 24 h, which touches one day more
        # than that many calendar days (`stats`): keep that day too.
        oldest = max(counts) - timedelta(days=thresholds.month_window_days)
        last = at if self.last_message_at is None else max(_utc(self.last_message_at), at)
        return ActivityLog(
            days=tuple(
                DailyMessages(day=d, messages=n) for d, n in sorted(counts.items()) if d >= oldest
            ),
            last_message_at=last,
        )

    def messages_in_last(self, days: int, now: datetime) -> int:
        """Messages on the last `days` UTC calendar days, today included."""
        return self.messages_since(_utc(now) - timedelta(days=days - 1), now)

    def messages_since(self, start: datetime, now: datetime) -> int:
        """Messages on the UTC days from `start`'s to `now`'s, both included."""
        first, today = _utc(start).date(), _utc(now).date()
        return sum(d.messages for d in self.days if first <= d.day <= today)

    def stats(
        self, now: datetime, thresholds: ActivityThresholds = DEFAULT_THRESHOLDS
    ) -> ActivityStats:
        # The month count covers every day that overlaps the last month_window_days x 24 h, so
        # a user whose last message is younger than `inactive_after` (30 days) is never counted
        # as having none: 30 calendar days alone missed a message sent 29 d 23 h 59 min ago
        # and switched a dormant user's sleeps off a day early.
        month_start = _utc(now) - timedelta(days=thresholds.month_window_days)
        return ActivityStats(
            messages_in_rate_window=self.messages_in_last(thresholds.rate_window_days, now),
            messages_in_month_window=self.messages_since(month_start, now),
            last_message_at=self.last_message_at,
        )


def activity_level(
    stats: ActivityStats, now: datetime, thresholds: ActivityThresholds = DEFAULT_THRESHOLDS
) -> ActivityLevel:
    last = stats.last_message_at
    if last is None or _utc(now) - _utc(last) >= thresholds.inactive_after:
        return ActivityLevel.INACTIVE
    recent = stats.messages_in_rate_window
    if recent >= thresholds.very_active_per_day * thresholds.rate_window_days:
        return ActivityLevel.VERY_ACTIVE
    if recent >= thresholds.regular_per_day * thresholds.rate_window_days:
        return ActivityLevel.REGULAR
    if recent * 7 >= thresholds.light_per_week * thresholds.rate_window_days:
        return ActivityLevel.LIGHT
    if stats.messages_in_month_window >= thresholds.dormant_per_month:
        return ActivityLevel.DORMANT
    return ActivityLevel.INACTIVE


class ScheduleRow(_Frozen):
    """One row of the §3.6 table. `every_days`..`every_max_days` is the cadence range: the short
    end applies when the user wrote since the last sleep, the long end otherwise."""

    plan: Plan
    level: ActivityLevel
    every_days: Annotated[int, Field(ge=1)]
    every_max_days: Annotated[int, Field(ge=1)]
    depth: Depth
    # §3.5: the "> 6 h since the last sleep" regular pass; only daily users get it.
    regular_passes: bool = False

    @model_validator(mode="after")
    def _range(self) -> ScheduleRow:
        if self.every_max_days < self.every_days:
            raise ValueError("every_max_days must be >= every_days")
        if self.level is ActivityLevel.INACTIVE:
            raise ValueError("inactive users do not sleep (spec §3.6): no row for them")
        return self


def _row(
    plan: Plan, level: ActivityLevel, every: int, most: int, depth: Depth, regular: bool = False
) -> ScheduleRow:
    return ScheduleRow(
        plan=plan,
        level=level,
        every_days=every,
        every_max_days=most,
        depth=depth,
        regular_passes=regular,
    )


# Spec §3.6 table. Free "active" is read as very_active; free dormant is not in the table and
# gets the paid dormant row (monthly, light). Only "daily" users get §3.5's > 6 h regular pass.
DEFAULT_SCHEDULE: tuple[ScheduleRow, ...] = (
    # §3.6 "Paid, very active: Daily, Full"; §3.5 "regular pass for active users"
    _row(Plan.PAID, ActivityLevel.VERY_ACTIVE, 1, 1, Depth.FULL, regular=True),
    # §3.6 "Paid, regular: Every 2 days, Full"
    _row(Plan.PAID, ActivityLevel.REGULAR, 2, 2, Depth.FULL),
    # §3.6 "Paid, light: Weekly, Light"
    _row(Plan.PAID, ActivityLevel.LIGHT, 7, 7, Depth.LIGHT),
    # §3.6 "Paid, dormant: Monthly, Light"
    _row(Plan.PAID, ActivityLevel.DORMANT, 30, 30, Depth.LIGHT),
    # §3.6 "Free, active: Every 3–7 days, Full"
    _row(Plan.FREE, ActivityLevel.VERY_ACTIVE, 3, 7, Depth.FULL),
    # §3.6 "Free, regular: Weekly, Light"
    _row(Plan.FREE, ActivityLevel.REGULAR, 7, 7, Depth.LIGHT),
    # §3.6 "Free, light: Biweekly, Light"
    _row(Plan.FREE, ActivityLevel.LIGHT, 14, 14, Depth.LIGHT),
    # Not in §3.6: as paid dormant
    _row(Plan.FREE, ActivityLevel.DORMANT, 30, 30, Depth.LIGHT),
)


class TriggerRule(_Frozen):
    # §3.5: "at least 30 minutes since the user's last message".
    min_idle: timedelta = timedelta(minutes=30)
    # §3.5: "the local time is 3:00 AM (deep daily pass)".
    deep_pass_at: time = time(3, 0)
    # §3.5: "more than 6 hours have passed since the last sleep phase (regular pass)".
    regular_pass_after: timedelta = timedelta(hours=6)

    @model_validator(mode="after")
    def _check(self) -> TriggerRule:
        if self.deep_pass_at.tzinfo is not None:
            raise ValueError("deep_pass_at is a local wall-clock time: no tzinfo")
        if self.min_idle <= timedelta(0) or self.regular_pass_after <= timedelta(0):
            raise ValueError("durations must be positive")
        return self


class SleepPolicy(_Frozen):
    # §3.5 trigger rule (each number cited in TriggerRule).
    trigger: TriggerRule = TriggerRule()
    # §3.6 activity levels (each number cited in ActivityThresholds).
    activity: ActivityThresholds = DEFAULT_THRESHOLDS
    # §3.6 table, row by row in DEFAULT_SCHEDULE; free dormant is ours (as paid dormant).
    schedule: tuple[ScheduleRow, ...] = DEFAULT_SCHEDULE
    # §3.6: "Light passes run only pattern detection and importance recalibration."
    light_operations: frozenset[SleepOperation] = frozenset(
        {SleepOperation.PATTERN_DETECTION, SleepOperation.IMPORTANCE_RECALIBRATION}
    )

    @model_validator(mode="after")
    def _complete(self) -> SleepPolicy:
        keys = [(r.plan, r.level) for r in self.schedule]
        wanted = {(p, lv) for p in Plan for lv in ActivityLevel if lv is not ActivityLevel.INACTIVE}
        if len(keys) != len(set(keys)) or set(keys) != wanted:
            raise ValueError("the schedule needs exactly one row per plan and active level")
        return self

    def row(self, plan: Plan, level: ActivityLevel) -> ScheduleRow:
        for r in self.schedule:
            if r.plan is plan and r.level is level:
                return r
        raise KeyError(f"no schedule row for {plan.value}/{level.value}")


DEFAULT_SLEEP_POLICY = SleepPolicy()


def operations_for(
    depth: Depth, policy: SleepPolicy = DEFAULT_SLEEP_POLICY
) -> tuple[SleepOperation, ...]:
    """The operations a pass of this depth runs, in spec §3.5.1 order."""
    if depth is Depth.FULL:
        return tuple(SleepOperation)
    return tuple(op for op in SleepOperation if op in policy.light_operations)


class ScheduleState(_Frozen):
    """What the lifecycle workflow keeps to decide its next sleep."""

    plan: Plan
    activity: ActivityLog = ActivityLog()
    last_sleep_at: AwareDatetime | None = None
    # When scheduling began (the user's first contact): anchors the cadence before any sleep.
    tracking_since: AwareDatetime


class NextSleep(_Frozen):
    """The next pass, or `at=None` when sleep is off. `at` may lie before `now`: overdue."""

    at: AwareDatetime | None
    kind: SleepKind | None
    depth: Depth | None
    plan: Plan
    level: ActivityLevel
    reason: str


def local_instant(day: date, wall: time, tz: ZoneInfo) -> datetime:
    """The first instant (UTC) at which the clocks of `tz` show `wall` or later on `day`.

    A skipped wall time (spring forward) gives the end of the gap, a repeated one (fall back)
    its first occurrence.
    """
    naive = datetime.combine(day, wall)
    first = naive.replace(tzinfo=tz, fold=0).astimezone(UTC)
    if first.astimezone(tz).replace(tzinfo=None) == naive:
        return first
    # In a gap: the offset after the jump gives an instant before it; bisect to the jump.
    lo = int(naive.replace(tzinfo=tz, fold=1).astimezone(UTC).timestamp())
    hi = int(first.timestamp())
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if datetime.fromtimestamp(mid, tz).replace(tzinfo=None) >= naive:
            hi = mid
        else:
            lo = mid
    return datetime.fromtimestamp(hi, UTC)


def _local(value: datetime, tz: ZoneInfo) -> str:
    return value.astimezone(tz).strftime("%Y-%m-%d %H:%M %Z")


def next_sleep_at(
    state: ScheduleState, now: datetime, tz: ZoneInfo, policy: SleepPolicy = DEFAULT_SLEEP_POLICY
) -> NextSleep:
    """When the next sleep pass runs, its kind and depth, and why (shown in the Temporal UI)."""
    now = _utc(now)
    stats = state.activity.stats(now, policy.activity)
    level = activity_level(stats, now, policy.activity)
    last_message = stats.last_message_at
    if level is ActivityLevel.INACTIVE or last_message is None:
        last = "never" if last_message is None else _local(last_message, tz)
        return NextSleep(
            at=None,
            kind=None,
            depth=None,
            plan=state.plan,
            level=level,
            reason=f"off: no message for {policy.activity.inactive_after.days}+ days "
            f"(last {last}); the next message wakes the schedule [{tz.key}]",
        )
    row = policy.row(state.plan, level)
    trigger = policy.trigger
    last_message = _utc(last_message)
    anchor = _utc(state.last_sleep_at or state.tracking_since)
    since = "the last sleep" if state.last_sleep_at else "tracking began"
    wrote_since = last_message > anchor
    every = row.every_days if wrote_since else row.every_max_days

    due_day = anchor.astimezone(tz).date() + timedelta(days=every)
    at = local_instant(due_day, trigger.deep_pass_at, tz)
    kind = SleepKind.DEEP
    why = f"{trigger.deep_pass_at:%H:%M} local, {every} day(s) after {since} ({_local(anchor, tz)})"
    if row.regular_passes and wrote_since and anchor + trigger.regular_pass_after < at:
        at = anchor + trigger.regular_pass_after
        kind = SleepKind.REGULAR
        hours = trigger.regular_pass_after.total_seconds() / 3600
        why = f"{hours:g} h after {since} ({_local(anchor, tz)}) with new messages"

    quiet_from = last_message + trigger.min_idle
    if quiet_from > at:
        minutes = trigger.min_idle.total_seconds() / 60
        why += f"; held for {minutes:g} min of silence after {_local(last_message, tz)}"
        at = quiet_from
    if at < now:
        why += "; overdue"
    return NextSleep(
        at=at,
        kind=kind,
        depth=row.depth,
        plan=state.plan,
        level=level,
        reason=f"{row.depth.value} {kind.value} pass at {_local(at, tz)} for "
        f"{state.plan.value}/{level.value}: {why} [{tz.key}]",
    )
