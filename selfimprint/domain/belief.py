"""How sure the memory is about a belief, and how that changes (the epistemic-memory article).

- Dormancy decay (component 4): confidence halves every permanence-dependent half-life that
  passes without fresh evidence. "Dormant" is measured per belief, from `Belief.evidence_anchor()`
  (when its confidence was last set): a system that has not seen the user gets no evidence, so
  it grows less sure, and a belief that sessions keep confirming does not fade.
- Earned confidence (component 2): interpretations never exceed a cap.
- Two evidence streams (component 6): self-report and observed behaviour are recorded apart and
  move confidence by different rules. Neither overrides the other; when they point in opposite
  directions the divergence is reported, so the caller can log a tension.
- Review cadence (component 8): every N sessions the user validates the highest- and
  lowest-confidence beliefs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Annotated, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from selfimprint.domain.models import (
    MAX_EVIDENCE_IDS,
    AwareDatetime,
    Belief,
    EvidenceKind,
    MemoryId,
    Permanence,
    Unit,
)

Step = Annotated[float, Field(ge=0.0, le=1.0)]


class BeliefConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # Article, component 4: "~2 years for stable traits, ~5 months for durable, ~6 weeks for
    # situational" (starting points, to be tuned per user).
    stable_half_life: timedelta = timedelta(days=730)
    durable_half_life: timedelta = timedelta(days=152)
    situational_half_life: timedelta = timedelta(days=42)
    # Article, component 2: "a 0.90 cap for anything interpretive".
    interpretation_cap: Unit = 0.90
    # Not in the article (it gives no update rule): project choices encoding component 2,
    # "confidence must be earned through observed behaviour". Each supporting observation closes
    # this fraction of the gap to the cap; each contradiction removes this fraction of confidence.
    observed_step: Step = 0.2
    self_report_step: Step = 0.1
    # Self-report alone can lift confidence only this far; beyond it, behaviour must earn it.
    self_report_ceiling: Unit = 0.6
    # Not in the article (it names `stable` traits and their ~2-year half-life, not how a belief
    # earns the class): project choice, see domain.permanence. A belief is stable once this many
    # observations support it over at least this span with no challenge inside the span: three
    # sessions two months apart is a pattern, not a mood.
    stable_min_confirmations: Annotated[int, Field(ge=1)] = 3
    stable_min_span: timedelta = timedelta(days=60)
    # Article, component 8: every 10 sessions, present the 3 highest and 3 lowest.
    review_every_sessions: Annotated[int, Field(ge=1)] = 10
    review_highest: Annotated[int, Field(ge=0)] = 3
    review_lowest: Annotated[int, Field(ge=0)] = 3

    @model_validator(mode="after")
    def _positive_half_lives(self) -> Self:
        if min(self.stable_half_life, self.durable_half_life, self.situational_half_life) <= (
            timedelta(0)
        ):
            raise ValueError("half-lives must be positive")
        return self


DEFAULT_BELIEF = BeliefConfig()


class _Value(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --- confidence over time -----------------------------------------------------------------------


def half_life(permanence: Permanence, config: BeliefConfig = DEFAULT_BELIEF) -> timedelta:
    match permanence:
        case Permanence.STABLE:
            return config.stable_half_life
        case Permanence.DURABLE:
            return config.durable_half_life
        case Permanence.SITUATIONAL:
            return config.situational_half_life


def confidence_cap(kind: EvidenceKind, config: BeliefConfig = DEFAULT_BELIEF) -> float:
    """Article, component 2: you never fully know another person's inner state."""
    return config.interpretation_cap if kind is EvidenceKind.INTERPRETATION else 1.0


def effective_confidence(
    belief: Belief, now: datetime, config: BeliefConfig = DEFAULT_BELIEF
) -> float:
    """Stored confidence after dormancy decay up to `now`, within the belief's cap."""
    dormant = max(now - belief.evidence_anchor(), timedelta(0))
    decayed = belief.confidence * math.exp2(-(dormant / half_life(belief.permanence, config)))
    return min(decayed, confidence_cap(belief.evidence_kind, config))


# --- evidence -----------------------------------------------------------------------------------


class EvidenceStream(StrEnum):
    """Where a piece of evidence came from (article, component 6)."""

    OBSERVED = "observed"
    SELF_REPORT = "self_report"


class Evidence(_Value):
    """One dated observation about a belief: the message (or observation) id it came from."""

    id: MemoryId
    stream: EvidenceStream
    supports: bool
    at: AwareDatetime


_STREAM_FIELDS = ("observed_for", "observed_against", "self_report_for", "self_report_against")


