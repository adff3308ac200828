"""Forgetting: type-specific exponential decay of node weight, the decay clock, reinforcement.

Decay is lazy (DESIGN.md §4): nothing rewrites weights daily. A node stores `weight` as of
`weight_at`; its effective weight at any later moment is

    weight × coefficient ** decay_days(weight_at, now)

which equals the spec's daily step `weight(t + 1 day) = weight(t) × coefficient` (§3.3) at whole
days and interpolates smoothly between them. Decay-days are wall-clock days minus the time the
user's decay clock was paused for inactivity (§3.8.1).

`expires_at` is an instant on the user's decay clock, not on the wall clock: the clock's reading
at a moment is wall time minus every pause before it (`ActivityTimeline.reading`). A memory is
alive while `expires_at > reading(now)`. Because a later absence only slows the reading down,
an expiry stamped once stays right however long the user is away: no re-stamping, and a store
can select expired memories with one index range scan up to the reading.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from selfimprint.domain.models import AwareDatetime, Node, NodeType, Unit, Valence

Coefficient = Annotated[float, Field(gt=0.0, le=1.0)]


class DecayConfig(BaseModel):
    """Decay, removal and reinforcement defaults. Spec §8: starting points, to be calibrated.

    Hypotheses decay like regular facts (0.92/day). The spec gives no coefficient for them, and
    the choice follows from two things it does say: a hypothesis is a would-be fact, so keeping
    the fact rate means conversion to an observed fact (§3.5.2) changes no decay behaviour; and
    the 14-day lifecycle timeout, not forgetting, should decide a hypothesis's fate. At 0.92 a
    hypothesis still holds 0.92**14 ≈ 31 % of its weight at the timeout (removal from 1.0 takes
    ~36 days), so decay does not outrun the lifecycle, while a stale one still fades. Context
    assembly down-weights hypotheses separately (ScoringConfig), so decay need not do it twice.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Spec §3.3 coefficient table (per day).
    negative_emotional_note: Coefficient = 0.5
    positive_emotional_note: Coefficient = 0.85
    fact: Coefficient = 0.92
    event: Coefficient = 0.95
    significant_event: Coefficient = 0.98
    person: Coefficient = 0.97
    open_loop: Coefficient = 0.99
    pinned: Coefficient = 1.0
    # Not in the spec: project choice, see the class docstring.
    hypothesis: Coefficient = 0.92
    # Not in the spec: project choice (issue 32, domain.asides). A memory that asks the other
    # side something and says nothing of the user ("Wow! What was it like?") decays at least
    # this fast: the negative note's curve, out of the default context within ~4 active days.
    # On LoCoMo dev 5 % of such memories hold an evidence turn, against 32 % of the rest
    # (BENCHMARKS.md, "Asides fade"); 1.0 turns the rule off.
    aside: Coefficient = 0.5
    # Spec §3.3: an event is significant when its importance at creation is above 0.8.
    significance_threshold: Unit = 0.8
    # Spec §3.3: nodes below 0.05 leave the active graph.
    removal_threshold: Annotated[float, Field(gt=0.0, lt=1.0)] = 0.05
    # Spec §3.3: a mention adds 0.15, capped at 1.0 (additive, never a reset to 1.0).
    reinforcement_step: Annotated[float, Field(gt=0.0, le=1.0)] = 0.15
    weight_cap: Annotated[float, Field(gt=0.0, le=1.0)] = 1.0
    # Spec §6: more than 10 reinforcements of one node in a day are ignored and flagged.
    max_reinforcements_per_day: Annotated[int, Field(ge=1)] = 10
    # Spec §3.3: coefficients are per day.
    decay_period: timedelta = timedelta(days=1)
    # Spec §3.8.1 / §6: the decay clock pauses once the user has been inactive for > 7 days.
    inactivity_pause_after: timedelta = timedelta(days=7)

    @model_validator(mode="after")
    def _positive_durations(self) -> Self:
        if self.decay_period <= timedelta(0) or self.inactivity_pause_after < timedelta(0):
            raise ValueError("decay_period must be positive and inactivity_pause_after >= 0")
        return self


DEFAULT_DECAY = DecayConfig()


