"""Retrieval score for context assembly (spec §3.4, DESIGN.md §5 read path).

    score = multiplier × (w_sim · similarity + w_rec · recency + w_weight · effective_weight)

- similarity: how relevant the memory is to the query, in [0, 1]: the embedding similarity
  (calibrated, `calibrated_similarity`) and, when the query has words the user's memories hold,
  the lexical relevance (`domain.terms.lexical_relevance`), mixed by `lexical_share`. Embeddings
  of short chat lines rank names, places and years poorly; a query naming them should find the
  memories that say them.
- recency: 0.5 ** (age / half-life), where age runs from the node's last reinforcement, or its
  creation if never reinforced. 1.0 for a memory touched just now, 0.5 one half-life later.
- effective weight: the lazily decayed weight (domain.decay) at query time. It is already in
  [0, 1] (stored weight in [0, 1], coefficient <= 1), which is the "normalised weight" of §3.4.
  It is deliberately NOT divided by the candidate set's maximum: that would make one memory's
  score depend on which other memories the index happened to return, and adding a candidate
  could reorder the rest.
- multiplier: `hypothesis_multiplier` for inferences (spec §3.5.1: hypotheses are down-weighted in
  context assembly), 1.0 otherwise; times the confidence factor.
- confidence factor (the epistemic-memory article: confidence is earned by evidence and fades
  when dormant; not in §3.4): 1 + `confidence_weight` x the counted shift, where the shift is
  the memory's effective confidence now minus the effective confidence it would have now had no
  evidence ever touched it (`confidence_shift`). A negative shift (the memory was challenged and
  not since re-confirmed) counts whole; a positive one counts `confidence_support_share` of
  itself, 0 by default: support comes from restatements, which already raise the memory's
  weight and recency (reinforcement), so lifting it again here would count the same evidence
  twice, and on LoCoMo it only ever lowered recall (BENCHMARKS.md, docs/decisions.md).
  Exactly 1.0 for a memory no evidence has moved and for hypotheses (they have their own
  multiplier and lifecycle), so untouched memories rank exactly as without it; below 1 for a
  challenged one.

The three weights must sum to 1, so every score lies in [0, 1].
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Annotated, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from selfimprint.domain.belief import DEFAULT_BELIEF, BeliefConfig, effective_confidence
from selfimprint.domain.decay import ActivityTimeline, node_effective_weight
from selfimprint.domain.models import (
    AwareDatetime,
    Belief,
    EvidenceKind,
    MemoryId,
    Node,
    NodeType,
    Unit,
    Valence,
)

NonNegative = Annotated[float, Field(ge=0.0)]
_WEIGHT_SUM_TOLERANCE = 1e-9


class ScoringConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # Spec §3.4: 0.5 × similarity + 0.2 × recency + 0.3 × normalised weight.
    similarity_weight: NonNegative = 0.5
    recency_weight: NonNegative = 0.2
    effective_weight_weight: NonNegative = 0.3
    # Spec §3.4 / §3.5.1 say hypotheses are "downweighted" without a number: project choice.
    hypothesis_multiplier: Unit = 0.5
    # Not in the spec: project choice, the same 7 days that keep a user in the hot tier (§3.8.1).
    recency_half_life: timedelta = timedelta(days=7)
    # Not in the spec: §3.4's "similarity" is read as relevance to the query, half the embedding
    # similarity and half the lexical relevance when the query has words the user's memories
    # hold (an even split, not tuned on any benchmark; docs/decisions.md, issue 19).
    lexical_share: Unit = 0.5
    # Not in the spec: project choice. A query term found only in the message a memory replied
    # to (Node.context_terms, domain.reply_context) counts this share of one the memory holds:
    # the question it answered is about it, less surely than its own words. Chosen on LoCoMo
    # dev among 0, 0.25 and 0.5 (docs/decisions.md, "Reply context").
    context_term_share: Unit = 0.5
    # Not in the spec: project choice. How much the confidence shift (in [-1, 1]) moves a score:
    # one contradiction takes ~0.1 off a new memory's confidence, so -5% at 0.5; at most ×0.5.
    # Measured on LoCoMo dev against 0 (BENCHMARKS.md); 0 turns the factor off.
    confidence_weight: Unit = 0.5
    # Not in the spec: project choice. The share of a positive shift (confirmation) that counts:
    # 0 = confirmation never lifts a score, since the restatement that confirmed the memory has
    # already raised its weight and recency; 1 = as much as a challenge lowers it. LoCoMo dev
    # lost questions to lifted restated chit-chat at 0.5 and 0.2 (BENCHMARKS.md).
    confidence_support_share: Unit = 0.0
    # The confidence a new memory starts with, the factor's neutral point: ingestion's own
    # defaults (IngestionConfig.observed_confidence / self_report_confidence).
    observed_start_confidence: Unit = 0.6
    self_report_start_confidence: Unit = 0.5
    # Spec §3.4: top-K with K = 20.
    top_k: Annotated[int, Field(ge=0)] = 20
    # Spec §3.5.1 marks a scheduled event's subgraph "high priority" without a number: project
    # choice, added to the score inside the window (enough to beat a fresh but unrelated memory).
    scheduled_priority_boost: Unit = 0.25
    # Issue 32: what the score's weight term reads. False (project choice, measured): the weight
    # as evidence last set it (importance at extraction, re-mentions, contradictions, sleep's
    # centrality), not decayed; time counts once, in recency, and decay decides only what fades
    # out of the default pool. True is the literal §3.4 reading (the decayed weight), which
    # counts age twice: with the clock running on LoCoMo dev it cost more than 0.3 of recall
    # (docs/decisions.md, "The score's weight term").
    decayed_weight_in_score: bool = False
    # Issue 32, forgetting demotes: a memory decayed under the removal threshold is kept but
    # leaves the default pool; a query brings it back when it recognises it (domain.recognition):
    # a calibrated similarity of at least this (a floor: a match must be one at all) ...
    recognition_min_similarity: Unit = 0.10
    # ... standing at least this many deviations above the query's typical similarity to the
    # user's memories (a specific match; robust z-score). Chosen on LoCoMo dev with the clock
    # running (BENCHMARKS.md, "Recognition is a specific match"): 1.5 and 1.25 recognised as
    # much, 2.0 less; the absolute bar it replaces (0.27 alone) gave 0.546, and a bar loose
    # enough to approach it (0.15: 0.607) left a vague question of a small graph within 0.01
    # of recognising. None: the floor alone decides (an ablation).
    recognition_min_distinctiveness: float | None = 1.5
    # Issue 32: a faded memory is also recognised by words and meaning together: its lexical
    # relevance to the query at least this, and its similarity `recognition_lexical_
    # distinctiveness` deviations out. A question that names what it asks about needs less of
    # a stand-out by meaning. Chosen on LoCoMo dev with the clock running (BENCHMARKS.md,
    # "Recognition by words and meaning"): 0.34 / 0.5 gave +0.017 over meaning alone (temporal
    # +0.032), 0.5 / 1.0 +0.008. None: meaning alone decides (the ablation).
    recognition_min_lexical: Unit | None = 0.34
    recognition_lexical_distinctiveness: float = 0.5
    # Issue 32: a recognised faded memory's score is multiplied by this in the context's
    # ranking. 1.0 (project choice, measured): it competes as a live memory would. Lower
    # costs recall on LoCoMo dev with the clock running (0.85: 0.599, 0.7: 0.497 against
    # 0.657), and the evidence share with it: what recognition brings back is mostly what
    # the question asks for; higher crowds out live evidence (1.2: 0.627, 1.5: 0.531)
    # (BENCHMARKS.md, "Calibrating the curves and the increments").
    recognised_score_factor: Annotated[float, Field(gt=0.0, le=2.0)] = 1.0
    # The deviation used is at least this (a query equally unlike every memory has none).
    recognition_min_deviation: Annotated[float, Field(gt=0.0, le=1.0)] = 0.05
    # How many of the user's memories (smallest ids first) the spread is read from.
    recognition_sample: Annotated[int, Field(ge=2)] = 500
    # Issue 32, an ablation switch (off by default): a faded memory is recognised only when it
    # is also among this many of the query's candidates nearest by similarity (live ones
    # included), so a bar that is loose on a large graph does not let every faded neighbour in.
    # None: the similarity bar alone decides.
    recognition_max_rank: Annotated[int, Field(ge=1)] | None = None
    # Issue 32: the types a faded memory of can be recognised. Not hypotheses (inferences, not
    # the user's words: once faded they do not resurface). Emotional notes are: told feelings
    # carry what happened ("so proud of my kids' painting at the museum"), and on LoCoMo dev
    # they hold much of what is asked later (docs/decisions.md, "The score's weight term").
    recognised_types: tuple[NodeType, ...] = (
        NodeType.FACT,
        NodeType.EVENT,
        NodeType.PERSON,
        NodeType.OPEN_LOOP,
        NodeType.EMOTIONAL_NOTE,
    )
    # Issue 32: emotional notes of these valences are never recognised once faded (an operator
    # switch). None by default: a question that singles out a faded negative note shows it was
    # not noise. On LoCoMo dev with the clock running, the temporal questions memory lost to
    # flat search were about such notes ("Last week, my grandma passed away and it's been
    # really hard", and misread valences: "Here's a recent self-portrait I made last week"), each
    # the question's nearest memory; recognising them like other notes gave 0.658 at 400 tokens
    # against 0.637 (temporal 0.715 against 0.667; BENCHMARKS.md, "Negative notes are not
    # noise to a question that names them"). The sweeper keeps them too, unless superseded
    # (compaction.fading.noise_only_when_superseded).
    unrecognised_valences: tuple[Valence, ...] = ()
    # Issue 32, "forgetting earns its keep": a faded memory among the nearest that the query
    # does not recognise keeps its place in the ranking and its room in the context's budget,
    # shown to no one. What ranks below it does not move up into the room forgetting freed:
    # the context is as deep as it would be with nothing faded and holds fewer, likelier
    # tokens. False: the room goes to the next candidates (the context fills). On LoCoMo dev
    # with the clock running: evidence share @400 0.1297 -> 0.1323 (nothing aged: 0.1315),
    # text @400 0.654 -> 0.653 (BENCHMARKS.md, "A faded memory holds its room").
    faded_hold_room: bool = True

    @model_validator(mode="after")
    def _weights_sum_to_one(self) -> Self:
        total = self.similarity_weight + self.recency_weight + self.effective_weight_weight
        if not math.isclose(total, 1.0, abs_tol=_WEIGHT_SUM_TOLERANCE):
            raise ValueError(f"score weights must sum to 1, got {total}")
        if self.recency_half_life <= timedelta(0):
            raise ValueError("recency_half_life must be positive")
        return self


DEFAULT_SCORING = ScoringConfig()


class _Value(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Candidate(_Value):
    """A memory the vector index returned for the query, with what scoring needs."""

    id: MemoryId
    similarity: Unit
    effective_weight: Unit
    last_touched_at: AwareDatetime
    # Lexical relevance to the query; None when the query has no word the user's memories hold.
    lexical: Unit | None = None
    is_hypothesis: bool = False
    # Inside an active scheduled-trigger window (an event coming up).
    prioritised: bool = False
    # For the confidence factor; None (as for hypotheses) is neutral.
    belief: Belief | None = None

    @classmethod
    def from_node(
        cls,
        node: Node,
        *,
        similarity: float,
        effective_weight: float,
        prioritised: bool = False,
        lexical: float | None = None,
    ) -> Candidate:
        is_hypothesis = node.is_inference or node.type is NodeType.HYPOTHESIS
        return cls(
            id=node.id,
            similarity=similarity,
            effective_weight=effective_weight,
            lexical=lexical,
            last_touched_at=node.last_reinforced_at or node.created_at,
            is_hypothesis=is_hypothesis,
            prioritised=prioritised,
            belief=None if is_hypothesis else node.belief,
        )


class ScoredMemory(_Value):
    id: MemoryId
    score: Unit
    similarity: Unit
    recency: Unit
    effective_weight: Unit
    lexical: Unit | None = None
    confidence_factor: float = 1.0


def confidence_shift(
    belief: Belief,
    now: datetime,
    config: ScoringConfig = DEFAULT_SCORING,
    beliefs: BeliefConfig = DEFAULT_BELIEF,
) -> float:
    """Effective confidence now minus what an untouched twin (same kind, class and first
    sighting, its starting confidence) would have now: what evidence has done to the memory.
    0.0 exactly when no evidence is recorded on it."""
    if not belief.evidenced:
        return 0.0
    start = (
        config.observed_start_confidence
        if belief.evidence_kind is EvidenceKind.OBSERVED
        else config.self_report_start_confidence
    )
    untouched = Belief(
        confidence=start,
        permanence=belief.permanence,
        first_seen=belief.first_seen,
        evidence_kind=belief.evidence_kind,
    )
    now_confidence = effective_confidence(belief, now, beliefs)
    return now_confidence - effective_confidence(untouched, now, beliefs)


def confidence_factor(
    belief: Belief | None,
    now: datetime,
    config: ScoringConfig = DEFAULT_SCORING,
    beliefs: BeliefConfig = DEFAULT_BELIEF,
) -> float:
    """The score's confidence factor (module docstring); in [0, 2] as the weight is in [0, 1]."""
    if belief is None or config.confidence_weight == 0.0:
        return 1.0
    shift = confidence_shift(belief, now, config, beliefs)
    counted = shift if shift < 0.0 else config.confidence_support_share * shift
    return 1.0 + config.confidence_weight * counted


