"""Sleep-phase activities (spec §3.5.1, §3.5.2, §3.6 smart skip, §5 reality anchor).

Graph side (`SleepActivities`, cpu queue): each operation reads the user's graph, plans with the
pure domain rules, and commits its writes through `apply_sleep_writes`, which records the
operation in the run's journal in the same transaction: a retry after a crash writes nothing
twice. Ids are deterministic (patterns, triggers, questions, hypotheses), so even a new run that
repeats an old one updates rather than duplicates.

Model side (`SleepModelActivities`, gpu queue): the smart-skip pre-check and hypothesis formation,
one LLM call each with a json_schema answer. An unusable answer is not retried (the call is
deterministic): the pre-check then runs the pass, hypothesis formation proposes nothing.

`now` always comes from the workflow, so a pass plans against the instant it was scheduled for.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Protocol, TypeVar
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field, ValidationError
from temporalio import activity
from temporalio.exceptions import ApplicationError

from selfimprint.adapters.llm import LLMAnswerInvalidError
from selfimprint.domain.decay import (
    DEFAULT_DECAY,
    ActivityTimeline,
    expires_at,
    node_coefficient,
)
from selfimprint.domain.decay import node_effective_weight as effective
from selfimprint.domain.hypotheses import (
    DEFAULT_POLICY,
    EvidenceAdded,
    HypothesisEvent,
    Reinforced,
    SleepCheck,
    Stance,
    Surfaced,
    apply_events,
    form_hypothesis,
    reality_anchor_factor,
)
from selfimprint.domain.inference_policy import classify
from selfimprint.domain.ingestion import normalise_content
from selfimprint.domain.models import (
    Belief,
    EvidenceKind,
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
    detect_patterns,
    infer_connections,
    recalibration_targets,
    recent_memories,
    topics,
)
from selfimprint.domain.scheduled_triggers import (
    DEFAULT_TRIGGERS,
    ScheduledTrigger,
    TriggerConfig,
    plan_open_loop_questions,
    plan_triggers,
)
from selfimprint.domain.sleep_policy import SleepOperation
from selfimprint.domain.sleep_writes import SleepRunRecord, SleepStatus, SleepWrites, WeightChange
from selfimprint.domain.smart_skip import SkipFeatures, skip_features
from selfimprint.logging import get_logger
from selfimprint.ports import LLM, GraphSnapshot
from selfimprint.prompts.hypotheses import (
    HypothesesAnswer,
    PrecheckAnswer,
    hypothesis_messages,
    precheck_messages,
)

log = get_logger(__name__)
T = TypeVar("T")

# What the LLM sees: the most recent memories, capped (the local model has a small context).
MAX_PROMPT_MEMORIES = 20
HYPOTHESIS_WEIGHT = 0.5  # hypotheses enter below observed memories (spec §3.5.1 down-weighting)
HYPOTHESIS_CONFIDENCE = 0.5
# A hypothesis surfaced when a later memory shares this many topics with it (spec §5).
SURFACING_TOPICS = 2
MIN_EVIDENCE = 1
BAD_DATA = "BadSleepDataError"


class SleepGraph(Protocol):
    """What the sleep activities need from one user's graph (Neo4jUserGraph implements it)."""

    async def export_graph(self, now: datetime) -> GraphSnapshot: ...

    async def apply_sleep_writes(self, run_id: str, operation: str, data: SleepWrites) -> bool: ...

    async def record_sleep_run(self, run: SleepRunRecord) -> None: ...

    async def active_pattern_node_ids(self) -> list[str]: ...

    async def decay_clock(self) -> ActivityTimeline: ...


class SleepGraphs(Protocol):
    def for_user(self, tenant_id: str, user_id: str) -> SleepGraph: ...


# --- inputs and outputs ---------------------------------------------------------------------


class SleepScope(BaseModel):
    tenant_id: str
    user_id: str
    run_id: str
    now: datetime
    time_zone: str = "UTC"


class BeginInput(BaseModel):
    scope: SleepScope
    depth: str
    operations: list[str]
    since: datetime | None
    new_messages: int = Field(ge=0)


class BeginOutput(BaseModel):
    features: SkipFeatures
    new_memories: list[str]


class FinishInput(BaseModel):
    scope: SleepScope
    depth: str
    status: SleepStatus
    summary: str = ""
    started_at: datetime
    operations: list[str] = Field(default_factory=list)


