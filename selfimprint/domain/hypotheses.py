"""Hypothesis lifecycle (spec §3.5.2, §4.2, §5) as an explicit state machine.

A hypothesis is `active` until a sleep-phase check resolves it into one of four terminal states:

- `confirmed`: supporting >= 2x contradicting and at least `min_evidence_to_confirm` distinct
  observations in total (more for the high-bar categories of spec §4.2). The caller converts the
  node into an observed fact (`is_inference: false`). Support that only the model read as such
  counts only while the reality anchor holds (issue 33, below).
- `refuted`: contradicting >= 2x supporting and at least `min_evidence_to_refute` observations
  in total. The caller deletes the node (spec §3.5.2).
- `archived_stuck`: reinforced `max_reinforcements` times without converting (spec §5).
- `archived_unresolved`: the deadline (14 days, longer for high-bar categories) passed without
  resolution; kept for history, no longer used in context.

Evidence, reinforcements and surfacing are only recorded when they happen; the decision is taken
at the check that every sleep phase runs ("at every sleep phase, active hypotheses get checked"),
in the order confirm, refute, stuck, unresolved. Terminal states stay terminal: any later event
leaves the hypothesis unchanged. `TRANSITIONS` lists every allowed transition as data.

Reality anchor (spec §5): a hypothesis that has not surfaced in the last 30 days of dialogue (or
never has) loses confidence faster than time decay alone; `reality_anchor_factor` is the extra
multiplier for an interval. The anchor also gates confirmation (issue 33): while the hypothesis
is stale, observations that only the model judged supporting (`Hypothesis.model_supported`) do
not count towards confirming it. A model agreeing with its own hypothesis about memories the
user never connected to it is not evidence enough to turn an inference into a fact.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from selfimprint.domain.models import AwareDatetime, Hypothesis, HypothesisStatus, MemoryId

_SECONDS_PER_DAY = 86_400.0


def _utc(value: datetime) -> datetime:
    # Arithmetic on two datetimes sharing a ZoneInfo is wall-clock arithmetic: normalise first.
    return value.astimezone(UTC)


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class HypothesisPolicy(_Frozen):
    """Every number of the lifecycle; defaults are the spec's starting points."""

    # §3.5.2: "supporting evidence exceeds contradicting by 2x".
    confirm_ratio: Annotated[float, Field(gt=1.0)] = 2.0
    # §3.5.2: "total evidence passes a threshold" (value not given; §6 asks for a high bar).
    min_evidence_to_confirm: Annotated[int, Field(ge=1)] = 3
    # §4.2: high-bar categories "require significantly more evidence" (value not given).
    high_bar_min_evidence_to_confirm: Annotated[int, Field(ge=1)] = 6
    # §3.5.2: "contradicting exceeds supporting by 2x".
    refute_ratio: Annotated[float, Field(gt=1.0)] = 2.0
    # §3.5.2 names no minimum; two observations keep one noisy extraction from deleting a node.
    min_evidence_to_refute: Annotated[int, Field(ge=1)] = 2
    # §3.5.2 and §5: "reinforced at most three times without converting".
    max_reinforcements: Annotated[int, Field(ge=1)] = 3
    # §3.5.2: "a default timeout of 14 days".
    timeout: timedelta = timedelta(days=14)
    # §4.2: high-bar categories "live with longer timeouts" (value not given: twice the default).
    high_bar_timeout: timedelta = timedelta(days=28)
    # §5 reality anchor: "checked against the last 30 days of dialogue".
    surfacing_window: timedelta = timedelta(days=30)
    # §5: stale hypotheses lose confidence "faster than time-decay alone" (rate not given):
    # an extra x0.95 per stale day, about half over one default timeout.
    stale_daily_factor: Annotated[float, Field(gt=0.0, lt=1.0)] = 0.95

    @model_validator(mode="after")
    def _check_timeouts(self) -> HypothesisPolicy:
        if self.timeout <= timedelta(0) or self.high_bar_timeout < self.timeout:
            raise ValueError("timeouts must be positive and the high-bar one no shorter")
        if self.high_bar_min_evidence_to_confirm < self.min_evidence_to_confirm:
            raise ValueError("the high bar cannot need less evidence than the normal one")
        return self

    def evidence_to_confirm(self, high_bar: bool) -> int:
        return self.high_bar_min_evidence_to_confirm if high_bar else self.min_evidence_to_confirm


