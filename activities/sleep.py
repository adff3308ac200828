"""Sleep-phase activities (spec §3.5.1, §3.5.2, §3.6 smart skip, §5 reality anchor).

Graph side (`SleepActivities`, cpu queue): each operation reads the user's graph, plans with the
pure domain rules, and commits its writes through `apply_sleep_writes`, which records the
operation in the run's journal in the same transaction: a retry after a crash writes nothing
twice. Ids are deterministic (patterns, triggers, questions, hypotheses), so even a new run that
repeats an old one updates rather than duplicates.

Model side (`SleepModelActivities`, gpu queue): the smart-skip pre-check, hypothesis formation
and the stance of later memories (one call per hypothesis), each with a json_schema answer. An
unusable answer is not retried (the call is deterministic): the pre-check then runs the pass,
hypothesis formation proposes nothing, and the stance rule's verdicts stand.

`now` always comes from the workflow, so a pass plans against the instant it was scheduled for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import datetime
from enum import StrEnum
from typing import Protocol, TypeVar
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field, ValidationError
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.payload_stage import PayloadRef, PayloadStages, Staging
from selfimprint.adapters.llm import LLMAnswerInvalidError
from selfimprint.domain.belief import DEFAULT_BELIEF, BeliefConfig
from selfimprint.domain.context import DEFAULT_CONTEXT, ContextConfig
from selfimprint.domain.decay import DEFAULT_DECAY, ActivityTimeline, DecayConfig
from selfimprint.domain.hypotheses import DEFAULT_POLICY, HypothesisPolicy
from selfimprint.domain.inference_policy import InferencePolicyConfig
from selfimprint.domain.models import MemoryId
from selfimprint.domain.patterns import (
    DEFAULT_PATTERNS,
    Pattern,
    PatternConfig,
    detect_patterns,
    infer_connections,
    recent_memories,
)
from selfimprint.domain.policy_references import (
    PolicyReference,
    references,
    scores_as_categories,
    semantic_opinion_for,
    semantic_scores,
)
from selfimprint.domain.scheduled_triggers import (
    DEFAULT_TRIGGERS,
    ScheduledTrigger,
    TriggerConfig,
    plan_open_loop_questions,
    plan_triggers,
)
from selfimprint.domain.sleep_planning import (
    DEFAULT_FORMATION,
    HypothesisFormationConfig,
    fresh_memories,
    plan_hypothesis_checks,
    plan_hypothesis_formation,
    plan_recalibration,
    stance_candidates,
)
from selfimprint.domain.sleep_planning import Proposal as PlannedProposal
from selfimprint.domain.sleep_policy import SleepOperation
from selfimprint.domain.sleep_writes import SleepRunRecord, SleepStatus, SleepWrites
from selfimprint.domain.smart_skip import SkipFeatures, skip_features
from selfimprint.domain.stance import DEFAULT_STANCE, StanceConfig, StanceVerdict
from selfimprint.logging import get_logger
from selfimprint.ports import LLM, Embedder, GraphSnapshot
from selfimprint.prompts.hypotheses import (
    MAX_STANCE_MEMORIES,
    HypothesesAnswer,
    PrecheckAnswer,
    StanceAnswer,
    hypothesis_messages,
    precheck_messages,
    stance_messages,
    stances_by_memory,
)
from selfimprint.telemetry.metrics import HYPOTHESES_REJECTED

log = get_logger(__name__)
T = TypeVar("T")

# What the LLM sees: the most recent memories, capped (the local model has a small context).
MAX_PROMPT_MEMORIES = 20
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


class SleepStep(StrEnum):
    """What a pass stages for the other side (activities.payload_stage)."""

    NEW_MEMORIES = "new_memories"
    HYPOTHESIS_CONTEXT = "hypothesis_context"
    PROPOSALS = "proposals"
    STANCE_PAIRS = "stance_pairs"


# --- inputs and outputs ---------------------------------------------------------------------


class SleepScope(BaseModel):
    tenant_id: str
    user_id: str
    run_id: str
    now: datetime
    time_zone: str = "UTC"
    # The user's profile flag (domain.users.UserProfile): health inferences are allowed.
    medical_deployment: bool = False

    @property
    def stage(self) -> PayloadRef:
        """Where this run's texts and vectors are staged."""
        return PayloadRef(tenant_id=self.tenant_id, user_id=self.user_id, run_id=self.run_id)


