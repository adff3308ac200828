"""What the sleep phase's graph operations write (spec §3.5.1, §3.5.2, §5), as pure plans over a
snapshot of the user's graph: hypothesis formation from the model's proposals, importance
recalibration around the night's patterns, and the hypothesis lifecycle check with the reality
anchor. Each returns the `SleepWrites` to commit and what to report, as `plan_ingestion` does
for messages; the activities only read the snapshot and commit (activities/sleep.py).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.belief import (
    DEFAULT_BELIEF,
    BeliefConfig,
    Evidence,
    EvidenceStream,
    EvidenceStreams,
    record_evidence,
)
from selfimprint.domain.decay import (
    DEFAULT_DECAY,
    ActivityTimeline,
    DecayConfig,
    expires_at,
    node_coefficient,
    node_effective_weight,
    reinforce_node,
)
from selfimprint.domain.hypotheses import (
    DEFAULT_POLICY,
    EvidenceAdded,
    HypothesisEvent,
    HypothesisPolicy,
    Reinforced,
    SleepCheck,
    Stance,
    Surfaced,
    apply_event,
    apply_events,
    form_hypothesis,
    reality_anchor_factor,
)
from selfimprint.domain.inference_lexicon import Category
from selfimprint.domain.inference_policy import InferencePolicyConfig, classify
from selfimprint.domain.ingestion.identity import normalise_content
from selfimprint.domain.models import (
    MAX_SOURCES,
    Belief,
    Edge,
    EdgeType,
    EvidenceKind,
    Hypothesis,
    HypothesisStatus,
    MemoryId,
    Node,
    NodeType,
    Permanence,
)
from selfimprint.domain.patterns import (
    DEFAULT_PATTERNS,
    Pattern,
    PatternConfig,
    recalibration_targets,
    topics,
)
from selfimprint.domain.sleep_writes import SleepWrites, WeightChange
from selfimprint.domain.stance import (
    DEFAULT_STANCE,
    StanceConfig,
    StanceInput,
    StanceVerdict,
    is_model_candidate,
    stance,
)


class HypothesisFormationConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # Spec §3.5.1 down-weighting: hypotheses enter below observed memories (value not given).
    weight: Annotated[float, Field(gt=0.0, le=1.0)] = 0.5
    # Spec §3.5.1: an inference starts uncommitted (value not given: the midpoint).
    confidence: Annotated[float, Field(gt=0.0, lt=1.0)] = 0.5
    # Project choice: a proposal must cite this many of the user's memories to be stored, as
    # the prompt asks (prompts/hypotheses.py: "at least two"); one memory is an anecdote.
    min_evidence: Annotated[int, Field(ge=1)] = 2
    # Spec §5: a later memory sharing this many topics with a hypothesis surfaces it.
    surfacing_topics: Annotated[int, Field(ge=1)] = 2


DEFAULT_FORMATION = HypothesisFormationConfig()


@dataclass(frozen=True)
class Proposal:
    """A hypothesis the model proposed, with the memories it cites as evidence, and the
    statement's vector when the model side embedded it (what the stance rule compares)."""

    statement: str
    evidence: Sequence[MemoryId]
    embedding: tuple[float, ...] | None = None
    embedding_model: str | None = None
    # The inference policy's semantic second opinion on the statement (domain.policy_references;
    # None: no calibrated embedder on the model side, the lexicon decides alone).
    policy_scores: Mapping[Category, float] | None = None


def hypothesis_id(user_id: str, statement: str) -> str:
    """The same statement is the same hypothesis, whichever night proposes it."""
    digest = hashlib.sha256(f"{user_id}\x00{normalise_content(statement)}".encode()).hexdigest()
    return f"h-{digest[:32]}"


def fresh_memories(nodes: Iterable[Node], since: datetime | None, limit: int) -> list[Node]:
    """Observed memories created or reinforced since the last pass, newest first (the smart-skip
    pre-check reads them)."""
    fresh = [
        n
        for n in nodes
        if n.type is not NodeType.HYPOTHESIS
        and (since is None or (n.last_reinforced_at or n.created_at) > since)
    ]
    fresh.sort(key=lambda n: (n.last_reinforced_at or n.created_at, n.id), reverse=True)
    return fresh[:limit]