def relevance(candidate: Candidate, config: ScoringConfig = DEFAULT_SCORING) -> float:
    """The score's similarity term: embedding similarity, mixed with lexical relevance when the
    query has words the user's memories hold."""
    if candidate.lexical is None:
        return candidate.similarity
    share = config.lexical_share
    return (1.0 - share) * candidate.similarity + share * candidate.lexical


def recency(
    last_touched_at: datetime, now: datetime, config: ScoringConfig = DEFAULT_SCORING
) -> float:
    """Half-life decay of freshness; a timestamp in the future (clock skew) counts as now."""
    age = max(now - last_touched_at, timedelta(0))
    return math.exp2(-(age / config.recency_half_life))


def score(
    candidate: Candidate,
    now: datetime,
    config: ScoringConfig = DEFAULT_SCORING,
    beliefs: BeliefConfig = DEFAULT_BELIEF,
) -> ScoredMemory:
    fresh = recency(candidate.last_touched_at, now, config)
    raw = (
        config.similarity_weight * relevance(candidate, config)
        + config.recency_weight * fresh
        + config.effective_weight_weight * candidate.effective_weight
        + (config.scheduled_priority_boost if candidate.prioritised else 0.0)
    )
    multiplier = config.hypothesis_multiplier if candidate.is_hypothesis else 1.0
    trust = confidence_factor(candidate.belief, now, config, beliefs)
    return ScoredMemory(
        id=candidate.id,
        # Float sums of weights that add to 1 can land a hair above 1.
        score=min(raw * multiplier * trust, 1.0),
        similarity=candidate.similarity,
        recency=fresh,
        effective_weight=candidate.effective_weight,
        lexical=candidate.lexical,
        confidence_factor=trust,
    )