DEFAULT_POLICY = HypothesisPolicy()


class Stance(StrEnum):
    SUPPORTING = "supporting"
    CONTRADICTING = "contradicting"


class EventKind(StrEnum):
    EVIDENCE_ADDED = "evidence_added"
    REINFORCED = "reinforced"
    SURFACED = "surfaced"
    SLEEP_CHECK = "sleep_check"


class EvidenceAdded(_Frozen):
    """An observation (memory id) found to support or contradict the hypothesis. `by_model`:
    only the model read it so (the stance rule did not)."""

    kind: Literal[EventKind.EVIDENCE_ADDED] = EventKind.EVIDENCE_ADDED
    observation_id: MemoryId
    stance: Stance
    by_model: bool = False


class Reinforced(_Frozen):
    """The sleep phase arrived at the same hypothesis again (spec §5 counts these)."""

    kind: Literal[EventKind.REINFORCED] = EventKind.REINFORCED


class Surfaced(_Frozen):
    """Recent dialogue touched the hypothesis (the reality anchor's signal, spec §5)."""

    kind: Literal[EventKind.SURFACED] = EventKind.SURFACED
    at: AwareDatetime


class SleepCheck(_Frozen):
    """The per-sleep-phase check at time `at` (spec §3.5.2), deadline included."""

    kind: Literal[EventKind.SLEEP_CHECK] = EventKind.SLEEP_CHECK
    at: AwareDatetime


HypothesisEvent = Annotated[
    EvidenceAdded | Reinforced | Surfaced | SleepCheck, Field(discriminator="kind")
]


class TransitionRule(_Frozen):
    source: HypothesisStatus
    event: EventKind
    target: HypothesisStatus
    when: str


_A = HypothesisStatus.ACTIVE

TRANSITIONS: tuple[TransitionRule, ...] = (
    TransitionRule(source=_A, event=EventKind.EVIDENCE_ADDED, target=_A, when="always"),
    TransitionRule(source=_A, event=EventKind.REINFORCED, target=_A, when="always"),
    TransitionRule(source=_A, event=EventKind.SURFACED, target=_A, when="always"),
    TransitionRule(
        source=_A,
        event=EventKind.SLEEP_CHECK,
        target=HypothesisStatus.CONFIRMED,
        when=(
            "supporting >= confirm_ratio x contradicting and evidence >= threshold, counting"
            " model-only support only while the hypothesis surfaced within the window"
        ),
    ),
    TransitionRule(
        source=_A,
        event=EventKind.SLEEP_CHECK,
        target=HypothesisStatus.REFUTED,
        when="contradicting >= refute_ratio x supporting and evidence >= min_evidence_to_refute",
    ),
    TransitionRule(
        source=_A,
        event=EventKind.SLEEP_CHECK,
        target=HypothesisStatus.ARCHIVED_STUCK,
        when="reinforcements >= max_reinforcements without converting",
    ),
    TransitionRule(
        source=_A,
        event=EventKind.SLEEP_CHECK,
        target=HypothesisStatus.ARCHIVED_UNRESOLVED,
        when="check time >= deadline without resolution",
    ),
    TransitionRule(source=_A, event=EventKind.SLEEP_CHECK, target=_A, when="nothing decided"),
)

TERMINAL: frozenset[HypothesisStatus] = frozenset(HypothesisStatus) - {_A}

_ALLOWED = frozenset((r.source, r.event, r.target) for r in TRANSITIONS)


def is_allowed(source: HypothesisStatus, event: EventKind, target: HypothesisStatus) -> bool:
    """Whether the table allows the move; terminal states only ever stay where they are."""
    if source in TERMINAL:
        return target is source
    return (source, event, target) in _ALLOWED


