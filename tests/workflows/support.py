"""Workflow-test support: an in-memory user graph behind the real sleep and compaction
activities, a scripted LLM, stub ingestion activities and a stub tier workflow."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel
from temporalio import activity, workflow
from temporalio.client import Client, WorkflowHandle
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from activities.compaction import ApplySoftResetInput, CompactionActivities, SoftResetApplied
from activities.forget import ForgetInput, ForgetTopicReport
from activities.ingestion import (
    USER_GONE,
    ApplyInput,
    ApplyOutcome,
    ExtractedBatch,
    ExtractInput,
    ExtractionBatch,
    ExtractionMode,
    ExtractionSummary,
    LoadBatchInput,
    MarkFailedInput,
    PendingInput,
    StagedBatch,
    StageRef,
)
from activities.payload_stage import PayloadRef
from activities.reviews import ReviewInput, ReviewOutput
from activities.sleep import SleepActivities, SleepModelActivities
from activities.summaries import ScheduleInput
from activities.tenants import TenantInput
from activities.tiers import TierMoveInput, TierMoveOutcome
from selfimprint.adapters.neo4j.accounts import TenantPause
from selfimprint.domain.compaction.plan import CompactionPlan
from selfimprint.domain.decay import ActivityTimeline
from selfimprint.domain.fading import FadingConfig
from selfimprint.domain.ingestion.extraction import Extraction
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.models import Belief, Edge, Hypothesis, Node, NodeType
from selfimprint.domain.sleep_policy import Depth
from selfimprint.domain.sleep_writes import SleepRunRecord, SleepWrites, closed_orphan
from selfimprint.domain.users import UserScope
from selfimprint.ports import (
    CompactionOutcome,
    ForgetReport,
    ForgottenMemory,
    GraphSnapshot,
    TopicSelector,
)
from selfimprint.prompts.hypotheses import HypothesesAnswer, PrecheckAnswer, StanceAnswer
from tests.deadlines import READY_S
from workflows.compaction import CompactionWorkflow
from workflows.lifecycle_state import LifecycleInput, LifecycleState, MessagesReceived, TaskQueues
from workflows.sleep_phase import SleepInput, SleepOutcome, SleepPhaseWorkflow
from workflows.user_lifecycle import UserLifecycleWorkflow

AnswerT = TypeVar("AnswerT", bound=BaseModel)


@dataclass
class MemoryGraph:
    """One user's graph in memory, with the sleep journal: the `SleepGraph` protocol."""

    user_id: str
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: dict[tuple[str, str, str], Edge] = field(default_factory=dict)
    hypotheses: dict[str, Hypothesis] = field(default_factory=dict)
    journal: set[tuple[str, str]] = field(default_factory=set)
    runs: dict[str, SleepRunRecord] = field(default_factory=dict)
    patterns: dict[str, tuple[list[str], bool]] = field(default_factory=dict)
    triggers: set[str] = field(default_factory=set)
    questions: set[str] = field(default_factory=set)
    writes: int = 0

    async def export_graph(self, now: datetime) -> GraphSnapshot:
        return GraphSnapshot(
            user_id=self.user_id,
            exported_at=now,
            nodes=tuple(self.nodes.values()),
            edges=tuple(self.edges.values()),
            hypotheses=tuple(self.hypotheses.values()),
            tensions=(),
        )

    async def apply_sleep_writes(self, run_id: str, operation: str, data: SleepWrites) -> bool:
        if (run_id, operation) in self.journal:
            return False
        self.journal.add((run_id, operation))
        self.writes += 1
        for node in data.nodes:
            self.nodes[node.id] = node
        for h in data.hypotheses:
            self.hypotheses[h.node_id] = h
        for e in data.edges:
            self.edges[(e.source_id, e.target_id, e.type.value)] = e
        for w in data.weights:
            if w.node_id in self.nodes:
                self.nodes[w.node_id] = self.nodes[w.node_id].model_copy(
                    update={"weight": w.weight, "weight_at": w.weight_at}
                )
        if data.detected_at is not None:
            for key, (ids, _) in list(self.patterns.items()):
                self.patterns[key] = (ids, False)
            for p in data.patterns:
                self.patterns[p.id] = (list(p.node_ids), True)
        self.triggers |= {t.id for t in data.triggers}
        self.questions |= {q.id for q in data.questions}
        for node_id in data.deleted_node_ids:
            self.nodes.pop(node_id, None)
            self.hypotheses.pop(node_id, None)
        return True

    async def record_sleep_run(self, run: SleepRunRecord) -> None:
        for other in list(self.runs.values()):
            closed = closed_orphan(other, run)
            if closed is not None:
                self.runs[other.run_id] = closed
        self.runs[run.run_id] = run

    async def active_pattern_node_ids(self) -> list[str]:
        return sorted({i for ids, active in self.patterns.values() if active for i in ids})

    async def prune_expired(self, now: datetime, fading: FadingConfig) -> list[str]:
        return []  # nothing here carries an expiry the tests rely on

    async def decay_clock(self) -> ActivityTimeline:
        return ActivityTimeline()  # these graphs live in workflow time only: the clock never pauses

    async def apply_compaction(self, plan: CompactionPlan) -> CompactionOutcome:
        return CompactionOutcome(
            edges_deleted=0, nodes_merged=0, edges_rewritten=0, nodes_deleted=0
        )

    async def forget_topic(self, topic: TopicSelector, *, dry_run: bool) -> ForgetReport:
        gone = [self.nodes[i] for i in topic.node_ids if i in self.nodes]
        if not dry_run:
            for node in gone:
                del self.nodes[node.id]
                self.hypotheses.pop(node.id, None)
        memories = tuple(ForgottenMemory(id=n.id, type=n.type, content=n.content) for n in gone)
        return ForgetReport(dry_run=dry_run, memories=memories, edges=0)