def rank(
    candidates: Iterable[Candidate],
    now: datetime,
    config: ScoringConfig = DEFAULT_SCORING,
    top_k: int | None = None,
    beliefs: BeliefConfig = DEFAULT_BELIEF,
) -> tuple[ScoredMemory, ...]:
    """The best `top_k` (config.top_k by default) memories, by score descending, then id.

    The id tie-break makes the context deterministic for equal scores. A memory listed twice
    (say, found by two queries) is kept once, with its better score.
    """
    limit = config.top_k if top_k is None else top_k
    if limit < 0:
        raise ValueError("top_k must not be negative")
    best: dict[str, ScoredMemory] = {}
    for candidate in candidates:
        scored = score(candidate, now, config, beliefs)
        kept = best.get(scored.id)
        if kept is None or scored.score > kept.score:
            best[scored.id] = scored
    ordered = sorted(best.values(), key=lambda s: (-s.score, s.id))
    return tuple(ordered[:limit])


def score_weight(
    node: Node,
    now: datetime,
    *,
    timeline: ActivityTimeline | None = None,
    config: ScoringConfig = DEFAULT_SCORING,
) -> float:
    """The weight term of the score, in [0, 1]: the stored weight (what evidence made of the
    memory), or the decayed one with `decayed_weight_in_score` (ScoringConfig)."""
    if config.decayed_weight_in_score:
        return min(1.0, node_effective_weight(node, now, timeline=timeline))
    return min(1.0, node.weight)


