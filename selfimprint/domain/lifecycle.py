"""What a user's lifecycle does next (DESIGN §5): the decisions of `UserLifecycleWorkflow`'s
loop, as pure functions of what it knows and the time, so that each rule is tested without a
Temporal server. The workflow only gathers a `Situation`, asks `next_step`, and performs it.

The order of the ladder is the product's priorities:
1. a forget that must run again (it overlapped a graph operation) once the messages queued
   before it finished are extracted: nothing else touches the graph meanwhile;
2. bring the graph back to Neo4j when anything needs it (messages, a context request, a
   requested sleep or soft reset);
3. extract pending messages, a small batch at a time: the user's words come first;
4. an operator's soft reset, then an operator's sleep request;
5. the planned sleep when due, then a tier move when due (neither while paused);
6. re-read the message log for messages never signalled, once per `reconcile_every`;
7. otherwise wait for the earliest of those deadlines, or a signal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from selfimprint.domain.lifecycle_timings import LifecycleTimings
from selfimprint.domain.sleep_policy import Depth, SleepKind
from selfimprint.domain.sleep_writes import SleepStatus
from selfimprint.domain.users import Tier

# Batches stay small for a language model: the local 135M model has a 2k-token context, and a
# failed batch is retried whole. The first batch of a run is this size too.
EXTRACTION_BATCH = 4
# Extraction without a model (structured, verbatim) has no prompt to fit: larger batches share
# each batch's fixed cost (three activities, four workflow tasks, the recent memories loaded and
# read) among more messages. Measured in docs/decisions.md, "Extraction batch size by extractor".
MODEL_FREE_EXTRACTION_BATCH = 12
# A wait shorter than this would spin the loop on a deadline that is due but blocked.
MIN_WAIT = timedelta(seconds=1)
# A cancelled sleep's activity may still be finishing a write after the child has closed, so an
# operation counts as overlapping a forget that began up to this long after it ended (the sleep
# activities' heartbeat timeout is 30 s).
FORGET_OVERLAP_GRACE = timedelta(minutes=2)


@dataclass(frozen=True)
class PlannedSleep:
    """The sleep policy's next pass (`sleep_policy.next_sleep_at`), when there is one."""

    at: datetime
    depth: Depth
    kind: SleepKind | None


@dataclass(frozen=True)
class Situation:
    """What the lifecycle knows that decides its next step."""

    tier: Tier
    pending: Sequence[str]  # message ids accepted, not yet extracted, oldest first
    # For each queued forget replay, the messages that were pending when it was queued.
    forget_waits: Sequence[frozenset[str]]
    paused: bool
    rehydrate_requested: bool
    sleep_requested: Depth | None
    soft_reset_requested: bool
    planned_sleep: PlannedSleep | None
    last_active_at: datetime | None  # last message or context request: the tier clock
    last_reconcile_at: datetime | None
    timings: LifecycleTimings


@dataclass(frozen=True)
class ReplayForget:
    index: int  # into the queued forget replays


@dataclass(frozen=True)
class MoveTier:
    target: Tier


@dataclass(frozen=True)
class Extract:
    message_ids: tuple[str, ...]


@dataclass(frozen=True)
class SoftReset:
    pass


@dataclass(frozen=True)
class Sleep:
    depth: Depth
    kind: SleepKind | None
    explicit: bool  # an operator asked: the smart-skip pre-check does not apply


@dataclass(frozen=True)
class Reconcile:
    pass


@dataclass(frozen=True)
class Wait:
    timeout: timedelta  # until the earliest deadline, unless a signal comes first


Step = ReplayForget | MoveTier | Extract | SoftReset | Sleep | Reconcile | Wait


def tier_move_due(
    tier: Tier, last_active_at: datetime | None, timings: LifecycleTimings
) -> tuple[datetime, Tier] | None:
    """When an idle graph moves one tier colder (spec §3.8.1), and where to; None when cold
    or never active."""
    if last_active_at is None:
        return None
    if tier is Tier.HOT:
        return last_active_at + timings.warm_after, Tier.WARM
    if tier is Tier.WARM:
        return last_active_at + timings.cold_after, Tier.COLD
    return None


def next_step(situation: Situation, now: datetime, batch: int = EXTRACTION_BATCH) -> Step:
    """The lifecycle's next step (the ladder in the module docstring)."""
    s = situation
    pending = set(s.pending)
    for index, waits_for in enumerate(s.forget_waits):
        if pending.isdisjoint(waits_for):
            return ReplayForget(index)
    graph_needed = (
        bool(s.pending)
        or s.rehydrate_requested
        or s.sleep_requested is not None
        or s.soft_reset_requested
    )
    if s.tier is not Tier.HOT and graph_needed:
        return MoveTier(Tier.HOT)  # before extraction: the graph must be in Neo4j
    if s.pending:
        return Extract(tuple(s.pending[:batch]))
    if s.soft_reset_requested:
        return SoftReset()
    if s.sleep_requested is not None:
        return Sleep(s.sleep_requested, None, explicit=True)
    planned = s.planned_sleep
    tier_move = tier_move_due(s.tier, s.last_active_at, s.timings)
    reconcile_at = (s.last_reconcile_at or now) + s.timings.reconcile_every
    if not s.paused and planned is not None and planned.at <= now:
        return Sleep(planned.depth, planned.kind, explicit=False)
    if not s.paused and tier_move is not None and tier_move[0] <= now:
        return MoveTier(tier_move[1])
    if reconcile_at <= now:
        return Reconcile()
    deadlines = [reconcile_at]
    if not s.paused:
        deadlines += [t for t in (planned and planned.at, tier_move and tier_move[0]) if t]
    return Wait(max(min(deadlines) - now, MIN_WAIT))


def starts_session(last_active_at: datetime | None, now: datetime, gap: timedelta) -> bool:
    """A message after `gap` of silence (or the first ever) opens a new session (spec §3.5)."""
    return last_active_at is None or now - last_active_at >= gap


def compaction_due(
    kind: SleepKind | None,
    status: SleepStatus,
    started: datetime,
    last_compaction_at: datetime | None,
    every: timedelta,
) -> bool:
    """Weekly compaction runs after a deep pass that completed or skipped (spec §3.9)."""
    return (
        kind is SleepKind.DEEP
        and status in (SleepStatus.COMPLETED, SleepStatus.SKIPPED)
        and (last_compaction_at is None or started - last_compaction_at >= every)
    )


def forget_overlapped(
    *,
    operation_running: bool,
    messages_pending: bool,
    last_operation_ended_at: datetime | None,
    forget_started_at: datetime,
    grace: timedelta = FORGET_OVERLAP_GRACE,
) -> bool:
    """Whether a finished forget may have missed what a graph operation copied or wrote: one
    running now, messages still to extract, or one that ended after (or just before) the
    forget began."""
    return (
        operation_running
        or messages_pending
        or (
            last_operation_ended_at is not None
            and last_operation_ended_at + grace >= forget_started_at
        )
    )