@dataclass
class MemoryGraphs:
    graphs: dict[tuple[str, str], MemoryGraph] = field(default_factory=dict)

    def for_user(self, tenant_id: str, user_id: str) -> MemoryGraph:
        return self.graphs.setdefault((tenant_id, user_id), MemoryGraph(user_id))


def fact_memory(user: str, i: int, text: str, at: datetime) -> Node:
    """A fact memory `n{i}` said at `at`, for sleep tests that seed a graph."""
    return Node(
        id=f"n{i}",
        user_id=user,
        type=NodeType.FACT,
        content=text,
        weight_at=at,
        created_at=at,
        sources=(f"msg{i}",),
        belief=Belief(first_seen=at),
    )


@dataclass
class MemoryPayloadStages:
    """A sleep pass's stages, in memory (Neo4jPayloadStages's contract): `dropped` lists the runs
    whose stages were dropped, `written` every step written."""

    stages: dict[tuple[str, str, str], str] = field(default_factory=dict)
    written: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)

    async def put(self, scope: UserScope, run_id: str, step: str, payload: str) -> bool:
        self.stages[(scope.key, run_id, step)] = payload
        self.written.append(step)
        return True

    async def get(self, scope: UserScope, run_id: str, step: str) -> str | None:
        return self.stages.get((scope.key, run_id, step))

    async def drop_run(self, scope: UserScope, run_id: str) -> None:
        for key in [k for k in self.stages if k[:2] == (scope.key, run_id)]:
            del self.stages[key]
        self.dropped.append(run_id)


@dataclass
class ScriptedLLM:
    """Answers the pre-check with `worth_reasoning` and proposes `statements`, citing the first
    two memories it is shown; judges a memory it is shown by `stances` (memory text -> stance),
    leaving the others unanswered (the stance rule's verdict stands)."""

    worth_reasoning: bool = True
    statements: Sequence[str] = ()
    stances: dict[str, str] = field(default_factory=dict)
    # Raised instead of judging stances: the model server failing.
    stance_failure: Exception | None = None
    # Raised instead of proposing hypotheses: the model server down for the whole pass.
    failure: Exception | None = None
    calls: dict[str, int] = field(default_factory=dict)
    model_name: str = "scripted"

    async def complete_json(
        self,
        messages: Sequence[dict[str, str]],
        answer_type: type[AnswerT],
        *,
        max_tokens: int = 512,
    ) -> AnswerT:
        name = answer_type.__name__
        self.calls[name] = self.calls.get(name, 0) + 1
        if answer_type is PrecheckAnswer:
            return answer_type.model_validate(
                {"worth_reasoning": self.worth_reasoning, "summary": "Small talk only."}
            )
        if answer_type is StanceAnswer:
            if self.stance_failure is not None:
                raise self.stance_failure
            shown = messages[-1]["content"].split("Memories:\n", 1)[1].splitlines()
            judged = [
                {"memory": i, "stance": self.stances[line.split(". ", 1)[1]]}
                for i, line in enumerate(shown, 1)
                if line.split(". ", 1)[1] in self.stances
            ]
            return answer_type.model_validate({"stances": judged})
        assert answer_type is HypothesesAnswer
        if self.failure is not None:
            raise self.failure
        return answer_type.model_validate(
            {"hypotheses": [{"statement": s, "evidence": [1, 2]} for s in self.statements]}
        )

    async def unhealthy_reason(self) -> str | None:
        return None