class Transition(_Frozen):
    """One applied event: the new hypothesis, where it came from and why."""

    hypothesis: Hypothesis
    source: HypothesisStatus
    event: EventKind
    reason: str

    @property
    def target(self) -> HypothesisStatus:
        return self.hypothesis.status

    @property
    def resolved(self) -> bool:
        """True when this step moved the hypothesis into a terminal state."""
        return self.source is not self.target


def form_hypothesis(
    node_id: str,
    created_at: datetime,
    *,
    high_bar: bool = False,
    policy: HypothesisPolicy = DEFAULT_POLICY,
) -> Hypothesis:
    """A new active hypothesis with its deadline (longer for high-bar categories, spec §4.2)."""
    timeout = policy.high_bar_timeout if high_bar else policy.timeout
    created_at = _utc(created_at)
    return Hypothesis(
        node_id=node_id, created_at=created_at, deadline=created_at + timeout, high_bar=high_bar
    )


def apply_event(
    hypothesis: Hypothesis, event: HypothesisEvent, policy: HypothesisPolicy = DEFAULT_POLICY
) -> Transition:
    """Apply one event; the only way a hypothesis changes state."""
    source = hypothesis.status
    if source in TERMINAL:
        return Transition(
            hypothesis=hypothesis,
            source=source,
            event=event.kind,
            reason=f"ignored: {source.value} is terminal",
        )
    match event:
        case EvidenceAdded():
            updated, reason = _add_evidence(hypothesis, event)
        case Reinforced():
            updated = hypothesis.model_copy(
                update={"reinforcements": hypothesis.reinforcements + 1}
            )
            reason = f"reinforced ({updated.reinforcements} of {policy.max_reinforcements})"
        case Surfaced():
            at, last = _utc(event.at), hypothesis.last_surfaced_at
            updated = hypothesis.model_copy(
                update={"last_surfaced_at": at if last is None else max(_utc(last), at)}
            )
            reason = f"surfaced in dialogue at {event.at.isoformat()}"
        case SleepCheck():
            updated, reason = _check(hypothesis, event.at, policy)
    if not is_allowed(source, event.kind, updated.status):  # pragma: no cover - a bug guard
        raise AssertionError(f"{source} -> {updated.status} on {event.kind} is not in TRANSITIONS")
    return Transition(hypothesis=updated, source=source, event=event.kind, reason=reason)


def apply_events(
    hypothesis: Hypothesis,
    events: Iterable[HypothesisEvent],
    policy: HypothesisPolicy = DEFAULT_POLICY,
) -> list[Transition]:
    """Apply events in order; the last transition holds the final hypothesis."""
    steps: list[Transition] = []
    for event in events:
        step = apply_event(hypothesis, event, policy)
        steps.append(step)
        hypothesis = step.hypothesis
    return steps


def _add_evidence(hypothesis: Hypothesis, event: EvidenceAdded) -> tuple[Hypothesis, str]:
    # Evidence is a set of observations: a repeat never counts twice, and an observation that
    # is reclassified (the user corrected it) moves to the other list.
    oid = event.observation_id
    same, other = (
        (hypothesis.supporting, hypothesis.contradicting)
        if event.stance is Stance.SUPPORTING
        else (hypothesis.contradicting, hypothesis.supporting)
    )
    if oid in same:
        return hypothesis, f"observation {oid} already counted as {event.stance.value}"
    moved = oid in other
    same, other = (*same, oid), tuple(o for o in other if o != oid)
    model_only = tuple(o for o in hypothesis.model_supported if o != oid)
    update: dict[str, tuple[str, ...]]
    if event.stance is Stance.SUPPORTING:
        if event.by_model:
            model_only = (*model_only, oid)
        update = {"supporting": same, "contradicting": other, "model_supported": model_only}
    else:
        update = {"contradicting": same, "supporting": other, "model_supported": model_only}
    verb = "moved to" if moved else "added as"
    by = " (model-read)" if event.by_model and event.stance is Stance.SUPPORTING else ""
    return (
        hypothesis.model_copy(update=update),
        f"observation {oid} {verb} {event.stance.value}{by}",
    )