class OperationInput(BaseModel):
    scope: SleepScope


class PatternsOutput(BaseModel):
    patterns: list[Pattern]
    applied: bool


class ConnectionsInput(BaseModel):
    scope: SleepScope
    patterns: list[Pattern]


class ConnectionsOutput(BaseModel):
    edges: int
    touched: list[str]
    applied: bool


class HypothesisContext(BaseModel):
    memory_ids: list[str]
    memories: list[str]
    patterns: list[str]


class PrecheckInput(BaseModel):
    new_memories: list[str]


class PrecheckOutput(BaseModel):
    worth_reasoning: bool
    summary: str
    llm_error: str | None = None


class ProposeInput(BaseModel):
    context: HypothesisContext


class Proposal(BaseModel):
    statement: str
    evidence: list[str]


class ProposeOutput(BaseModel):
    proposals: list[Proposal]
    llm_error: str | None = None


class StoreHypothesesInput(BaseModel):
    scope: SleepScope
    proposals: list[Proposal]


class StoreHypothesesOutput(BaseModel):
    formed: int
    reinforced: int
    rejected: int
    applied: bool


class RecalibrateInput(BaseModel):
    scope: SleepScope
    patterns: list[Pattern]
    touched: list[str] = Field(default_factory=list)


class RecalibrateOutput(BaseModel):
    boosted: int
    drifted: int
    applied: bool


class TriggersOutput(BaseModel):
    triggers: list[ScheduledTrigger]
    applied: bool


class OpenLoopsInput(BaseModel):
    scope: SleepScope
    triggers: list[ScheduledTrigger]


class OpenLoopsOutput(BaseModel):
    questions: int
    applied: bool


class CheckOutput(BaseModel):
    outcomes: dict[str, int]
    anchored: int
    applied: bool


def hypothesis_id(user_id: str, statement: str) -> str:
    digest = hashlib.sha256(f"{user_id}\x00{normalise_content(statement)}".encode()).hexdigest()
    return f"h-{digest[:32]}"


def _bad_data(exc: Exception) -> ApplicationError:
    return ApplicationError(str(exc)[:1000], type=BAD_DATA, non_retryable=True)


async def _guard(work: Callable[[], Awaitable[T]]) -> T:
    """Bad stored data fails the operation for good; Temporal retries everything else."""
    try:
        return await work()
    except (ValidationError, ValueError) as exc:
        if isinstance(exc, ApplicationError):
            raise
        raise _bad_data(exc) from exc


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