class BeginInput(BaseModel):
    scope: SleepScope
    depth: str
    operations: list[str]
    since: datetime | None
    new_messages: int = Field(ge=0)
    stage: bool = False  # stage the new memories instead of returning them (issue 35)


class BeginOutput(BaseModel):
    features: SkipFeatures
    new_memories: list[str]  # empty when staged
    staged: PayloadRef | None = None


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
    staged: PayloadRef | None = None  # the lists are staged there, and empty here


class ContextInput(ConnectionsInput):
    stage: bool = False


class StagedTexts(BaseModel):
    texts: list[str]


class PrecheckInput(BaseModel):
    new_memories: list[str] = Field(default_factory=list)
    staged: PayloadRef | None = None


class PrecheckOutput(BaseModel):
    worth_reasoning: bool
    summary: str
    llm_error: str | None = None


class ProposeInput(BaseModel):
    context: HypothesisContext


class Proposal(BaseModel):
    statement: str
    evidence: list[str]
    # The statement embedded on the model side, as ingestion embeds memories (the passage
    # side, so the two compare); None from a worker without an embedder.
    embedding: list[float] | None = None
    embedding_model: str | None = None
    # The inference policy's semantic second opinion, by category name (issue 33), from the
    # model side where the embedder is; None where no calibrated embedder is.
    policy_scores: dict[str, float] | None = None


class ProposeOutput(BaseModel):
    proposals: list[Proposal]  # empty when staged (`context.staged`)
    llm_error: str | None = None
    staged: int | None = None  # how many were staged


class StagedProposals(BaseModel):
    proposals: list[Proposal]


class StoreHypothesesInput(BaseModel):
    scope: SleepScope
    proposals: list[Proposal] = Field(default_factory=list)
    staged: PayloadRef | None = None


class StoreHypothesesOutput(BaseModel):
    formed: int
    reinforced: int
    rejected: int
    applied: bool
    rejected_by_policy: int = 0


class RecalibrateInput(BaseModel):
    scope: SleepScope
    patterns: list[Pattern]
    touched: list[str] = Field(default_factory=list)


class RecalibrateOutput(BaseModel):
    boosted: int
    drifted: int
    applied: bool
    recalled: int = 0  # faded memories a context used, reinforced (issue 32)


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
    evidence: int = 0  # later memories counted for or against a hypothesis


class StancePair(BaseModel):
    """A later memory for the model to judge against a hypothesis."""

    hypothesis_id: str
    statement: str
    memory_id: str
    memory: str


class StanceCandidatesInput(OperationInput):
    stage: bool = False


class StanceCandidatesOutput(BaseModel):
    pairs: list[StancePair]  # empty when staged
    staged: PayloadRef | None = None
    count: int = 0


class JudgeStancesInput(BaseModel):
    pairs: list[StancePair] = Field(default_factory=list)
    staged: PayloadRef | None = None


class JudgedStance(BaseModel):
    hypothesis_id: str
    memory_id: str
    verdict: StanceVerdict


class JudgeStancesOutput(BaseModel):
    verdicts: list[JudgedStance]
    llm_calls: int = 0
    llm_error: str | None = None  # the last unusable answer; its pairs keep the rule's verdict


class CheckInput(OperationInput):
    # The model's verdicts for some pairs (`judge_stances`); they replace the rule's.
    model_verdicts: list[JudgedStance] = Field(default_factory=list)


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