def is_stale(
    hypothesis: Hypothesis, at: datetime, policy: HypothesisPolicy = DEFAULT_POLICY
) -> bool:
    """The reality anchor finds no recent dialogue about the hypothesis at `at` (spec §5)."""
    return _utc(at) >= stale_since(hypothesis, policy)


def model_only_support(hypothesis: Hypothesis) -> int:
    """Supporting observations that only the model read as support."""
    return len(set(hypothesis.model_supported) & set(hypothesis.supporting))


def _check(
    hypothesis: Hypothesis, at: datetime, policy: HypothesisPolicy
) -> tuple[Hypothesis, str]:
    sup, con = len(hypothesis.supporting), len(hypothesis.contradicting)
    total = sup + con
    needed = policy.evidence_to_confirm(hypothesis.high_bar)
    tally = f"{sup} supporting vs {con} contradicting"
    # Reality anchor (issue 33): while the dialogue has not touched the hypothesis, what only
    # the model read as support does not confirm it; the user's own words must carry it.
    unanchored = model_only_support(hypothesis) if is_stale(hypothesis, at, policy) else 0
    grounded = sup - unanchored
    if unanchored:
        tally += f" ({unanchored} supporting only in the model's reading, unsurfaced: not counted)"
    if grounded + con >= needed and grounded >= policy.confirm_ratio * con:
        target = HypothesisStatus.CONFIRMED
        reason = f"confirmed: {tally} (needs >= {policy.confirm_ratio:g}x and >= {needed} total)"
    elif total >= policy.min_evidence_to_refute and con >= policy.refute_ratio * sup:
        target = HypothesisStatus.REFUTED
        reason = (
            f"refuted: {tally} (needs >= {policy.refute_ratio:g}x"
            f" and >= {policy.min_evidence_to_refute} total)"
        )
    elif hypothesis.reinforcements >= policy.max_reinforcements:
        target = HypothesisStatus.ARCHIVED_STUCK
        reason = f"stuck: reinforced {hypothesis.reinforcements} times without converting ({tally})"
    elif _utc(at) >= _utc(hypothesis.deadline):
        target = HypothesisStatus.ARCHIVED_UNRESOLVED
        reason = f"unresolved at deadline {hypothesis.deadline.isoformat()} ({tally})"
    else:
        return hypothesis, f"still active: {tally}, deadline {hypothesis.deadline.isoformat()}"
    return hypothesis.model_copy(update={"status": target}), reason


def stale_since(hypothesis: Hypothesis, policy: HypothesisPolicy = DEFAULT_POLICY) -> datetime:
    """From when the reality anchor counts the hypothesis as stale (spec §5).

    A hypothesis that never surfaced in dialogue is stale from its creation; one that did stays
    fresh for `surfacing_window` after the last time.
    """
    if hypothesis.last_surfaced_at is None:
        return _utc(hypothesis.created_at)
    return _utc(hypothesis.last_surfaced_at) + policy.surfacing_window


def reality_anchor_factor(
    hypothesis: Hypothesis,
    *,
    since: datetime,
    now: datetime,
    policy: HypothesisPolicy = DEFAULT_POLICY,
) -> float:
    """Extra confidence multiplier for the interval [since, now], on top of time decay (spec §5).

    1.0 while the hypothesis surfaced within the window; `stale_daily_factor` per stale day
    (fractional days count). Intervals compose: f(a, b) * f(b, c) == f(a, c). Terminal
    hypotheses are out of context and not anchored.
    """
    if hypothesis.status in TERMINAL:
        return 1.0
    start = max(_utc(since), stale_since(hypothesis, policy))
    stale_days = max((_utc(now) - start).total_seconds(), 0.0) / _SECONDS_PER_DAY
    return float(policy.stale_daily_factor**stale_days)