# Batches loaded so far by any IngestionStub: ForgetStub notes it, so a test can tell whether a
# forget ran before or after an extraction.
LOADED_BATCHES: list[list[str]] = []


class IngestionStub:
    """Ingestion without a message log: every signalled id counts as already extracted. With
    `gate` set, loading a batch waits for it first (an extraction caught in the middle). With
    `extractor_batch` set, a load returns its messages and the extractor answers nothing but
    asks for batches of that size (`ExtractedBatch.batch_size`). The staged activities (the
    lifecycle's) and the by-value ones (recorded histories') answer alike."""

    def __init__(self) -> None:
        self.pending_calls = 0
        self.gate: asyncio.Event | None = None
        self.in_log: list[str] = []  # stored, not extracted: what a reconcile or a load finds
        self.user_gone = False  # the profile is gone: the reconcile's activity refuses
        self.extractor_batch: int | None = None
        self.tenant_pause = TenantPause(paused=False, reason="")  # what each reconcile reads
        self.tenant_reads = 0

    @activity.defn(name="tenants.sleep_pause")
    async def sleep_pause(self, data: TenantInput) -> TenantPause:
        self.tenant_reads += 1
        return self.tenant_pause

    @activity.defn(name="ingestion.pending_messages")
    async def pending_messages(self, data: PendingInput) -> list[str]:
        self.pending_calls += 1
        if self.user_gone:
            raise ApplicationError("no profile", type=USER_GONE, non_retryable=True)
        return list(self.in_log)

    @activity.defn(name="ingestion.load_batch")
    async def load_batch(self, data: LoadBatchInput) -> ExtractionBatch:
        if self.gate is not None:
            await self.gate.wait()
        LOADED_BATCHES.append(list(data.message_ids))
        now = activity.info().current_attempt_scheduled_time
        extracting = self.extractor_batch is not None
        return ExtractionBatch(
            tenant_id=data.tenant_id,
            user_id=data.user_id,
            messages=[
                Message(id=i, role=Role.USER, text="Hello there.", sent_at=now)
                for i in (data.message_ids if extracting else [])
            ],
            also_pending=[i for i in self.in_log if i not in data.message_ids],
            language="en",
            now=now,
        )

    @activity.defn(name="ingestion.stage_batch")
    async def stage_batch(self, data: LoadBatchInput) -> StagedBatch:
        batch = await self.load_batch(data)
        return StagedBatch(
            batch_id="-".join(data.message_ids),
            message_ids=[m.id for m in batch.messages],
            also_pending=batch.also_pending,
        )

    @activity.defn(name="ingestion.extract_staged")
    async def extract_staged(self, ref: StageRef) -> ExtractionSummary:
        assert self.extractor_batch is not None, "not reached: stage_batch stages no messages"
        return ExtractionSummary(
            mode=ExtractionMode.LLM, candidates=0, batch_size=self.extractor_batch
        )

    @activity.defn(name="ingestion.apply_staged")
    async def apply_staged(self, ref: StageRef) -> ApplyOutcome:
        assert self.extractor_batch is not None, "not reached: stage_batch stages no messages"
        return ApplyOutcome(
            mode=ExtractionMode.LLM, created=0, reinforced=0, edges=0, contradictions=0, rejected=0
        )

    @activity.defn(name="ingestion.extract")
    async def extract(self, data: ExtractInput) -> ExtractedBatch:
        assert self.extractor_batch is not None, "not reached: load_batch returns no messages"
        return ExtractedBatch(
            answer=Extraction(candidates=(), edges=()),
            embeddings={},
            embedding_model="stub",
            batch_size=self.extractor_batch,
        )

    @activity.defn(name="ingestion.apply_extraction")
    async def apply_extraction(self, data: ApplyInput) -> ApplyOutcome:
        assert self.extractor_batch is not None, "not reached: load_batch returns no messages"
        return ApplyOutcome(
            mode=data.extracted.mode, created=0, reinforced=0, edges=0, contradictions=0, rejected=0
        )

    @activity.defn(name="ingestion.mark_failed")
    async def mark_failed(self, data: MarkFailedInput) -> None:
        raise AssertionError("not reached")


@workflow.defn(name="TierMoveWorkflow", sandboxed=False)
class TierMoveStub:
    """Records the target and reports the move done."""

    @workflow.run
    async def run(self, data: TierMoveInput) -> TierMoveOutcome:
        return TierMoveOutcome(tier=data.target, moved=True, nodes=0, edges=0, bytes=0, detail="")