# --- operation 3: hypothesis formation ---------------------------------------------------------


@dataclass(frozen=True)
class HypothesisFormation:
    writes: SleepWrites
    formed: int
    reinforced: int
    rejected: int
    # Of `rejected`: proposals in a category the inference policy never infers (spec §4.1).
    rejected_by_policy: int = 0


def plan_hypothesis_formation(
    user_id: str,
    proposals: Iterable[Proposal],
    nodes: Sequence[Node],
    hypotheses: Sequence[Hypothesis],
    now: datetime,
    timeline: ActivityTimeline,
    config: HypothesisFormationConfig = DEFAULT_FORMATION,
    policy: HypothesisPolicy = DEFAULT_POLICY,
    decay: DecayConfig = DEFAULT_DECAY,
    inference: InferencePolicyConfig | None = None,
) -> HypothesisFormation:
    """New hypotheses for proposals that cite enough of the user's memories and that the
    inference policy allows; a proposal the user already has reinforces it, with the cited
    memories newer than it as supporting evidence. Resolved hypotheses are not revived.

    `inference`: the deployment's policy (the operator's tuning, with the user's medical flag:
    issue 33), the same the extraction applies; what it never infers is not stored, whatever
    the model proposed, and is counted in `rejected_by_policy`."""
    by_id = {n.id: n for n in nodes}
    existing = {h.node_id: h for h in hypotheses}
    new_nodes: list[Node] = []
    records: list[Hypothesis] = []
    formed = reinforced = rejected = by_policy = 0
    for proposal in proposals:
        evidence = [i for i in dict.fromkeys(proposal.evidence) if i in by_id]
        decision = classify(
            proposal.statement, config=inference, second_opinion=proposal.policy_scores
        )
        if not decision.may_form_hypothesis:
            rejected += 1
            by_policy += 1
            continue
        if len(evidence) < config.min_evidence:
            rejected += 1
            continue
        node_id = hypothesis_id(user_id, proposal.statement)
        current = existing.get(node_id)
        if current is not None:
            if current.status is not HypothesisStatus.ACTIVE:
                continue  # resolved once: the sleep phase does not revive it
            # Only memories newer than the hypothesis are fresh evidence for it.
            events: list[HypothesisEvent] = [Reinforced()]
            events += [
                EvidenceAdded(observation_id=i, stance=Stance.SUPPORTING)
                for i in evidence
                if by_id[i].created_at > current.created_at
            ]
            records.append(apply_events(current, events, policy)[-1].hypothesis)
            reinforced += 1
            continue
        if node_id in {r.node_id for r in records}:
            continue
        sources = sorted({s for i in evidence for s in by_id[i].sources})
        new_nodes.append(
            Node(
                id=node_id,
                user_id=user_id,
                type=NodeType.HYPOTHESIS,
                content=proposal.statement,
                weight=config.weight,
                weight_at=now,
                created_at=now,
                is_inference=True,
                decay_coefficient=decay.hypothesis,
                expires_at=expires_at(config.weight, now, decay.hypothesis, timeline=timeline),
                sources=tuple(sources) or tuple(evidence),
                belief=Belief(
                    confidence=config.confidence,
                    permanence=Permanence.SITUATIONAL,
                    first_seen=now,
                    evidence_kind=EvidenceKind.INTERPRETATION,
                    confidence_at=now,
                ),
                embedding=proposal.embedding if proposal.embedding_model else None,
                embedding_model=proposal.embedding_model if proposal.embedding else None,
            )
        )
        records.append(form_hypothesis(node_id, now, high_bar=decision.high_bar, policy=policy))
        formed += 1
    return HypothesisFormation(
        writes=SleepWrites(nodes=tuple(new_nodes), hypotheses=tuple(records)),
        formed=formed,
        reinforced=reinforced,
        rejected=rejected,
        rejected_by_policy=by_policy,
    )