class SleepActivities:
    """Graph side of the sleep phase (cpu queue): each operation is `_operate`: read the
    snapshot, plan with the domain, commit the writes with the run's journal."""

    def __init__(
        self,
        graphs: SleepGraphs,
        patterns: PatternConfig = DEFAULT_PATTERNS,
        triggers: TriggerConfig = DEFAULT_TRIGGERS,
        formation: HypothesisFormationConfig = DEFAULT_FORMATION,
        hypotheses: HypothesisPolicy = DEFAULT_POLICY,
        stance: StanceConfig = DEFAULT_STANCE,
        beliefs: BeliefConfig = DEFAULT_BELIEF,
        context: ContextConfig = DEFAULT_CONTEXT,
        inference: InferencePolicyConfig | None = None,
        stages: PayloadStages | None = None,
        decay: DecayConfig = DEFAULT_DECAY,
    ) -> None:
        self._graphs = graphs
        # A recall is reinforced as a re-mention is: ingestion's decay numbers (issue 32).
        self._decay = decay
        # Texts and vectors for the model side, by reference (issue 35).
        self._staging = Staging(stages)
        # The deployment's inference policy (the tuning's `ingestion.inference_policy`), which
        # hypothesis formation applies as extraction does.
        self._inference = inference or InferencePolicyConfig()
        self._patterns = patterns  # operations 1-4 (Settings.sleep_tuning_file)
        self._triggers = triggers  # operations 5-6
        self._formation = formation  # operation 3 and the hypothesis check
        self._hypotheses = hypotheses  # the hypothesis lifecycle (spec §3.5.2)
        self._stance = stance  # how a later memory bears on a hypothesis (domain/stance.py)
        self._beliefs = beliefs  # how that evidence moves its confidence (domain/belief.py)
        # Operation 6 removes the questions the context no longer serves (its max age).
        self._context = context

    def _graph(self, scope: SleepScope) -> SleepGraph:
        return self._graphs.for_user(scope.tenant_id, scope.user_id)

    async def _snapshot(self, scope: SleepScope) -> GraphSnapshot:
        snapshot = await self._graph(scope).export_graph(scope.now)
        activity.heartbeat("graph read")
        return snapshot

    async def _operate(
        self,
        scope: SleepScope,
        operation: str,
        plan: Callable[[GraphSnapshot], Awaitable[tuple[SleepWrites, T]]],
    ) -> tuple[T, bool]:
        """The skeleton every graph operation shares: the snapshot, the plan, one commit that
        the run's journal makes idempotent; bad stored data fails the operation for good. (A
        helper, not a decorator: Temporal reads each activity's own signature for its types.)"""

        async def work() -> tuple[T, bool]:
            writes, report = await plan(await self._snapshot(scope))
            applied = await self._graph(scope).apply_sleep_writes(scope.run_id, operation, writes)
            if not applied:
                log.info(
                    "sleep.operation_already_applied", run_id=scope.run_id, operation=operation
                )
            return report, applied

        return await _guard(work)

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
            fresh = [
                n.content for n in fresh_memories(graph.nodes, data.since, MAX_PROMPT_MEMORIES)
            ]
            if not data.stage:
                return BeginOutput(features=features, new_memories=fresh)
            await self._staging.write(scope.stage, SleepStep.NEW_MEMORIES, StagedTexts(texts=fresh))
            return BeginOutput(features=features, new_memories=[], staged=scope.stage)

        return await _guard(work)

    @activity.defn(name="sleep.finish")
    async def finish(self, data: FinishInput) -> None:
        await self._staging.drop_run(data.scope.stage)
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
        scope = data.scope

        async def plan(graph: GraphSnapshot) -> tuple[SleepWrites, list[Pattern]]:
            tz = ZoneInfo(scope.time_zone)
            patterns = detect_patterns(scope.user_id, graph.nodes, scope.now, tz, self._patterns)
            return SleepWrites(patterns=patterns, detected_at=scope.now), list(patterns)

        found, applied = await self._operate(scope, SleepOperation.PATTERN_DETECTION.value, plan)
        return PatternsOutput(patterns=found, applied=applied)

    @activity.defn(name="sleep.infer_connections")
    async def infer_connections(self, data: ConnectionsInput) -> ConnectionsOutput:
        async def plan(graph: GraphSnapshot) -> tuple[SleepWrites, tuple[int, list[str]]]:
            edges = infer_connections(
                data.patterns, graph.nodes, graph.edges, data.scope.now, self._patterns
            )
            touched = sorted({i for e in edges for i in (e.source_id, e.target_id)})
            return SleepWrites(edges=edges), (len(edges), touched)

        (edges, touched), applied = await self._operate(
            data.scope, SleepOperation.CONNECTION_INFERENCE.value, plan
        )
        return ConnectionsOutput(edges=edges, touched=touched, applied=applied)

    @activity.defn(name="sleep.hypothesis_context")
    async def hypothesis_context(self, data: ContextInput) -> HypothesisContext:
        async def work() -> HypothesisContext:
            graph = await self._snapshot(data.scope)
            recent = recent_memories(graph.nodes, data.scope.now, self._patterns)
            recent = recent[-MAX_PROMPT_MEMORIES:]
            context = HypothesisContext(
                memory_ids=[n.id for n in recent],
                memories=[n.content for n in recent],
                patterns=[p.description for p in data.patterns[:10]],
            )
            if not data.stage:
                return context
            ref = data.scope.stage
            await self._staging.write(ref, SleepStep.HYPOTHESIS_CONTEXT, context)
            return HypothesisContext(memory_ids=[], memories=[], patterns=[], staged=ref)

        return await _guard(work)

    @activity.defn(name="sleep.store_hypotheses")
    async def store_hypotheses(self, data: StoreHypothesesInput) -> StoreHypothesesOutput:
        scope = data.scope
        given = data.proposals
        if data.staged is not None:
            given = (
                await self._staging.read(data.staged, SleepStep.PROPOSALS, StagedProposals)
            ).proposals
        proposals = [
            PlannedProposal(
                p.statement,
                tuple(p.evidence),
                tuple(p.embedding) if p.embedding else None,
                p.embedding_model,
                scores_as_categories(p.policy_scores) if p.policy_scores is not None else None,
            )
            for p in given
        ]

        inference = self._inference
        if scope.medical_deployment:
            inference = inference.model_copy(update={"medical_deployment": True})

        async def plan(graph: GraphSnapshot) -> tuple[SleepWrites, tuple[int, int, int, int]]:
            timeline = await self._graph(scope).decay_clock()
            formation = plan_hypothesis_formation(
                scope.user_id,
                proposals,
                graph.nodes,
                graph.hypotheses,
                scope.now,
                timeline,
                self._formation,
                self._hypotheses,
                inference=inference,
            )
            counts = (
                formation.formed,
                formation.reinforced,
                formation.rejected,
                formation.rejected_by_policy,
            )
            return formation.writes, counts

        (formed, reinforced, rejected, by_policy), applied = await self._operate(
            scope, SleepOperation.HYPOTHESIS_FORMATION.value, plan
        )
        if applied and by_policy:
            HYPOTHESES_REJECTED.labels(reason="inference_policy").inc(by_policy)
            log.info("sleep.hypotheses_rejected_by_policy", user_id=scope.user_id, count=by_policy)
        return StoreHypothesesOutput(
            formed=formed,
            reinforced=reinforced,
            rejected=rejected,
            applied=applied,
            rejected_by_policy=by_policy,
        )

    @activity.defn(name="sleep.recalibrate")
    async def recalibrate(self, data: RecalibrateInput) -> RecalibrateOutput:
        scope = data.scope

        async def plan(graph: GraphSnapshot) -> tuple[SleepWrites, tuple[int, int, int]]:
            previous = await self._graph(scope).active_pattern_node_ids()
            timeline = await self._graph(scope).decay_clock()
            result = plan_recalibration(
                data.patterns,
                data.touched,
                previous,
                graph.nodes,
                scope.now,
                timeline,
                self._patterns,
                self._decay,
            )
            return result.writes, (result.boosted, result.drifted, result.recalled)

        (boosted, drifted, recalled), applied = await self._operate(
            scope, SleepOperation.IMPORTANCE_RECALIBRATION.value, plan
        )
        if recalled:
            log.info("sleep.recall_reinforced", run_id=scope.run_id, memories=recalled)
        return RecalibrateOutput(
            boosted=boosted, drifted=drifted, applied=applied, recalled=recalled
        )

    @activity.defn(name="sleep.schedule_triggers")
    async def schedule_triggers(self, data: OperationInput) -> TriggersOutput:
        scope = data.scope

        async def plan(graph: GraphSnapshot) -> tuple[SleepWrites, list[ScheduledTrigger]]:
            tz = ZoneInfo(scope.time_zone)
            triggers = plan_triggers(
                scope.user_id, graph.nodes, graph.edges, scope.now, tz, self._triggers
            )
            return SleepWrites(triggers=triggers), list(triggers)

        triggers, applied = await self._operate(
            scope, SleepOperation.SCHEDULED_TRIGGERS.value, plan
        )
        return TriggersOutput(triggers=triggers, applied=applied)

    @activity.defn(name="sleep.prepare_open_loops")
    async def prepare_open_loops(self, data: OpenLoopsInput) -> OpenLoopsOutput:
        scope = data.scope

        async def plan(graph: GraphSnapshot) -> tuple[SleepWrites, int]:
            questions = plan_open_loop_questions(
                scope.user_id, graph.nodes, data.triggers, scope.now, self._triggers
            )
            stale_before = scope.now - self._context.prepared_question_max_age
            writes = SleepWrites(questions=questions, questions_stale_before=stale_before)
            return writes, len(questions)

        questions, applied = await self._operate(
            scope, SleepOperation.OPEN_LOOP_PREPARATION.value, plan
        )
        return OpenLoopsOutput(questions=questions, applied=applied)

    @activity.defn(name="sleep.stance_candidates")
    async def stance_candidates(self, data: StanceCandidatesInput) -> StanceCandidatesOutput:
        """The pairs of tonight's check worth the model's reading (bounded; staged for the
        model when `data.stage`)."""

        async def work() -> StanceCandidatesOutput:
            graph = await self._snapshot(data.scope)
            found = stance_candidates(
                graph.nodes,
                graph.hypotheses,
                data.scope.now,
                edges=graph.edges,
                config=self._stance,
            )
            pairs = [
                StancePair(
                    hypothesis_id=p.hypothesis_id,
                    statement=p.statement,
                    memory_id=p.memory_id,
                    memory=p.memory,
                )
                for p in found
            ]
            if not data.stage:
                return StanceCandidatesOutput(pairs=pairs, count=len(pairs))
            ref = data.scope.stage
            if pairs:
                await self._staging.write(
                    ref, SleepStep.STANCE_PAIRS, JudgeStancesInput(pairs=pairs)
                )
            return StanceCandidatesOutput(pairs=[], staged=ref, count=len(pairs))

        return await _guard(work)

    @activity.defn(name="sleep.check_hypotheses")
    async def check_hypotheses(self, data: CheckInput) -> CheckOutput:
        """The §3.5.2 lifecycle check and the §5 reality anchor, for every active hypothesis;
        later memories are its evidence (silent consistency, `later_evidence`), judged by the
        model where `model_verdicts` has the pair."""
        scope = data.scope
        verdicts = {(v.hypothesis_id, v.memory_id): v.verdict for v in data.model_verdicts}

        async def plan(
            graph: GraphSnapshot,
        ) -> tuple[SleepWrites, tuple[dict[str, int], int, int]]:
            checks = plan_hypothesis_checks(
                graph.nodes,
                graph.hypotheses,
                scope.now,
                self._patterns,
                self._formation,
                self._hypotheses,
                edges=graph.edges,
                stance_config=self._stance,
                belief_config=self._beliefs,
                model_verdicts=verdicts,
            )
            return checks.writes, (checks.outcomes, checks.anchored, checks.evidence)

        (outcomes, anchored, evidence), applied = await self._operate(
            scope, "hypothesis_lifecycle", plan
        )
        log.info(
            "sleep.hypotheses_checked", run_id=scope.run_id, evidence=evidence, outcomes=outcomes
        )
        return CheckOutput(outcomes=outcomes, anchored=anchored, applied=applied, evidence=evidence)