class EvidenceStreams(_Value):
    """Evidence ids per stream and direction, kept apart so neither stream silently wins.

    Ids, not counters: the article dropped "observation count" as untrackable, but every piece of
    evidence here is a message or observation id, so counts are derived and replays are no-ops.
    """

    observed_for: tuple[MemoryId, ...] = ()
    observed_against: tuple[MemoryId, ...] = ()
    self_report_for: tuple[MemoryId, ...] = ()
    self_report_against: tuple[MemoryId, ...] = ()

    def contains(self, evidence_id: str) -> bool:
        return any(
            evidence_id in ids
            for ids in (
                self.observed_for,
                self.observed_against,
                self.self_report_for,
                self.self_report_against,
            )
        )

    @classmethod
    def of(cls, belief: Belief) -> EvidenceStreams:
        """The streams a stored belief carries."""
        return cls(**{f: getattr(belief, f) for f in _STREAM_FIELDS})

    def recorded(self, evidence: Evidence) -> EvidenceStreams:
        if self.contains(evidence.id):
            return self
        field = {
            (EvidenceStream.OBSERVED, True): "observed_for",
            (EvidenceStream.OBSERVED, False): "observed_against",
            (EvidenceStream.SELF_REPORT, True): "self_report_for",
            (EvidenceStream.SELF_REPORT, False): "self_report_against",
        }[(evidence.stream, evidence.supports)]
        ids: tuple[str, ...] = getattr(self, field)
        # A belief keeps the newest MAX_EVIDENCE_IDS per list: older evidence still moved its
        # confidence, only its id (the replay guard) is forgotten.
        return self.model_copy(update={field: (*ids, evidence.id)[-MAX_EVIDENCE_IDS:]})

    def observed_balance(self) -> int:
        return len(self.observed_for) - len(self.observed_against)

    def self_report_balance(self) -> int:
        return len(self.self_report_for) - len(self.self_report_against)

    def diverge(self) -> bool:
        """What the user says and what they do point in opposite directions (component 6:
        'the divergence itself is often the most interesting signal')."""
        return self.observed_balance() * self.self_report_balance() < 0


class EvidenceOutcome(_Value):
    belief: Belief
    streams: EvidenceStreams
    counted: bool
    diverging: bool


def record_evidence(
    belief: Belief,
    streams: EvidenceStreams,
    evidence: Evidence,
    config: BeliefConfig = DEFAULT_BELIEF,
) -> EvidenceOutcome:
    """Move confidence by one piece of evidence; evidence already recorded changes nothing.

    Dormancy is applied up to the evidence first, so stale confidence is what evidence moves.
    - Observed support closes `observed_step` of the gap to the belief's cap, and sets
      `confirmed` (article: "last session where behaviour was consistent with it").
    - Self-report support closes `self_report_step` of the gap to `self_report_ceiling` and
      never lifts confidence past it, nor lowers confidence already above it.
    - A contradiction from either stream removes that stream's step of confidence and sets
      `challenged` ("last session where something contradicted it").
    """
    if streams.contains(evidence.id):
        return EvidenceOutcome(
            belief=belief, streams=streams, counted=False, diverging=streams.diverge()
        )
    at = max(evidence.at, belief.evidence_anchor())
    current = effective_confidence(belief, at, config)
    cap = confidence_cap(belief.evidence_kind, config)
    observed = evidence.stream is EvidenceStream.OBSERVED
    step = config.observed_step if observed else config.self_report_step
    changes: dict[str, object] = {"confidence_at": at}
    if evidence.supports:
        target = cap if observed else min(cap, config.self_report_ceiling)
        confidence = current + step * (target - current) if current < target else current
        if observed:
            changes["confirmed_at"] = at
    else:
        confidence = current * (1.0 - step)
        changes["challenged_at"] = at
    changes["confidence"] = min(max(confidence, 0.0), cap)
    updated_streams = streams.recorded(evidence)
    return EvidenceOutcome(
        belief=Belief.model_validate(belief.model_dump() | changes),
        streams=updated_streams,
        counted=True,
        diverging=updated_streams.diverge(),
    )


def update_belief(
    belief: Belief, evidence: Evidence, config: BeliefConfig = DEFAULT_BELIEF
) -> EvidenceOutcome:
    """`record_evidence` on the streams the belief carries, written back into it: what every
    production caller stores."""
    outcome = record_evidence(belief, EvidenceStreams.of(belief), evidence, config)
    if not outcome.counted:
        return outcome
    stored = outcome.belief.model_copy(update=outcome.streams.model_dump())
    return outcome.model_copy(update={"belief": stored})


# --- review cadence -----------------------------------------------------------------------------


class SessionCounter(_Value):
    """Sessions completed; the review is due on session N, 2N, 3N... (article, component 8)."""

    sessions: Annotated[int, Field(ge=0)] = 0

    def advanced(self) -> SessionCounter:
        return SessionCounter(sessions=self.sessions + 1)

    def review_due(self, config: BeliefConfig = DEFAULT_BELIEF) -> bool:
        return self.sessions > 0 and self.sessions % config.review_every_sessions == 0


class ReviewSelection(_Value):
    """Beliefs to put in front of the user: most confident first, least confident first."""

    highest: tuple[MemoryId, ...]
    lowest: tuple[MemoryId, ...]


def select_for_review(
    confidences: Mapping[str, float], config: BeliefConfig = DEFAULT_BELIEF
) -> ReviewSelection:
    """The `review_highest` most and `review_lowest` least confident beliefs, by id on ties.

    Pass effective (dormancy-decayed) confidences. With fewer beliefs than both lists together,
    the highest are chosen first and no belief is shown twice.
    """
    by_confidence_desc = sorted(confidences.items(), key=lambda item: (-item[1], item[0]))
    highest = tuple(belief_id for belief_id, _ in by_confidence_desc[: config.review_highest])
    chosen = set(highest)
    rest = sorted(
        ((belief_id, c) for belief_id, c in confidences.items() if belief_id not in chosen),
        key=lambda item: (item[1], item[0]),
    )
    lowest = tuple(belief_id for belief_id, _ in rest[: config.review_lowest])
    return ReviewSelection(highest=highest, lowest=lowest)