@workflow.defn(name="ForgetTopicWorkflow", sandboxed=False)
class ForgetStub:
    """Records each forget the lifecycle runs (by workflow id: a replayed task adds nothing)."""

    runs: ClassVar[dict[str, ForgetInput]] = {}
    loaded_before: ClassVar[dict[str, list[str]]] = {}  # topic -> message ids loaded by then

    @workflow.run
    async def run(self, data: ForgetInput) -> ForgetTopicReport:
        ForgetStub.runs[workflow.info().workflow_id] = data
        ForgetStub.loaded_before[str(data.topic)] = [i for b in LOADED_BATCHES for i in b]
        return ForgetTopicReport(dry_run=data.dry_run, memories=[], edges=0, places=[])


@dataclass
class TopicDropRecorder:
    """Stands in for `forget.drop_topic` (Neo4j's side is integration-tested): records which
    staged topics the lifecycle dropped, in order."""

    dropped: list[PayloadRef] = field(default_factory=list)

    @activity.defn(name="forget.drop_topic")
    async def drop_topic(self, topic: PayloadRef) -> None:
        self.dropped.append(topic)


@dataclass
class SoftResetRecorder:
    """Stands in for the archive-and-remove activity (its S3 and Neo4j side is integration-
    tested): records each call and reports three memories archived. With `gate` set, each call
    waits for it first (a reset caught in the middle)."""

    calls: list[ApplySoftResetInput] = field(default_factory=list)
    gate: asyncio.Event | None = None

    @activity.defn(name="compaction.apply_soft_reset")
    async def apply(self, data: ApplySoftResetInput) -> SoftResetApplied:
        self.calls.append(data)
        if self.gate is not None:
            await self.gate.wait()
        return SoftResetApplied(
            archive_key=f"users/{data.tenant_id}/{data.user_id}/archive/soft-reset-x.synx",
            archived_memories=3,
            archived_edges=1,
            kept_memories=2,
        )


class ReviewRecorder:
    """The session review activity without a graph: records the sessions it was asked for;
    with `failures` set, fails that many attempts first (Temporal retries them)."""

    def __init__(self) -> None:
        self.sessions: list[int] = []
        self.failures = 0

    @activity.defn(name="reviews.open_session_review")
    async def open_session_review(self, data: ReviewInput) -> ReviewOutput:
        if self.failures > 0:
            self.failures -= 1
            raise RuntimeError("neo4j is down")
        self.sessions.append(data.session)
        return ReviewOutput(review_id=f"review-{data.session}", created=True)


class ScheduleRecorder:
    """The summary schedule activity without Temporal's Schedules API: records the users it
    was asked for; with `failures` set, fails that many attempts first (Temporal retries them)."""

    def __init__(self) -> None:
        self.users: list[str] = []
        self.failures = 0

    @activity.defn(name="summary.ensure_schedule")
    async def ensure_schedule(self, data: ScheduleInput) -> bool:
        if self.failures > 0:
            self.failures -= 1
            raise RuntimeError("temporal frontend unavailable")
        self.users.append(data.user_id)
        return True


@dataclass
class Harness:
    graphs: MemoryGraphs
    llm: ScriptedLLM
    ingestion: IngestionStub
    task_queue: str
    gpu_queue: str
    resets: SoftResetRecorder = field(default_factory=SoftResetRecorder)
    reviews: ReviewRecorder = field(default_factory=ReviewRecorder)
    schedules: ScheduleRecorder = field(default_factory=ScheduleRecorder)
    payload_stages: MemoryPayloadStages = field(default_factory=MemoryPayloadStages)
    topics: TopicDropRecorder = field(default_factory=TopicDropRecorder)