# --- operation 4: importance recalibration -------------------------------------------------------


@dataclass(frozen=True)
class RecalibrationPlan:
    writes: SleepWrites
    boosted: int
    drifted: int
    recalled: int = 0  # faded memories a context used since their last weight change


def _weight_change(
    node: Node, weight: float, now: datetime, timeline: ActivityTimeline
) -> WeightChange:
    weight = min(1.0, max(0.0, weight))
    return WeightChange(
        node_id=node.id,
        weight=weight,
        weight_at=now,
        expires_at=expires_at(weight, now, node_coefficient(node), timeline=timeline),
    )


def plan_recalibration(
    patterns: Sequence[Pattern],
    touched: Iterable[MemoryId],
    previous_pattern_nodes: Sequence[str],
    nodes: Sequence[Node],
    now: datetime,
    timeline: ActivityTimeline,
    config: PatternConfig = DEFAULT_PATTERNS,
    decay: DecayConfig = DEFAULT_DECAY,
) -> RecalibrationPlan:
    """Memories central to tonight's patterns (or joined by tonight's connections) gain
    `central_boost`; those of patterns that faded drift down by `drift_multiplier`, unless
    pinned. Hypotheses are not recalibrated.

    Recall reinforces (issue 32): a memory a context used while it was faded
    (`Node.recalled_at`), after its weight last changed, is reinforced as a re-mention is
    (`decay.reinforce_node`: the same increment, `decay.reinforcement_step`, as ingestion's
    re-mentions, from its weight now), which makes it live again; once per recall, since the
    write moves `weight_at` past it."""
    by_id = {n.id: n for n in nodes}
    plan = recalibration_targets(patterns, (), previous_pattern_nodes)
    central = set(plan.central) | set(touched)
    changes: list[WeightChange] = []
    for node_id in sorted(central):
        node = by_id.get(node_id)
        if node is not None and node.type is not NodeType.HYPOTHESIS:
            boosted = node_effective_weight(node, now, timeline=timeline) + config.central_boost
            changes.append(_weight_change(node, boosted, now, timeline))
    recalled = 0
    for node in sorted(nodes, key=lambda n: n.id):
        if node.id in central or not _recalled_since_weighed(node, now):
            continue
        reinforced, result = reinforce_node(node, now, timeline=timeline, config=decay)
        if result.applied:
            changes.append(
                WeightChange(
                    node_id=node.id,
                    weight=reinforced.weight,
                    weight_at=reinforced.weight_at,
                    expires_at=reinforced.expires_at,
                )
            )
            recalled += 1
    drifted = 0
    reweighed = {c.node_id for c in changes}
    for node_id in plan.drifted:
        node = by_id.get(node_id)
        if node is None or node.is_pinned or node_id in reweighed:
            continue
        faded = node_effective_weight(node, now, timeline=timeline) * config.drift_multiplier
        changes.append(_weight_change(node, faded, now, timeline))
        drifted += 1
    return RecalibrationPlan(
        writes=SleepWrites(weights=tuple(changes)),
        boosted=len(changes) - drifted - recalled,
        drifted=drifted,
        recalled=recalled,
    )


def _recalled_since_weighed(node: Node, now: datetime) -> bool:
    """A context used it while faded after its weight last changed, and not in the future."""
    at = node.recalled_at
    return (
        at is not None
        and node.weight_at < at <= now
        and node.type is not NodeType.HYPOTHESIS
        and not node.is_pinned
    )


# --- the hypothesis lifecycle check (§3.5.2) and the reality anchor (§5) ------------------------


def _touched(node: Node) -> datetime:
    return node.last_reinforced_at or node.created_at


def _cosine(a: Node, b: Node) -> float | None:
    """Cosine of two nodes' vectors; None unless both carry one of the same model."""
    if a.embedding is None or b.embedding is None or a.embedding_model != b.embedding_model:
        return None
    if len(a.embedding) != len(b.embedding):
        return None
    norms = math.sqrt(sum(x * x for x in a.embedding) * sum(y * y for y in b.embedding))
    if norms == 0.0:
        return None
    return sum(x * y for x, y in zip(a.embedding, b.embedding, strict=True)) / norms