class SleepModelActivities:
    """Model side of the sleep phase (gpu queue)."""

    def __init__(
        self, llm: LLM, embedder: Embedder | None = None, stages: PayloadStages | None = None
    ) -> None:
        self._llm = llm
        self._staging = Staging(stages)
        # Embeds the proposed statements here, where memories are embedded (the gpu worker):
        # the cpu workers hold no model.
        self._embedder = embedder
        self._references: list[tuple[PolicyReference, list[float]]] | None = None

    @activity.defn(name="sleep.precheck")
    async def precheck(self, data: PrecheckInput) -> PrecheckOutput:
        memories = data.new_memories
        if data.staged is not None:
            staged = await self._staging.read(data.staged, SleepStep.NEW_MEMORIES, StagedTexts)
            memories = staged.texts
        try:
            answer = await self._llm.complete_json(
                precheck_messages(memories), PrecheckAnswer, max_tokens=200
            )
        except LLMAnswerInvalidError as exc:
            # An unreadable verdict must not lose a pass: run it.
            return PrecheckOutput(worth_reasoning=True, summary="", llm_error=str(exc)[:500])
        return PrecheckOutput(worth_reasoning=answer.worth_reasoning, summary=answer.summary)

    @activity.defn(name="sleep.propose_hypotheses")
    async def propose_hypotheses(self, data: ProposeInput) -> ProposeOutput:
        ref = data.context.staged
        if ref is None:
            return await self._propose(data.context)
        context = await self._staging.read(ref, SleepStep.HYPOTHESIS_CONTEXT, HypothesisContext)
        proposed = await self._propose(context)
        await self._staging.write(
            ref, SleepStep.PROPOSALS, StagedProposals(proposals=proposed.proposals)
        )
        return ProposeOutput(
            proposals=[], llm_error=proposed.llm_error, staged=len(proposed.proposals)
        )

    async def _propose(self, context: HypothesisContext) -> ProposeOutput:
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
        proposals = [p for p in proposals if p.statement]
        embedder = self._embedder
        if embedder is not None and proposals:
            rows = await asyncio.to_thread(
                embedder.embed_passages, [p.statement for p in proposals]
            )
            judged = await self._policy_references(embedder)
            proposals = [
                p.model_copy(
                    update={
                        "embedding": list(row),
                        "embedding_model": embedder.model_id,
                        "policy_scores": (
                            {c.value: s for c, s in semantic_scores(row, judged).items()}
                            if judged
                            else None
                        ),
                    }
                )
                for p, row in zip(proposals, rows, strict=True)
            ]
        return ProposeOutput(proposals=proposals)

    async def _policy_references(
        self, embedder: Embedder
    ) -> list[tuple[PolicyReference, list[float]]]:
        """The policy's labelled references embedded once per worker; none for an embedder the
        thresholds were not calibrated with (the lexicon then decides alone)."""
        if not semantic_opinion_for(embedder.model_id):
            return []
        if self._references is None:
            known = references()
            rows = await asyncio.to_thread(embedder.embed_passages, [r.text for r in known])
            self._references = list(zip(known, rows, strict=True))
        return self._references

    @activity.defn(name="sleep.judge_stances")
    async def judge_stances(self, data: JudgeStancesInput) -> JudgeStancesOutput:
        """One call per hypothesis over its pairs; an unusable answer gives no verdicts for
        that hypothesis (the rule's stand), never an error."""
        if data.staged is not None:
            data = await self._staging.read(data.staged, SleepStep.STANCE_PAIRS, JudgeStancesInput)
        by_hypothesis: dict[str, list[StancePair]] = {}
        for pair in data.pairs:
            by_hypothesis.setdefault(pair.hypothesis_id, []).append(pair)
        verdicts: list[JudgedStance] = []
        calls = 0
        error: str | None = None
        for hypothesis_id, pairs in by_hypothesis.items():
            pairs = pairs[:MAX_STANCE_MEMORIES]
            calls += 1
            try:
                answer = await self._llm.complete_json(
                    stance_messages(pairs[0].statement, [p.memory for p in pairs]),
                    StanceAnswer,
                    max_tokens=40 * len(pairs) + 20,  # ~30 tokens per {"memory", "stance"} item
                )
            except LLMAnswerInvalidError as exc:
                log.warning("sleep.stances_unusable", error=str(exc)[:300])
                error = str(exc)[:500]
                continue
            for number, said in stances_by_memory(answer, len(pairs)).items():
                verdicts.append(
                    JudgedStance(
                        hypothesis_id=hypothesis_id,
                        memory_id=pairs[number - 1].memory_id,
                        verdict=StanceVerdict(said),
                    )
                )
        return JudgeStancesOutput(verdicts=verdicts, llm_calls=calls, llm_error=error)