def prior(
    node: Node,
    now: datetime,
    *,
    timeline: ActivityTimeline | None = None,
    config: ScoringConfig = DEFAULT_SCORING,
    beliefs: BeliefConfig = DEFAULT_BELIEF,
) -> float:
    """What a memory scores before any similarity: recency and effective weight, with the
    hypothesis multiplier (the score with similarity 0). Retrieval takes the best of these
    beside the nearest ones, so that a heavy or recent memory the query is only loosely about
    can still win on the full score (spec §3.4). The Neo4j adapter computes the same in Cypher
    (adapters/neo4j/retrieval.py, `_PRIOR`; an integration test holds the two together)."""
    candidate = Candidate.from_node(
        node,
        similarity=0.0,
        effective_weight=score_weight(node, now, timeline=timeline, config=config),
    )
    return score(candidate, now, config, beliefs).score


def calibrated_similarity(cosine: float, floor: float) -> float:
    """Map a raw cosine onto [0, 1] from the embedding model's "unrelated" level.

    Embedding models do not use the cosine range alike: unrelated sentences sit near 0.80 with
    multilingual-e5 and near 0.3 with bge-m3. Without this, the similarity term of the score
    would vary by a few hundredths between a perfect and a useless match, and recency and weight
    would decide the ranking alone. Monotonic, so the order by similarity is unchanged.
    """
    if not 0.0 <= floor < 1.0:
        raise ValueError("floor must be in [0, 1)")
    return min(max((cosine - floor) / (1.0 - floor), 0.0), 1.0)