def cites(hypothesis: Node, memory: Node) -> bool:
    """One of the memories the hypothesis was formed from: formation gives it their sources
    (their ids when they had none), so a memory sharing a source with it is its own evidence."""
    return memory.id in hypothesis.sources or not set(memory.sources).isdisjoint(hypothesis.sources)


@dataclass(frozen=True)
class Observation:
    """A later memory that supports or contradicts a hypothesis. `evidence_id` is what the
    hypothesis records: the memory's id when the memory is newer than the hypothesis, else the
    message that restated it since (each later restatement is one more observation)."""

    memory_id: MemoryId
    stance: Stance
    at: datetime
    evidence_id: MemoryId
    by_model: bool = False  # supporting by the model's reading only, not by the stance rule


@dataclass(frozen=True)
class _Later:
    """A later memory `later_evidence` scores, with what the hypothesis would record for it."""

    memory: Node
    at: datetime
    evidence_id: MemoryId
    contradicts_evidence: bool


def _later_memories(
    hypothesis: Hypothesis,
    node: Node,
    observed: Sequence[Node],
    contradictions: frozenset[frozenset[str]],
    now: datetime,
) -> list[_Later]:
    own = {n.id for n in observed if cites(node, n)} | set(hypothesis.supporting)
    counted = set(hypothesis.supporting) | set(hypothesis.contradicting)
    found: list[_Later] = []
    for memory in sorted(observed, key=lambda n: (_touched(n), n.id)):
        at = _touched(memory)
        if at <= hypothesis.created_at or at > now:
            continue
        newer = memory.created_at > hypothesis.created_at and not cites(node, memory)
        restated = memory.last_reinforced_at is not None and bool(memory.sources)
        if newer and memory.id not in counted:
            evidence_id = memory.id  # the message that made it, counted once by the memory's id
        elif restated and (not newer or len(memory.sources) > 1):
            evidence_id = memory.sources[-1]  # the latest message that said it again
        else:
            continue
        if evidence_id in counted or evidence_id in node.sources:
            continue
        linked = any(frozenset((memory.id, e)) in contradictions for e in own)
        found.append(_Later(memory, at, evidence_id, linked))
    return found


ModelVerdicts = Mapping[tuple[str, str], StanceVerdict]  # (hypothesis id, memory id) -> verdict


def later_evidence(
    hypothesis: Hypothesis,
    node: Node,
    observed: Sequence[Node],
    contradictions: frozenset[frozenset[str]],
    now: datetime,
    config: StanceConfig = DEFAULT_STANCE,
    model_verdicts: ModelVerdicts | None = None,
) -> list[Observation]:
    """Silent consistency (article, component 7): every observed memory created or reinforced
    after the hypothesis, up to `now`, not one it was formed from and not yet counted, scored by
    `stance.stance`, or by the model's verdict for the pair where it gave one; the neutral ones
    are left out. Oldest first, so confidence moves in the order the user lived it. A memory
    ingestion linked by `contradicts` to one of the hypothesis's evidence memories contradicts
    it, whatever the model says. A memory older than the hypothesis (one it was formed from
    included) counts when the user restated it since: the restating message is the evidence, so
    the same words said again in three later sessions are three observations, and a replay of
    one sleep adds none. Support the model read where the rule did not is marked `by_model`:
    the reality anchor decides whether it may confirm (`hypotheses`)."""
    verdicts = model_verdicts or {}
    found: list[Observation] = []
    for later in _later_memories(hypothesis, node, observed, contradictions, now):
        memory = later.memory
        ruled = stance(
            StanceInput(
                memory=memory.content,
                hypothesis=node.content,
                cosine=_cosine(memory, node),
                embedding_model=memory.embedding_model,
                contradicts_evidence=later.contradicts_evidence,
            ),
            config,
        )
        read = verdicts.get((node.id, memory.id))
        verdict = ruled if read is None or later.contradicts_evidence else read
        if verdict is StanceVerdict.SUPPORTING:
            by_model = ruled is not StanceVerdict.SUPPORTING
            found.append(
                Observation(memory.id, Stance.SUPPORTING, later.at, later.evidence_id, by_model)
            )
        elif verdict is StanceVerdict.CONTRADICTING:
            found.append(Observation(memory.id, Stance.CONTRADICTING, later.at, later.evidence_id))
    return found