def workers(
    client: Client,
    h: Harness,
    *,
    extra_workflows: Sequence[type] = (),
    slow: Any = None,
    lifecycle: type = UserLifecycleWorkflow,
    max_cached_workflows: int = 1000,  # 0: no sticky queue, every task replays the history
) -> tuple[Worker, Worker]:
    sleep = SleepActivities(h.graphs, stages=h.payload_stages)
    model = SleepModelActivities(h.llm, stages=h.payload_stages)
    compaction = CompactionActivities(h.graphs)
    cpu = Worker(
        client,
        task_queue=h.task_queue,
        workflows=[
            lifecycle,
            SleepPhaseWorkflow,
            CompactionWorkflow,
            TierMoveStub,
            SimulatedUser,
            *extra_workflows,
        ],
        activities=[
            h.ingestion.pending_messages,
            h.ingestion.sleep_pause,
            h.ingestion.stage_batch,
            h.ingestion.apply_staged,
            h.ingestion.load_batch,
            h.ingestion.mark_failed,
            h.ingestion.apply_extraction,
            sleep.begin,
            sleep.finish,
            slow or sleep.detect_patterns,
            sleep.infer_connections,
            sleep.hypothesis_context,
            sleep.store_hypotheses,
            sleep.recalibrate,
            sleep.schedule_triggers,
            sleep.prepare_open_loops,
            sleep.check_hypotheses,
            sleep.stance_candidates,
            compaction.compact,
            compaction.plan_soft_reset,
            h.resets.apply,
            h.reviews.open_session_review,
            h.schedules.ensure_schedule,
            h.topics.drop_topic,
        ],
        max_cached_workflows=max_cached_workflows,
    )
    gpu = Worker(
        client,
        task_queue=h.gpu_queue,
        activities=[
            model.precheck,
            model.propose_hypotheses,
            model.judge_stances,
            h.ingestion.extract_staged,
            h.ingestion.extract,
        ],
        max_concurrent_activities=4,
    )
    return cpu, gpu


async def until(predicate: Any, timeout: timedelta | None = None) -> None:
    """Poll (in real time) until `predicate()` (an async callable) is true, for at most the
    suite's readiness deadline (tests/deadlines.py) unless told otherwise: a CI box under load
    once took over 20 s, the old default, for a continue-as-new to go idle."""
    timeout = timeout or timedelta(seconds=READY_S)
    deadline = asyncio.get_running_loop().time() + timeout.total_seconds()
    while not await predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.05)


class SimulatedUserInput(BaseModel):
    lifecycle_id: str
    # (seconds after the simulation starts, messages sent then), ascending
    messages: list[tuple[int, int]]
    days: int


@workflow.defn(name="SimulatedUser", sandboxed=False)
class SimulatedUser:
    """Sends a user's messages to a lifecycle workflow on simulated time; returns its start."""

    @workflow.run
    async def run(self, data: SimulatedUserInput) -> datetime:
        # Start at the next noon UTC: the schedule has wall-clock passes (03:00), so the
        # expected counts must not depend on the hour the test runs at (they did, 22:30-03:00).
        now = workflow.now()
        start = now.replace(hour=12, minute=0, second=0, microsecond=0)
        if start <= now:
            start += timedelta(days=1)
        await workflow.sleep(start - now)
        handle = workflow.get_external_workflow_handle(data.lifecycle_id)
        sent = 0
        for offset, count in data.messages:
            due = start + timedelta(seconds=offset)
            if due > workflow.now():
                await workflow.sleep(due - workflow.now())
            ids = [f"m{sent + i}" for i in range(count)]
            sent += count
            await handle.signal(
                "messages_received", MessagesReceived(message_ids=ids, last_sent_at=due)
            )
        await workflow.sleep(start + timedelta(days=data.days) - workflow.now())
        return start


async def start_lifecycle(
    client: Client, h: Harness, user: str
) -> WorkflowHandle[UserLifecycleWorkflow, None]:
    """A lifecycle for tenant t1's `user` on the harness's queues (no search attributes: the
    test server has none registered)."""
    state = LifecycleState(
        tenant_id="t1",
        user_id=user,
        queues=TaskQueues(cpu=h.task_queue, gpu=h.gpu_queue),
        publish_search_attributes=False,
    )
    return await client.start_workflow(
        UserLifecycleWorkflow.run,
        LifecycleInput(state=state),
        id=f"user-t1-{user}-{h.task_queue}",
        task_queue=h.task_queue,
    )


async def start_full_sleep(
    client: Client, h: Harness, user: str, n: int, *, model_stance: bool = False
) -> WorkflowHandle[SleepPhaseWorkflow, SleepOutcome]:
    """Start the user's n-th full pass (pre-check skipped) on the harness's queues."""
    return await client.start_workflow(
        SleepPhaseWorkflow.run,
        SleepInput(
            tenant_id="t1",
            user_id=user,
            run_id=f"sleep-{user}-{n}",
            depth=Depth.FULL,
            gpu_task_queue=h.gpu_queue,
            skip_precheck=True,
            model_stance=model_stance,
        ),
        id=f"sleep-{user}-{n}-{h.task_queue}",
        task_queue=h.task_queue,
        # Waiting on the result unlocks time skipping, and the test server sometimes jumps to
        # the run's timeout timer just as the run completes: without a timeout that is the
        # 10-year default, and the next pass would find every hypothesis long expired.
        run_timeout=timedelta(minutes=10),
    )
