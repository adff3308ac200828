"""A pure, event-driven model of one user's sleep schedule: what the lifecycle workflow does with
the domain policy, without Temporal. The workflow tests use it as their oracle and
`scripts/bench_sleep.py` runs it over a population.

Modelled: the adaptive schedule and trigger rule (`sleep_policy.next_sleep_at`), smart skip on
the new-message count (`smart_skip.decide`; the LLM pre-check's verdict is a parameter), tier
moves (hot -> warm after 7 idle days, warm -> cold after 30; a pass due while the graph is not hot
is skipped without any call; a message brings it back). Not modelled: cancellation by messages
(passes take no time here) and the graph signals smart skip counts (every message is taken to be
signal-free, the cheapest assumption for the policy).

LLM calls of a pass: the pre-check when the rule is ambiguous, plus one for hypothesis formation
in a full pass that runs (light passes run no LLM operation).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from selfimprint.domain.lifecycle_timings import LifecycleTimings
from selfimprint.domain.sleep_policy import (
    DEFAULT_SLEEP_POLICY,
    ActivityLog,
    Depth,
    Plan,
    ScheduleState,
    SleepPolicy,
    next_sleep_at,
)
from selfimprint.domain.smart_skip import SkipFeatures, SkipVerdict, decide

# The lifecycle's defaults: the simulation is the oracle of the workflow tests.
WARM_AFTER = LifecycleTimings().warm_after
COLD_AFTER = LifecycleTimings().cold_after


@dataclass
class SimulatedSleeps:
    full: int = 0
    light: int = 0
    skipped: int = 0
    prechecks: int = 0  # LLM pre-check calls
    llm_calls: int = 0  # pre-checks + hypothesis formation calls
    tier_moves: int = 0

    @property
    def passes(self) -> int:
        return self.full + self.light + self.skipped


def simulate_user(
    plan: Plan,
    messages: Sequence[tuple[datetime, int]],
    start: datetime,
    end: datetime,
    tz: ZoneInfo,
    *,
    worth_reasoning: Callable[[int], bool] = lambda n: True,
    has_signal: Callable[[int], bool] = lambda n: False,
    policy: SleepPolicy = DEFAULT_SLEEP_POLICY,
) -> SimulatedSleeps:
    """Replay `messages` (time, count), sorted, between `start` and `end`. `has_signal(n)`: do
    the n new messages carry a smart-skip signal (emotion, significant event, open loop,
    contradiction)? `worth_reasoning(n)`: the LLM pre-check's verdict when it is asked."""
    result = SimulatedSleeps()
    log = ActivityLog()
    tracking: datetime | None = None
    last_sleep: datetime | None = None
    last_active: datetime | None = None
    hot = "hot"
    tier = hot
    new_messages = 0
    i = 0
    now = start
    while True:
        planned = None
        if tracking is not None:
            planned = next_sleep_at(
                ScheduleState(
                    plan=plan, activity=log, last_sleep_at=last_sleep, tracking_since=tracking
                ),
                now,
                tz,
                policy,
            )
        sleep_at = planned.at if planned is not None else None
        tier_at = None
        if last_active is not None and tier != "cold":
            tier_at = last_active + (WARM_AFTER if tier == hot else COLD_AFTER)
        message_at = messages[i][0] if i < len(messages) else None
        candidates = [t for t in (message_at, sleep_at, tier_at) if t is not None]
        if not candidates:
            return result
        now = max(now, min(candidates))
        if now > end:
            return result
        if message_at is not None and message_at <= now:
            count = messages[i][1]
            i += 1
            tracking = tracking or now
            last_active = now
            log = log.record(now, count, policy.activity)
            new_messages += count
            if tier != hot:
                tier, result.tier_moves = hot, result.tier_moves + 1
            continue
        if sleep_at is not None and sleep_at <= now:
            assert tracking is not None
            # The level may have changed on the way here: decide again at this instant, as the
            # workflow does when its timer fires.
            planned = next_sleep_at(
                ScheduleState(
                    plan=plan, activity=log, last_sleep_at=last_sleep, tracking_since=tracking
                ),
                now,
                tz,
                policy,
            )
            if planned.at is None or planned.at > now or planned.depth is None:
                continue
            last_sleep = now
            if tier != hot:
                result.skipped += 1
                new_messages = 0
                continue
            signal = new_messages > 0 and has_signal(new_messages)
            decision = decide(SkipFeatures(new_messages=new_messages, emotional_notes=int(signal)))
            if decision.verdict is SkipVerdict.ASK_LLM:
                result.prechecks += 1
                result.llm_calls += 1
                runs = worth_reasoning(new_messages)
            else:
                runs = decision.verdict is SkipVerdict.RUN
            new_messages = 0
            if not runs:
                result.skipped += 1
            elif planned.depth is Depth.FULL:
                result.full += 1
                result.llm_calls += 1
            else:
                result.light += 1
            continue
        if tier_at is not None and tier_at <= now:
            tier = "warm" if tier == hot else "cold"
            result.tier_moves += 1