@dataclass(frozen=True)
class StanceCandidate:
    """A (hypothesis, later memory) pair for the model to judge."""

    hypothesis_id: str
    statement: str
    memory_id: MemoryId
    memory: str


def stance_candidates(
    nodes: Sequence[Node],
    hypotheses: Sequence[Hypothesis],
    now: datetime,
    *,
    edges: Sequence[Edge] = (),
    config: StanceConfig = DEFAULT_STANCE,
) -> list[StanceCandidate]:
    """The pairs tonight's check would score that are worth the model's reading
    (`stance.is_model_candidate`), the newest memories first, at most `max_model_pairs`. A
    memory linked by `contradicts` is left out: the edge decides it."""
    by_id = {n.id: n for n in nodes}
    observed = [n for n in nodes if n.type is not NodeType.HYPOTHESIS]
    contradictions = _contradictions(edges)
    found: list[tuple[datetime, StanceCandidate]] = []
    for hyp in hypotheses:
        node = by_id.get(hyp.node_id)
        if hyp.status is not HypothesisStatus.ACTIVE or node is None:
            continue
        for later in _later_memories(hyp, node, observed, contradictions, now):
            memory = later.memory
            if later.contradicts_evidence or not is_model_candidate(
                memory.content,
                node.content,
                _cosine(memory, node),
                embedding_model=memory.embedding_model,
                config=config,
            ):
                continue
            pair = StanceCandidate(node.id, node.content, memory.id, memory.content)
            found.append((later.at, pair))
    found.sort(key=lambda p: (p[0], p[1].hypothesis_id, p[1].memory_id), reverse=True)
    return [pair for _, pair in found[: config.max_model_pairs]]


def _contradictions(edges: Sequence[Edge]) -> frozenset[frozenset[str]]:
    return frozenset(
        frozenset((e.source_id, e.target_id)) for e in edges if e.type is EdgeType.CONTRADICTS
    )


def _weigh_evidence(
    hypothesis: Hypothesis,
    belief: Belief,
    observations: Iterable[Observation],
    policy: HypothesisPolicy,
    config: BeliefConfig,
) -> tuple[Hypothesis, Belief]:
    """Each observation is an `EvidenceAdded` event and moves the belief's confidence on the
    observed stream (`record_evidence`; the interpretation cap applies), the streams being the
    hypothesis's own evidence sets (the record is the authority: formation's reinforcement adds
    to it too): a repeat changes neither."""
    for seen in observations:
        streams = EvidenceStreams(
            observed_for=hypothesis.supporting, observed_against=hypothesis.contradicting
        )
        evidence = Evidence(
            id=seen.evidence_id,
            stream=EvidenceStream.OBSERVED,
            supports=seen.stance is Stance.SUPPORTING,
            at=seen.at,
        )
        outcome = record_evidence(belief, streams, evidence, config)
        # The belief keeps the ids that moved it, as `belief.update_belief` stores them.
        belief = outcome.belief.model_copy(update=outcome.streams.model_dump())
        event = EvidenceAdded(
            observation_id=seen.evidence_id, stance=seen.stance, by_model=seen.by_model
        )
        hypothesis = apply_event(hypothesis, event, policy).hypothesis
    return hypothesis, belief


def confirmed_sources(node: Node, supporting: Iterable[Node]) -> tuple[MemoryId, ...]:
    """A confirmed hypothesis's sources: its own, then those of the memories that supported it
    (oldest first), the newest `MAX_SOURCES` kept."""
    ordered = sorted(supporting, key=lambda n: (_touched(n), n.id))
    merged = dict.fromkeys([*node.sources, *(s for n in ordered for s in n.sources)])
    return tuple(merged)[-MAX_SOURCES:]