class SleepActivities:
    """Graph side of the sleep phase (cpu queue)."""

    def __init__(
        self,
        graphs: SleepGraphs,
        patterns: PatternConfig = DEFAULT_PATTERNS,
        triggers: TriggerConfig = DEFAULT_TRIGGERS,
    ) -> None:
        self._graphs = graphs
        self._patterns = patterns  # operations 1-4 (Settings.sleep_tuning_file)
        self._triggers = triggers  # operations 5-6

    def _graph(self, scope: SleepScope) -> SleepGraph:
        return self._graphs.for_user(scope.tenant_id, scope.user_id)

    async def _snapshot(self, scope: SleepScope) -> GraphSnapshot:
        snapshot = await self._graph(scope).export_graph(scope.now)
        activity.heartbeat("graph read")
        return snapshot

    async def _commit(self, scope: SleepScope, op: str, data: SleepWrites) -> bool:
        applied = await self._graph(scope).apply_sleep_writes(scope.run_id, op, data)
        if not applied:
            log.info("sleep.operation_already_applied", run_id=scope.run_id, operation=op)
        return applied

    @activity.defn(name="sleep.begin")
    async def begin(self, data: BeginInput) -> BeginOutput:
        async def work() -> BeginOutput:
            scope = data.scope
            await self._graph(scope).record_sleep_run(
                SleepRunRecord(
                    run_id=scope.run_id,
                    depth=data.depth,
                    status=SleepStatus.RUNNING,
                    started_at=scope.now,
                    operations=tuple(data.operations),
                )
            )
            graph = await self._snapshot(scope)
            features = skip_features(
                data.new_messages,
                graph.nodes,
                graph.edges,
                graph.tensions,
                since=data.since,
                tz=ZoneInfo(scope.time_zone),
            )
            since = data.since
            fresh = [
                n
                for n in graph.nodes
                if n.type is not NodeType.HYPOTHESIS
                and (since is None or (n.last_reinforced_at or n.created_at) > since)
            ]
            fresh.sort(key=lambda n: (n.last_reinforced_at or n.created_at, n.id), reverse=True)
            return BeginOutput(
                features=features, new_memories=[n.content for n in fresh[:MAX_PROMPT_MEMORIES]]
            )

        return await _guard(work)

    @activity.defn(name="sleep.finish")
    async def finish(self, data: FinishInput) -> None:
        await self._graph(data.scope).record_sleep_run(
            SleepRunRecord(
                run_id=data.scope.run_id,
                depth=data.depth,
                status=data.status,
                summary=data.summary[:500],
                started_at=data.started_at,
                finished_at=data.scope.now,
                operations=tuple(data.operations),
            )
        )
        log.info("sleep.finished", run_id=data.scope.run_id, status=data.status.value)

    @activity.defn(name="sleep.detect_patterns")
    async def detect_patterns(self, data: OperationInput) -> PatternsOutput:
        async def work() -> PatternsOutput:
            scope = data.scope
            graph = await self._snapshot(scope)
            patterns = detect_patterns(
                scope.user_id, graph.nodes, scope.now, ZoneInfo(scope.time_zone), self._patterns
            )
            applied = await self._commit(
                scope,
                SleepOperation.PATTERN_DETECTION.value,
                SleepWrites(patterns=patterns, detected_at=scope.now),
            )
            return PatternsOutput(patterns=list(patterns), applied=applied)

        return await _guard(work)

    @activity.defn(name="sleep.infer_connections")
    async def infer_connections(self, data: ConnectionsInput) -> ConnectionsOutput:
        async def work() -> ConnectionsOutput:
            scope = data.scope
            graph = await self._snapshot(scope)
            edges = infer_connections(
                data.patterns, graph.nodes, graph.edges, scope.now, self._patterns
            )
            applied = await self._commit(
                scope, SleepOperation.CONNECTION_INFERENCE.value, SleepWrites(edges=edges)
            )
            touched = sorted({i for e in edges for i in (e.source_id, e.target_id)})
            return ConnectionsOutput(edges=len(edges), touched=touched, applied=applied)

        return await _guard(work)

    @activity.defn(name="sleep.hypothesis_context")
    async def hypothesis_context(self, data: ConnectionsInput) -> HypothesisContext:
        async def work() -> HypothesisContext:
            graph = await self._snapshot(data.scope)
            recent = recent_memories(graph.nodes, data.scope.now, self._patterns)
            recent = recent[-MAX_PROMPT_MEMORIES:]
            return HypothesisContext(
                memory_ids=[n.id for n in recent],
                memories=[n.content for n in recent],
                patterns=[p.description for p in data.patterns[:10]],
            )

        return await _guard(work)

    @activity.defn(name="sleep.store_hypotheses")
    async def store_hypotheses(self, data: StoreHypothesesInput) -> StoreHypothesesOutput:
        async def work() -> StoreHypothesesOutput:
            scope = data.scope
            graph = await self._snapshot(scope)
            timeline = await self._graph(scope).decay_clock()
            nodes = {n.id: n for n in graph.nodes}
            existing = {h.node_id: h for h in graph.hypotheses}
            new_nodes, records = [], []
            formed = reinforced = rejected = 0
            for proposal in data.proposals:
                evidence = [i for i in dict.fromkeys(proposal.evidence) if i in nodes]
                decision = classify(proposal.statement)
                if len(evidence) < MIN_EVIDENCE or not decision.may_form_hypothesis:
                    rejected += 1
                    continue
                node_id = hypothesis_id(scope.user_id, proposal.statement)
                current = existing.get(node_id)
                if current is not None:
                    if current.status is not HypothesisStatus.ACTIVE:
                        continue  # resolved once: the sleep phase does not revive it
                    # Only memories newer than the hypothesis are fresh evidence for it.
                    events: list[HypothesisEvent] = [Reinforced()]
                    events += [
                        EvidenceAdded(observation_id=i, stance=Stance.SUPPORTING)
                        for i in evidence
                        if nodes[i].created_at > current.created_at
                    ]
                    records.append(apply_events(current, events)[-1].hypothesis)
                    reinforced += 1
                    continue
                if node_id in {r.node_id for r in records}:
                    continue
                sources = sorted({s for i in evidence for s in nodes[i].sources})
                new_nodes.append(
                    Node(
                        id=node_id,
                        user_id=scope.user_id,
                        type=NodeType.HYPOTHESIS,
                        content=proposal.statement,
                        weight=HYPOTHESIS_WEIGHT,
                        weight_at=scope.now,
                        created_at=scope.now,
                        is_inference=True,
                        decay_coefficient=DEFAULT_DECAY.hypothesis,
                        expires_at=expires_at(
                            HYPOTHESIS_WEIGHT,
                            scope.now,
                            DEFAULT_DECAY.hypothesis,
                            timeline=timeline,
                        ),
                        sources=tuple(sources) or tuple(evidence),
                        belief=Belief(
                            confidence=HYPOTHESIS_CONFIDENCE,
                            permanence=Permanence.SITUATIONAL,
                            first_seen=scope.now,
                            evidence_kind=EvidenceKind.INTERPRETATION,
                            confidence_at=scope.now,
                        ),
                    )
                )
                records.append(form_hypothesis(node_id, scope.now, high_bar=decision.high_bar))
                formed += 1
            applied = await self._commit(
                scope,
                SleepOperation.HYPOTHESIS_FORMATION.value,
                SleepWrites(nodes=tuple(new_nodes), hypotheses=tuple(records)),
            )
            return StoreHypothesesOutput(
                formed=formed, reinforced=reinforced, rejected=rejected, applied=applied
            )

        return await _guard(work)

    @activity.defn(name="sleep.recalibrate")
    async def recalibrate(self, data: RecalibrateInput) -> RecalibrateOutput:
        async def work() -> RecalibrateOutput:
            scope = data.scope
            graph = await self._snapshot(scope)
            previous = await self._graph(scope).active_pattern_node_ids()
            timeline = await self._graph(scope).decay_clock()
            nodes = {n.id: n for n in graph.nodes}
            plan = recalibration_targets(data.patterns, (), previous)
            central = set(plan.central) | set(data.touched)
            changes = []
            for node_id in sorted(central):
                node = nodes.get(node_id)
                if node is not None and node.type is not NodeType.HYPOTHESIS:
                    boosted = (
                        effective(node, scope.now, timeline=timeline) + self._patterns.central_boost
                    )
                    changes.append(_weight_change(node, boosted, scope.now, timeline))
            drifted = 0
            for node_id in plan.drifted:
                node = nodes.get(node_id)
                if node is None or node.is_pinned or node_id in central:
                    continue
                faded = (
                    effective(node, scope.now, timeline=timeline) * self._patterns.drift_multiplier
                )
                changes.append(_weight_change(node, faded, scope.now, timeline))
                drifted += 1
            applied = await self._commit(
                scope,
                SleepOperation.IMPORTANCE_RECALIBRATION.value,
                SleepWrites(weights=tuple(changes)),
            )
            return RecalibrateOutput(
                boosted=len(changes) - drifted, drifted=drifted, applied=applied
            )

        return await _guard(work)

    @activity.defn(name="sleep.schedule_triggers")
    async def schedule_triggers(self, data: OperationInput) -> TriggersOutput:
        async def work() -> TriggersOutput:
            scope = data.scope
            graph = await self._snapshot(scope)
            triggers = plan_triggers(
                scope.user_id,
                graph.nodes,
                graph.edges,
                scope.now,
                ZoneInfo(scope.time_zone),
                self._triggers,
            )
            applied = await self._commit(
                scope, SleepOperation.SCHEDULED_TRIGGERS.value, SleepWrites(triggers=triggers)
            )
            return TriggersOutput(triggers=list(triggers), applied=applied)

        return await _guard(work)

    @activity.defn(name="sleep.prepare_open_loops")
    async def prepare_open_loops(self, data: OpenLoopsInput) -> OpenLoopsOutput:
        async def work() -> OpenLoopsOutput:
            scope = data.scope
            graph = await self._snapshot(scope)
            questions = plan_open_loop_questions(
                scope.user_id, graph.nodes, data.triggers, scope.now, self._triggers
            )
            applied = await self._commit(
                scope, SleepOperation.OPEN_LOOP_PREPARATION.value, SleepWrites(questions=questions)
            )
            return OpenLoopsOutput(questions=len(questions), applied=applied)

        return await _guard(work)

    @activity.defn(name="sleep.check_hypotheses")
    async def check_hypotheses(self, data: OperationInput) -> CheckOutput:
        """The §3.5.2 lifecycle check and the §5 reality anchor, for every active hypothesis."""

        async def work() -> CheckOutput:
            scope = data.scope
            graph = await self._snapshot(scope)
            nodes = {n.id: n for n in graph.nodes}
            observed = [n for n in graph.nodes if n.type is not NodeType.HYPOTHESIS]
            outcomes: dict[str, int] = {}
            hypotheses, converted, deleted = [], [], []
            anchored = 0
            for hyp in graph.hypotheses:
                node = nodes.get(hyp.node_id)
                if hyp.status is not HypothesisStatus.ACTIVE or node is None:
                    continue
                claim = topics(node.content, self._patterns)
                events: list[HypothesisEvent] = [
                    Surfaced(at=n.last_reinforced_at or n.created_at)
                    for n in observed
                    if (n.last_reinforced_at or n.created_at) > hyp.created_at
                    and (n.last_reinforced_at or n.created_at) <= scope.now
                    and len(claim & topics(n.content, self._patterns)) >= SURFACING_TOPICS
                ]
                events.append(SleepCheck(at=scope.now))
                result = apply_events(hyp, events)[-1]
                after = result.hypothesis
                outcomes[after.status.value] = outcomes.get(after.status.value, 0) + 1
                if after.status is HypothesisStatus.REFUTED:
                    deleted.append(node.id)
                    continue
                hypotheses.append(after)
                if after.status is HypothesisStatus.CONFIRMED:
                    converted.append(
                        node.model_copy(update={"type": NodeType.FACT, "is_inference": False})
                    )
                elif after.status is HypothesisStatus.ACTIVE:
                    anchor = node.belief.evidence_anchor()
                    factor = reality_anchor_factor(
                        after, since=anchor, now=scope.now, policy=DEFAULT_POLICY
                    )
                    if factor < 1.0:
                        belief = node.belief.model_copy(
                            update={
                                "confidence": node.belief.confidence * factor,
                                "confidence_at": scope.now,
                            }
                        )
                        converted.append(node.model_copy(update={"belief": belief}))
                        anchored += 1
            applied = await self._commit(
                scope,
                "hypothesis_lifecycle",
                SleepWrites(
                    nodes=tuple(converted),
                    hypotheses=tuple(hypotheses),
                    deleted_node_ids=tuple(deleted),
                ),
            )
            return CheckOutput(outcomes=outcomes, anchored=anchored, applied=applied)

        return await _guard(work)