class _Value(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --- coefficients -------------------------------------------------------------------------------


def is_significant_event(
    node_type: NodeType, importance: float, config: DecayConfig = DEFAULT_DECAY
) -> bool:
    """Spec §3.3: decided once, at creation, from the extractor's importance score."""
    return node_type is NodeType.EVENT and importance > config.significance_threshold


def coefficient_for(
    node_type: NodeType,
    *,
    valence: Valence | None = None,
    significant: bool = False,
    pinned: bool = False,
    config: DecayConfig = DEFAULT_DECAY,
) -> float:
    """The daily decay coefficient a new node of this kind gets (spec §3.3 table)."""
    if pinned:
        return config.pinned
    match node_type:
        case NodeType.EMOTIONAL_NOTE:
            if valence is None:
                raise ValueError("an emotional_note needs a valence to pick its coefficient")
            return (
                config.negative_emotional_note
                if valence is Valence.NEGATIVE
                else config.positive_emotional_note
            )
        case NodeType.EVENT:
            return config.significant_event if significant else config.event
        case NodeType.FACT:
            return config.fact
        case NodeType.PERSON:
            return config.person
        case NodeType.OPEN_LOOP:
            return config.open_loop
        case NodeType.HYPOTHESIS:
            return config.hypothesis


def node_coefficient(node: Node, config: DecayConfig = DEFAULT_DECAY) -> float:
    """The coefficient decay uses for a stored node.

    The stored `decay_coefficient` wins (sleep-phase recalibration may have changed it), except
    that pinning always stops decay, whatever coefficient was stored before the pin.
    """
    return config.pinned if node.is_pinned else node.decay_coefficient


# --- the decay clock ----------------------------------------------------------------------------


_BEGINNING = datetime.min.replace(tzinfo=UTC)


class PausedInterval(_Value):
    """A stretch during which the user's decay clock stood still (half-open: [start, end))."""

    start: AwareDatetime
    end: AwareDatetime

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.end <= self.start:
            raise ValueError("a paused interval must end after it starts")
        return self


class ActivityTimeline(_Value):
    """What the decay clock needs to know about a user's activity, kept compact.

    Instead of every message timestamp it keeps the closed pauses (one per absence longer than
    the grace period, not one per message) and the last activity. After `last_active_at` the
    clock runs for `inactivity_pause_after` and then stands still until the next activity: that
    open pause is implied, not stored. The timeline is append-only; activity at or before
    `last_active_at` changes nothing (the user's lifecycle workflow records activity in order).
    """

    last_active_at: AwareDatetime | None = None
    pauses: tuple[PausedInterval, ...] = ()

    @model_validator(mode="after")
    def _sorted_and_past(self) -> Self:
        for earlier, later in zip(self.pauses, self.pauses[1:], strict=False):
            if later.start < earlier.end:
                raise ValueError("pauses must be sorted and must not overlap")
        if self.pauses and (
            self.last_active_at is None or self.pauses[-1].end > self.last_active_at
        ):
            raise ValueError("a closed pause ends at an activity, so none may end after the last")
        return self

    @classmethod
    def from_activity(
        cls, timestamps: Iterable[datetime], config: DecayConfig = DEFAULT_DECAY
    ) -> ActivityTimeline:
        timeline = cls()
        for at in sorted(timestamps):
            timeline = timeline.record_activity(at, config)
        return timeline

    def record_activity(
        self, at: datetime, config: DecayConfig = DEFAULT_DECAY
    ) -> ActivityTimeline:
        """The timeline after the user was active at `at`; closes a pause if one was running."""
        last = self.last_active_at
        if last is not None and at <= last:
            return self
        pauses = self.pauses
        if last is not None and at - last > config.inactivity_pause_after:
            pauses = (*pauses, PausedInterval(start=last + config.inactivity_pause_after, end=at))
        return ActivityTimeline(last_active_at=at, pauses=pauses)

    def paused_intervals(
        self, config: DecayConfig = DEFAULT_DECAY
    ) -> tuple[tuple[datetime, datetime | None], ...]:
        """All pauses as (start, end) pairs; the open pause, if any, ends at None."""
        closed: tuple[tuple[datetime, datetime | None], ...] = tuple(
            (p.start, p.end) for p in self.pauses
        )
        if self.last_active_at is None:
            return closed
        return (*closed, (self.last_active_at + config.inactivity_pause_after, None))

    def reading(self, at: datetime, config: DecayConfig = DEFAULT_DECAY) -> datetime:
        """The decay clock at `at`: `at` minus every pause before it (equal to `at` for a
        timeline with no pause yet). Monotonic, and still while the user is away."""
        if self.last_active_at is None:
            return at
        return at - self.paused_between(_BEGINNING, at, config)

    def paused_between(
        self, since: datetime, until: datetime, config: DecayConfig = DEFAULT_DECAY
    ) -> timedelta:
        """How long the clock stood still within [since, until)."""
        total = timedelta(0)
        for start, end in self.paused_intervals(config):
            overlap_start = max(start, since)
            overlap_end = until if end is None else min(end, until)
            if overlap_end > overlap_start:
                total += overlap_end - overlap_start
        return total


def decay_days(
    since: datetime,
    until: datetime,
    timeline: ActivityTimeline | None = None,
    config: DecayConfig = DEFAULT_DECAY,
) -> float:
    """Decay periods (days by default) the clock ran between two moments; 0 if until <= since.

    Without a timeline the clock never pauses. A reversed interval (clock skew between workers)
    counts as zero rather than as negative decay, which would raise weights.
    """
    if until <= since:
        return 0.0
    running = until - since
    if timeline is not None:
        running -= timeline.paused_between(since, until, config)
    return running / config.decay_period


# --- weight -------------------------------------------------------------------------------------


def effective_weight(
    weight: float,
    weight_at: datetime,
    coefficient: float,
    now: datetime,
    *,
    timeline: ActivityTimeline | None = None,
    config: DecayConfig = DEFAULT_DECAY,
) -> float:
    """The stored weight decayed lazily to `now`."""
    return weight * math.pow(coefficient, decay_days(weight_at, now, timeline, config))


def node_effective_weight(
    node: Node,
    now: datetime,
    *,
    timeline: ActivityTimeline | None = None,
    config: DecayConfig = DEFAULT_DECAY,
) -> float:
    return effective_weight(
        node.weight,
        node.weight_at,
        node_coefficient(node, config),
        now,
        timeline=timeline,
        config=config,
    )


def expires_at(
    weight: float,
    weight_at: datetime,
    coefficient: float,
    *,
    timeline: ActivityTimeline | None = None,
    config: DecayConfig = DEFAULT_DECAY,
) -> datetime | None:
    """The decay-clock reading at which the weight reaches the removal threshold; None if it
    never does (see the module docstring: compare it with `timeline.reading(now)`).

    Closed form: the clock must run ln(threshold / weight) / ln(coefficient) decay periods from
    its reading at `weight_at`. Without a timeline the clock is the wall clock.
    """
    start = timeline.reading(weight_at, config) if timeline is not None else weight_at
    if coefficient >= 1.0 or weight <= 0.0:
        # weight 0 is already gone; coefficient 1.0 (pinned) never decays.
        return None if coefficient >= 1.0 else start
    periods = max(0.0, math.log(config.removal_threshold / weight) / math.log(coefficient))
    try:
        return start + periods * config.decay_period
    except OverflowError:
        # Beyond datetime's range: for any practical purpose it never expires.
        return None


def is_expired(
    node: Node,
    now: datetime,
    *,
    timeline: ActivityTimeline | None = None,
    config: DecayConfig = DEFAULT_DECAY,
) -> bool:
    """Decayed below the removal threshold (spec §3.3), whether or not a sweeper removed it yet.
    Pinned memories never expire."""
    if node.is_pinned or node.expires_at is None:
        return False
    clock = timeline.reading(now, config) if timeline is not None else now
    return node.expires_at <= clock


# --- reinforcement ------------------------------------------------------------------------------


class ReinforcementTally(_Value):
    """Reinforcements of one node on one UTC day (spec §6 rate limit)."""

    day: date
    applied: Annotated[int, Field(ge=0)] = 0
    ignored: Annotated[int, Field(ge=0)] = 0

    @property
    def flagged(self) -> bool:
        """Spec §6: a node pushed past the daily limit is flagged for review."""
        return self.ignored > 0


class ReinforcementResult(_Value):
    weight: Unit
    applied: bool
    tally: ReinforcementTally

    @property
    def rate_limited(self) -> bool:
        return not self.applied


def reinforce(
    current_weight: float,
    now: datetime,
    tally: ReinforcementTally | None = None,
    config: DecayConfig = DEFAULT_DECAY,
) -> ReinforcementResult:
    """Apply one mention to a node whose effective weight at `now` is `current_weight`.

    Spec §3.3: additive, capped (repeating a phrase cannot pin a node at full weight). Spec §6:
    past the daily limit the mention is ignored and counted, which flags the node. The day is
    the UTC calendar day of `now`; a tally from another day starts over.
    """
    day = now.astimezone(UTC).date()
    if tally is None or tally.day != day:
        tally = ReinforcementTally(day=day)
    if tally.applied >= config.max_reinforcements_per_day:
        ignored = tally.model_copy(update={"ignored": tally.ignored + 1})
        return ReinforcementResult(weight=current_weight, applied=False, tally=ignored)
    weight = min(current_weight + config.reinforcement_step, config.weight_cap)
    applied = tally.model_copy(update={"applied": tally.applied + 1})
    return ReinforcementResult(weight=max(weight, current_weight), applied=True, tally=applied)


def reinforce_node(
    node: Node,
    now: datetime,
    tally: ReinforcementTally | None = None,
    *,
    timeline: ActivityTimeline | None = None,
    config: DecayConfig = DEFAULT_DECAY,
) -> tuple[Node, ReinforcementResult]:
    """Materialise the node's decay up to `now`, reinforce it and re-stamp `expires_at`.

    A rate-limited mention returns the node unchanged.
    """
    current = node_effective_weight(node, now, timeline=timeline, config=config)
    result = reinforce(current, now, tally, config)
    if not result.applied:
        return node, result
    at = max(now, node.weight_at)
    updated = Node.model_validate(
        node.model_dump()
        | {
            "weight": result.weight,
            "weight_at": at,
            "last_reinforced_at": at,
            "expires_at": expires_at(
                result.weight, at, node_coefficient(node, config), timeline=timeline, config=config
            ),
        }
    )
    return updated, result