@dataclass(frozen=True)
class HypothesisChecks:
    writes: SleepWrites
    outcomes: dict[str, int]  # hypotheses by status after the check
    anchored: int  # active hypotheses whose confidence the reality anchor lowered
    evidence: int = 0  # later memories counted as supporting or contradicting tonight


def plan_hypothesis_checks(
    nodes: Sequence[Node],
    hypotheses: Sequence[Hypothesis],
    now: datetime,
    patterns: PatternConfig = DEFAULT_PATTERNS,
    formation: HypothesisFormationConfig = DEFAULT_FORMATION,
    policy: HypothesisPolicy = DEFAULT_POLICY,
    *,
    edges: Sequence[Edge] = (),
    stance_config: StanceConfig = DEFAULT_STANCE,
    belief_config: BeliefConfig = DEFAULT_BELIEF,
    model_verdicts: ModelVerdicts | None = None,
) -> HypothesisChecks:
    """Every active hypothesis: later memories scored as evidence for or against it (silent
    consistency, `later_evidence`; `model_verdicts` are the model's for some pairs), its
    confidence moved by each, surfaced by later memories sharing its topics, then checked
    against the lifecycle rules; refuted ones are deleted, confirmed ones become facts with the
    supporting memories' sources, the rest lose confidence when the dialogue stopped mentioning
    them."""
    by_id = {n.id: n for n in nodes}
    observed = [n for n in nodes if n.type is not NodeType.HYPOTHESIS]
    contradictions = _contradictions(edges)
    outcomes: dict[str, int] = {}
    checked: list[Hypothesis] = []
    converted: list[Node] = []
    deleted: list[MemoryId] = []
    anchored = counted = 0
    for hyp in hypotheses:
        node = by_id.get(hyp.node_id)
        if hyp.status is not HypothesisStatus.ACTIVE or node is None:
            continue
        seen = later_evidence(
            hyp, node, observed, contradictions, now, stance_config, model_verdicts
        )
        counted += len(seen)
        weighed, belief = _weigh_evidence(hyp, node.belief, seen, policy, belief_config)
        claim = topics(node.content, patterns)
        events: list[HypothesisEvent] = [
            Surfaced(at=_touched(n))
            for n in observed
            if _touched(n) > hyp.created_at
            and _touched(n) <= now
            and len(claim & topics(n.content, patterns)) >= formation.surfacing_topics
        ]
        events.append(SleepCheck(at=now))
        after = apply_events(weighed, events, policy)[-1].hypothesis
        outcomes[after.status.value] = outcomes.get(after.status.value, 0) + 1
        if after.status is HypothesisStatus.REFUTED:
            deleted.append(node.id)
            continue
        checked.append(after)
        if after.status is HypothesisStatus.CONFIRMED:
            # Evidence ids are memories or the messages that restated one (`later_evidence`).
            said = set(after.supporting)
            supporting = [n for n in observed if n.id in said or not said.isdisjoint(n.sources)]
            fact = {
                "type": NodeType.FACT,
                "is_inference": False,
                "belief": belief,
                "sources": confirmed_sources(node, supporting),
            }
            converted.append(node.model_copy(update=fact))
            continue
        if after.status is HypothesisStatus.ACTIVE:
            factor = reality_anchor_factor(
                after, since=belief.evidence_anchor(), now=now, policy=policy
            )
            if factor < 1.0:
                belief = belief.model_copy(
                    update={"confidence": belief.confidence * factor, "confidence_at": now}
                )
                anchored += 1
        if belief != node.belief:
            converted.append(node.model_copy(update={"belief": belief}))
    return HypothesisChecks(
        writes=SleepWrites(
            nodes=tuple(converted), hypotheses=tuple(checked), deleted_node_ids=tuple(deleted)
        ),
        outcomes=outcomes,
        anchored=anchored,
        evidence=counted,
    )