class SleepModelActivities:
    """Model side of the sleep phase (gpu queue)."""

    def __init__(self, llm: LLM) -> None:
        self._llm = llm

    @activity.defn(name="sleep.precheck")
    async def precheck(self, data: PrecheckInput) -> PrecheckOutput:
        try:
            answer = await self._llm.complete_json(
                precheck_messages(data.new_memories), PrecheckAnswer, max_tokens=200
            )
        except LLMAnswerInvalidError as exc:
            # An unreadable verdict must not lose a pass: run it.
            return PrecheckOutput(worth_reasoning=True, summary="", llm_error=str(exc)[:500])
        return PrecheckOutput(worth_reasoning=answer.worth_reasoning, summary=answer.summary)

    @activity.defn(name="sleep.propose_hypotheses")
    async def propose_hypotheses(self, data: ProposeInput) -> ProposeOutput:
        context = data.context
        if len(context.memories) < 2:
            return ProposeOutput(proposals=[])
        try:
            answer = await self._llm.complete_json(
                hypothesis_messages(context.memories, context.patterns),
                HypothesesAnswer,
                max_tokens=600,
            )
        except LLMAnswerInvalidError as exc:
            log.warning("sleep.hypotheses_unusable", error=str(exc)[:300])
            return ProposeOutput(proposals=[], llm_error=str(exc)[:500])
        proposals = []
        for h in answer.hypotheses:
            ids: list[MemoryId] = [
                context.memory_ids[i - 1] for i in h.evidence if 1 <= i <= len(context.memory_ids)
            ]
            proposals.append(Proposal(statement=h.statement.strip(), evidence=ids))
        return ProposeOutput(proposals=[p for p in proposals if p.statement])
