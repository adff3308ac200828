"""UserLifecycleWorkflow: one durable entity workflow per user, id `user-{tenant}-{user_id}`.

Ingestion: the API stores raw messages durably, then signals (signal-with-start) their ids here;
the workflow extracts them in small batches: load (cpu queue) -> extract with the LLM and embed
(gpu queue) -> apply to the graph (cpu queue).

Lifecycle (DESIGN §5): the state keeps tier, plan, activity log, decay clock and session counter;
the next sleep comes from the domain policy (`sleep_policy.next_sleep_at`); the loop waits on a
timer that new messages move, runs `SleepPhaseWorkflow` as a child and cancels it when the user
writes, runs the weekly `CompactionWorkflow` after a 03:00 deep pass, hands tier moves to
`TierMoveWorkflow` (hot -> warm after 7 idle days, warm -> cold after 30, back to hot before
extraction or on `context_requested`), re-reads the message log for unsignalled messages at
start and once a day while idle, and continues-as-new when suggested.

Operators see tier, plan, next sleep and the last sleep's status as search attributes, and a
one-line summary in the memo.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Literal

from pydantic import BaseModel, Field
from temporalio import workflow
from temporalio.common import (
    RetryPolicy,
    SearchAttributeKey,
)
from temporalio.exceptions import ActivityError, ApplicationError, ChildWorkflowError

with workflow.unsafe.imports_passed_through():
    from activities.forget import ForgetInput, TopicForgotten
    from activities.ingestion import (
        USER_GONE,
        ApplyInput,
        ExtractInput,
        ExtractionActivities,
        IngestionActivities,
        LoadBatchInput,
        MarkFailedInput,
        PendingInput,
    )
    from activities.sleep import FinishInput, SleepActivities, SleepScope
    from selfimprint.domain.lifecycle_timings import LifecycleTimings
    from selfimprint.domain.sleep_policy import (
        ActivityLog,
        Depth,
        ScheduleState,
        SleepKind,
        next_sleep_at,
    )
    from selfimprint.domain.sleep_writes import SleepStatus
    from selfimprint.domain.users import Tier, UserProfile
    from workflows.compaction import CompactionInput, CompactionResult, CompactionWorkflow
    from workflows.forget import ForgetTopicWorkflow
    from workflows.ids import lifecycle_workflow_id
    from workflows.sleep_phase import SleepInput, SleepOutcome, SleepPhaseWorkflow
    from workflows.tiers import TierMoveInput, TierMoveWorkflow, tier_workflow_id

workflow_id = lifecycle_workflow_id


# Registered on the local dev server by selfimprint/devstack/services.py (SEARCH_ATTRIBUTES).
TIER_KEY = SearchAttributeKey.for_keyword("SelfImprintTier")
PLAN_KEY = SearchAttributeKey.for_keyword("SelfImprintPlan")
NEXT_SLEEP_KEY = SearchAttributeKey.for_datetime("SelfImprintNextSleepAt")
LAST_SLEEP_KEY = SearchAttributeKey.for_keyword("SelfImprintLastSleepStatus")


class TaskQueues(BaseModel):
    cpu: str
    gpu: str


class IngestionStats(BaseModel):
    messages_received: int = 0
    messages_extracted: int = 0
    messages_failed: int = 0
    memories_created: int = 0
    memories_reinforced: int = 0
    # Candidates the grounding guard dropped: the extractor said what the user did not.
    memories_ungrounded: int = 0
    last_message_at: datetime | None = None


class SleepCounts(BaseModel):
    full: int = 0
    light: int = 0
    skipped: int = 0
    cancelled: int = 0
    failed: int = 0
    llm_calls: int = 0
    compactions: int = 0


class NextSleepView(BaseModel):
    """The policy's answer, as shown by the `state` query: when, what, and why."""

    at: datetime | None
    depth: Depth | None
    kind: SleepKind | None
    level: str
    reason: str


class LastSleep(BaseModel):
    run_id: str
    status: SleepStatus
    depth: Depth
    summary: str
    started_at: datetime
    finished_at: datetime


class ForgetReplay(BaseModel):
    """A forget to run again, once the messages queued when it finished are extracted: they
    were sent before it and may mention the topic."""

    forget: ForgetInput
    after_messages: list[str] = Field(default_factory=list)


# A cancelled sleep's activity may still be finishing a write after the child has closed, so an
# operation counts as overlapping a forget that began up to this long after it ended (the sleep
# activities' heartbeat timeout is 30 s).
FORGET_OVERLAP_GRACE = timedelta(minutes=2)


class LifecycleState(BaseModel):
    """Everything the workflow knows; carried whole across continue-as-new."""

    tenant_id: str
    user_id: str
    queues: TaskQueues
    profile: UserProfile = Field(default_factory=UserProfile)
    pending_message_ids: list[str] = Field(default_factory=list)
    ingestion: IngestionStats = Field(default_factory=IngestionStats)
    reconciled: bool = False
    # --- lifecycle ---
    tier: Tier = Tier.HOT
    paused: bool = False
    activity: ActivityLog = Field(default_factory=ActivityLog)  # sleep policy: messages per day
    # The decay clock lives with the graph (the user's profile in Neo4j), where the read path
    # needs it: activities.ingestion records each batch's sent_at times.
    tracking_since: datetime | None = None
    last_active_at: datetime | None = None  # last message or context request: the tier clock
    session_count: int = 0
    messages_since_sleep: int = 0
    last_sleep_at: datetime | None = None
    next_sleep: NextSleepView | None = None
    last_sleep: LastSleep | None = None
    sleeps: SleepCounts = Field(default_factory=SleepCounts)
    sleep_seq: int = 0
    sleep_requested: Depth | None = None
    rehydrate_requested: bool = False
    last_compaction_at: datetime | None = None
    last_entropy: float | None = None
    # Spec §3.9 soft reset: an operator's request, or entropy plus the user's feedback that the
    # assistant no longer understands them (counted since the last compaction).
    soft_reset_requested: bool = False
    feedback_signals: int = 0
    feedback_ids: list[str] = Field(default_factory=list)  # the latest, for idempotency
    last_soft_reset: str | None = None  # one line: when, what was archived, where
    last_soft_reset_failed: bool = False
    last_reconcile_at: datetime | None = None
    # Forgets to run again: each overlapped a graph operation (`topic_forgotten`).
    forget_replays: list[ForgetReplay] = Field(default_factory=list)
    last_operation_ended_at: datetime | None = None
    last_forget_replay_failed: str | None = None
    # Off only where the server has not registered the SelfImprint* attributes.
    publish_search_attributes: bool = True
    # Session gap, tier moves, compaction, reconcile: from Settings, refreshed by each signal.
    timings: LifecycleTimings = Field(default_factory=LifecycleTimings)


class LifecycleInput(BaseModel):
    state: LifecycleState
    # Tests: continue-as-new after this many loop iterations instead of waiting for the server.
    continue_as_new_after: int | None = Field(None, ge=1)


class MessagesReceived(BaseModel):
    message_ids: list[str] = Field(min_length=1, max_length=1000)
    last_sent_at: datetime
    timings: LifecycleTimings | None = None  # the API's current configuration
    # False: messages stored a while ago that the workflow may not have been told about (the
    # API re-tells them before a forget): queue them, but they are not new user activity.
    activity: bool = True


class ProfileChanged(BaseModel):
    profile: UserProfile
    timings: LifecycleTimings | None = None


class ContextRequested(BaseModel):
    """The API asked for this user's context; a graph outside Neo4j must come back."""

    requested_at: datetime | None = None


class FeedbackReceived(BaseModel):
    """The user told the assistant it no longer understands them (spec §3.9: one of the two
    conditions of a soft reset). `id` makes a client's retry count once."""

    id: str = Field(min_length=1, max_length=128)
    kind: Literal["not_understood"] = "not_understood"


class SoftResetRequest(BaseModel):
    reason: str = Field(min_length=1, max_length=200)


class SoftResetAck(BaseModel):
    accepted: bool
    message: str


class SleepRequest(BaseModel):
    depth: Depth = Depth.FULL
    reason: str = Field("", max_length=200)


class SleepRequestAck(BaseModel):
    """The request is queued; the pass runs as soon as no message is pending. Watch
    `state.last_sleep` (or the child workflow `sleep-...`) for its outcome."""

    accepted: bool
    depth: Depth
    message: str


class PauseRequest(BaseModel):
    paused: bool
    reason: str = Field("", max_length=200)


class PauseResult(BaseModel):
    paused: bool
    changed: bool


# Batches stay small: the local 135M model has a 2k-token context, and a failed batch is retried
# whole. The extraction budget in characters is enforced again by the load activity.
EXTRACTION_BATCH = 4
MAX_FEEDBACK_IDS = 100  # remembered per week; more feedback than this changes nothing anyway
CPU_TIMEOUT = timedelta(seconds=60)
LLM_TIMEOUT = timedelta(seconds=180)
# Extraction waits out an LLM outage: retries back off to one attempt a minute, for as long as
# it takes. An unusable answer is not an error: the activity keeps the user's own words instead.
LLM_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=2),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(seconds=60),
    non_retryable_error_types=["BadBatchError"],
)
CPU_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    maximum_interval=timedelta(seconds=30),
    non_retryable_error_types=["BadBatchError"],
)


@workflow.defn
class UserLifecycleWorkflow:
    @workflow.init
    def __init__(self, data: LifecycleInput) -> None:
        self._state = data.state
        self._continue_after = data.continue_as_new_after
        self._woken = False  # a handler changed something the loop must re-plan for
        self._sleeping = False
        self._operation: str | None = None  # the graph operation running now, if any
        self._published: tuple[object, ...] | None = None

    # --- signals -----------------------------------------------------------------------------

    @workflow.signal
    def messages_received(self, signal: MessagesReceived) -> None:
        state = self._state
        self._queue(signal.message_ids)
        # Patched: a worker of the previous release counts every message as activity, and a
        # history it wrote must replay the same on this one (rolling deploys).
        if not signal.activity and workflow.patched("lifecycle-retold-quietly"):
            return
        stats = state.ingestion
        stats.messages_received += len(signal.message_ids)
        if stats.last_message_at is None or signal.last_sent_at > stats.last_message_at:
            stats.last_message_at = signal.last_sent_at
        if signal.timings is not None:
            state.timings = signal.timings
        # Activity is timed by the workflow clock: deterministic, and immune to client clocks.
        now = workflow.now()
        if state.last_active_at is None or now - state.last_active_at >= state.timings.session_gap:
            state.session_count += 1
        state.tracking_since = state.tracking_since or now
        state.last_active_at = now
        state.activity = state.activity.record(now, len(signal.message_ids))
        state.messages_since_sleep += len(signal.message_ids)

    @workflow.signal
    def profile_changed(self, signal: ProfileChanged) -> None:
        self._state.profile = signal.profile
        if signal.timings is not None:
            self._state.timings = signal.timings
        self._woken = True

    @workflow.signal
    def context_requested(self, signal: ContextRequested) -> None:
        self._state.last_active_at = workflow.now()
        if self._state.tier is not Tier.HOT:
            self._state.rehydrate_requested = True
        self._woken = True

    @workflow.signal
    def topic_forgotten(self, signal: TopicForgotten) -> None:
        """A forget finished. An operation that overlapped it (running now, or ended after the
        forget began) may have copied what it removed: a tier move's or soft reset's export
        taken before, uploaded after; a sleep or an extraction writing about the topic. Such a
        forget runs again once the loop is free; forgetting is idempotent, so a replay that
        finds nothing costs one pass."""
        # Old histories never saw this signal handled (a worker without this handler buffered
        # it): replaying them must not start a child they do not have.
        if not workflow.patched("lifecycle-forget-replay"):
            return
        state = self._state
        ended = state.last_operation_ended_at
        overlapped = (
            self._operation is not None
            or bool(state.pending_message_ids)
            or (ended is not None and ended + FORGET_OVERLAP_GRACE >= signal.started_at)
        )
        if overlapped and all(r.forget != signal.forget for r in state.forget_replays):
            queued = list(state.pending_message_ids)
            replay = ForgetReplay(forget=signal.forget, after_messages=queued)
            state.forget_replays.append(replay)
            self._woken = True

    @workflow.signal
    def feedback_received(self, signal: FeedbackReceived) -> None:
        state = self._state
        if signal.id in state.feedback_ids:
            return
        state.feedback_ids = [*state.feedback_ids, signal.id][-MAX_FEEDBACK_IDS:]
        state.feedback_signals += 1
        workflow.logger.info("user feedback", extra={"kind": signal.kind})

    # --- updates -----------------------------------------------------------------------------

    @workflow.update
    def request_soft_reset(self, request: SoftResetRequest) -> SoftResetAck:
        self._state.soft_reset_requested = True
        self._woken = True
        workflow.logger.warning("soft reset requested", extra={"reason": request.reason})
        return SoftResetAck(
            accepted=True,
            message="queued: runs after pending messages, as a compaction with a soft reset; "
            "watch state.last_soft_reset",
        )

    @request_soft_reset.validator
    def _validate_soft_reset(self, request: SoftResetRequest) -> None:
        if self._state.soft_reset_requested:
            raise ValueError("a soft reset is already queued")

    @workflow.update
    def request_sleep(self, request: SleepRequest) -> SleepRequestAck:
        self._state.sleep_requested = request.depth
        self._woken = True
        workflow.logger.info("sleep requested", extra={"depth": request.depth.value})
        return SleepRequestAck(
            accepted=True,
            depth=request.depth,
            message="queued: runs once pending messages are extracted",
        )

    @request_sleep.validator
    def _validate_sleep_request(self, request: SleepRequest) -> None:
        if self._state.paused:
            raise ValueError("the lifecycle is paused: resume it first (set_paused)")
        if self._sleeping or self._state.sleep_requested is not None:
            raise ValueError("a sleep is already running or queued")

    @workflow.update
    def set_paused(self, request: PauseRequest) -> PauseResult:
        changed = self._state.paused != request.paused
        self._state.paused = request.paused
        self._woken = True
        workflow.logger.info(
            "lifecycle paused" if request.paused else "lifecycle resumed",
            extra={"reason": request.reason},
        )
        return PauseResult(paused=request.paused, changed=changed)

    @set_paused.validator
    def _validate_pause(self, request: PauseRequest) -> None:
        if request.paused and self._state.sleep_requested is not None:
            raise ValueError("a sleep is queued: wait for it before pausing")

    @workflow.query
    def state(self) -> LifecycleState:
        return self._state

    # --- the loop ----------------------------------------------------------------------------

    @workflow.run
    async def run(self, data: LifecycleInput) -> None:
        state = self._state
        self._plan(workflow.now())
        self._publish()
        if not state.reconciled and not await self._reconcile():
            return
        loops = 0
        while True:
            if self._should_continue_as_new(loops):
                await workflow.wait_condition(workflow.all_handlers_finished)
                workflow.continue_as_new(
                    LifecycleInput(state=state, continue_as_new_after=self._continue_after)
                )
            loops += 1
            self._woken = False
            replay = self._forget_due()
            if replay is not None:
                state.forget_replays.remove(replay)
                await self._replay_forget(replay.forget)
                continue
            if state.tier is not Tier.HOT and (
                state.pending_message_ids
                or state.rehydrate_requested
                or state.sleep_requested is not None
                or state.soft_reset_requested
            ):
                with self._operating("tier move"):
                    await self._move_tier(Tier.HOT)  # before extraction: the graph must be in Neo4j
                continue
            if state.pending_message_ids:
                batch = state.pending_message_ids[:EXTRACTION_BATCH]
                with self._operating("extraction"):
                    await self._ingest(batch)
                del state.pending_message_ids[: len(batch)]
                continue
            now = workflow.now()
            if state.soft_reset_requested:
                with self._operating("soft reset"):
                    await self._compact(now, soft_reset=True)
                state.soft_reset_requested = False
                continue
            if state.sleep_requested is not None:
                depth, state.sleep_requested = state.sleep_requested, None
                with self._operating("sleep"):
                    await self._sleep(depth, None, explicit=True)
                continue
            planned = self._plan(now)
            tier_at, tier_target = self._tier_due()
            reconcile_at = (state.last_reconcile_at or now) + state.timings.reconcile_every
            if not state.paused and planned is not None and planned <= now:
                view = state.next_sleep
                assert view is not None and view.depth is not None
                with self._operating("sleep"):
                    await self._sleep(view.depth, view.kind, explicit=False)
                continue
            if not state.paused and tier_at is not None and tier_at <= now:
                assert tier_target is not None
                with self._operating("tier move"):
                    await self._move_tier(tier_target)
                continue
            if reconcile_at <= now:
                if not await self._reconcile():
                    return
                continue
            self._publish()
            deadlines = [reconcile_at]
            if not state.paused:
                deadlines += [t for t in (planned, tier_at) if t is not None]
            timeout = max(min(deadlines) - now, timedelta(seconds=1))
            try:
                await workflow.wait_condition(
                    lambda: (
                        self._woken
                        or bool(state.pending_message_ids)
                        or workflow.info().is_continue_as_new_suggested()
                    ),
                    timeout=timeout,
                    timeout_summary="next sleep, tier move or reconcile",
                )
            except TimeoutError:
                pass

    @contextmanager
    def _operating(self, name: str) -> Iterator[None]:
        """Marks a graph operation as running, for `topic_forgotten`'s overlap check."""
        self._operation = name
        try:
            yield
        finally:
            self._operation = None
            self._state.last_operation_ended_at = workflow.now()

    def _forget_due(self) -> ForgetReplay | None:
        """The first queued forget whose messages are all extracted."""
        pending = set(self._state.pending_message_ids)
        return next(
            (r for r in self._state.forget_replays if pending.isdisjoint(r.after_messages)), None
        )

    async def _replay_forget(self, forget: ForgetInput) -> None:
        """Run a forget again, alone: nothing else touches the graph while the loop waits."""
        state = self._state
        now = workflow.now()
        try:
            await workflow.execute_child_workflow(
                ForgetTopicWorkflow.run,
                forget,
                id=f"forget-replay-{state.tenant_id}-{state.user_id}-{now:%Y%m%dT%H%M%S%f}",
                task_queue=state.queues.cpu,
            )
        except ChildWorkflowError as err:
            # Its activities retry transient errors without limit, so this is permanent (bad
            # input, an archive that cannot be read): retrying here would block the user's
            # lifecycle for nothing. Operators see it in the state.
            workflow.logger.warning("forget replay failed", extra={"error": str(err.cause)})
            state.last_forget_replay_failed = f"{now:%Y-%m-%d %H:%M}: {err.cause}"[:300]

    def _should_continue_as_new(self, loops: int) -> bool:
        if self._sleeping or self._state.pending_message_ids:
            return False
        if self._continue_after is not None and loops >= self._continue_after:
            return True
        return workflow.info().is_continue_as_new_suggested()

    # --- planning and visibility -----------------------------------------------------------------

    def _plan(self, now: datetime) -> datetime | None:
        """Recompute the next sleep (kept in state for the query) and return when it is due."""
        state = self._state
        if state.tracking_since is None:
            state.next_sleep = NextSleepView(
                at=None, depth=None, kind=None, level="inactive", reason="off: no message yet"
            )
            return None
        planned = next_sleep_at(
            ScheduleState(
                plan=state.profile.plan,
                activity=state.activity,
                last_sleep_at=state.last_sleep_at,
                tracking_since=state.tracking_since,
            ),
            now,
            state.profile.zone,
        )
        reason = planned.reason + ("; paused by an operator" if state.paused else "")
        state.next_sleep = NextSleepView(
            at=planned.at,
            depth=planned.depth,
            kind=planned.kind,
            level=planned.level.value,
            reason=reason,
        )
        return planned.at

    def _tier_due(self) -> tuple[datetime | None, Tier | None]:
        last = self._state.last_active_at
        if last is None:
            return None, None
        if self._state.tier is Tier.HOT:
            return last + self._state.timings.warm_after, Tier.WARM
        if self._state.tier is Tier.WARM:
            return last + self._state.timings.cold_after, Tier.COLD
        return None, None

    def _summary(self) -> str:
        s = self._state
        nxt = s.next_sleep
        when = f"{nxt.at:%Y-%m-%d %H:%M}Z" if nxt is not None and nxt.at is not None else "off"
        last = s.last_sleep.status.value if s.last_sleep is not None else "none"
        return (
            f"{s.profile.plan.value}/{s.tier.value}"
            f"{' PAUSED' if s.paused else ''}: next sleep {when}, last {last}; "
            f"{s.ingestion.messages_received} msgs, {s.session_count} sessions, "
            f"sleeps {s.sleeps.full} full/{s.sleeps.light} light/{s.sleeps.skipped} skipped"
        )

    def _publish(self) -> None:
        """Upsert search attributes and memo when they changed (history stays small)."""
        state = self._state
        nxt = state.next_sleep.at if state.next_sleep is not None else None
        last = state.last_sleep.status.value if state.last_sleep is not None else "none"
        summary = self._summary()
        current = (state.tier, state.profile.plan, nxt, last, summary)
        if current == self._published:
            return
        self._published = current
        if state.publish_search_attributes:
            workflow.upsert_search_attributes(
                [
                    TIER_KEY.value_set(state.tier.value),
                    PLAN_KEY.value_set(state.profile.plan.value),
                    NEXT_SLEEP_KEY.value_set(nxt)
                    if nxt is not None
                    else NEXT_SLEEP_KEY.value_unset(),
                    LAST_SLEEP_KEY.value_set(last),
                ]
            )
        workflow.upsert_memo({"summary": summary})

    # --- sleep ---------------------------------------------------------------------------------

    async def _sleep(self, depth: Depth, kind: SleepKind | None, *, explicit: bool) -> None:
        state = self._state
        started = workflow.now()
        state.sleep_seq += 1
        # The start time keeps ids unique across a reset of this workflow (fresh state).
        run_id = (
            f"sleep-{state.tenant_id}-{state.user_id}-{started:%Y%m%dT%H%M%S}-{state.sleep_seq}"
        )
        self._sleeping = True
        try:
            outcome = await self._run_sleep(run_id, depth, explicit, started)
        finally:
            self._sleeping = False
        finished = workflow.now()
        # Replay-safe (not recorded again when history replays); served on the worker's SDK
        # metrics port as selfimprint_sleep_runs_total / selfimprint_sleep_duration_seconds.
        meter = workflow.metric_meter()
        meter.create_counter("selfimprint_sleep_runs", "Sleep runs by depth and outcome").add(
            1, {"depth": depth.value, "outcome": outcome.status.value}
        )
        meter.create_histogram_timedelta(
            "selfimprint_sleep_duration", "Wall time of a sleep run, start to outcome"
        ).record(finished - started, {"depth": depth.value})
        counts = state.sleeps
        counts.llm_calls += outcome.llm_calls
        if outcome.status is SleepStatus.CANCELLED:
            counts.cancelled += 1  # not a sleep for the schedule: it runs after the next silence
        else:
            # A failed pass counts too: retrying at once would loop; operators retry by hand.
            state.last_sleep_at = started
            if outcome.status is SleepStatus.FAILED:
                counts.failed += 1
            else:
                state.messages_since_sleep = 0
                if outcome.status is SleepStatus.SKIPPED:
                    counts.skipped += 1
                elif depth is Depth.FULL:
                    counts.full += 1
                else:
                    counts.light += 1
        state.last_sleep = LastSleep(
            run_id=run_id,
            status=outcome.status,
            depth=depth,
            summary=outcome.summary,
            started_at=started,
            finished_at=finished,
        )
        workflow.logger.info(
            "sleep outcome",
            extra={"run_id": run_id, "status": outcome.status.value, "depth": depth.value},
        )
        if (
            kind is SleepKind.DEEP
            and outcome.status in (SleepStatus.COMPLETED, SleepStatus.SKIPPED)
            and (
                state.last_compaction_at is None
                or started - state.last_compaction_at >= state.timings.compaction_every
            )
        ):
            await self._compact(started)
        self._plan(workflow.now())
        self._publish()

    async def _run_sleep(
        self, run_id: str, depth: Depth, explicit: bool, started: datetime
    ) -> SleepOutcome:
        state = self._state

        def ended(status: SleepStatus, summary: str) -> SleepOutcome:
            return SleepOutcome(run_id=run_id, depth=depth, status=status, summary=summary[:500])

        if state.tier is not Tier.HOT:
            return ended(SleepStatus.SKIPPED, f"Sleep skipped: the graph is {state.tier.value}.")
        handle = await workflow.start_child_workflow(
            SleepPhaseWorkflow.run,
            SleepInput(
                tenant_id=state.tenant_id,
                user_id=state.user_id,
                run_id=run_id,
                depth=depth,
                gpu_task_queue=state.queues.gpu,
                time_zone=state.profile.time_zone,
                since=state.last_sleep_at,
                new_messages=state.messages_since_sleep,
                skip_precheck=explicit,
            ),
            id=run_id,
            task_queue=state.queues.cpu,
            static_summary=f"{depth.value} sleep",
        )
        # A sleep never interrupts an active session (spec §3.5): the user's next message
        # cancels it.
        await workflow.wait_condition(lambda: handle.done() or bool(state.pending_message_ids))
        interrupted = not handle.done()
        if interrupted:
            handle.cancel()
        try:
            return await handle
        except (ChildWorkflowError, asyncio.CancelledError) as err:
            if interrupted:
                cancelled = ended(
                    SleepStatus.CANCELLED, "Sleep cancelled: the user started writing."
                )
                await workflow.execute_activity_method(
                    SleepActivities.finish,
                    FinishInput(
                        scope=SleepScope(
                            tenant_id=state.tenant_id,
                            user_id=state.user_id,
                            run_id=run_id,
                            now=workflow.now(),
                            time_zone=state.profile.time_zone,
                        ),
                        depth=depth.value,
                        status=SleepStatus.CANCELLED,
                        summary=cancelled.summary,
                        started_at=started,
                    ),
                    start_to_close_timeout=CPU_TIMEOUT,
                    retry_policy=CPU_RETRY,
                )
                return cancelled
            cause = err.cause if isinstance(err, ChildWorkflowError) else err
            workflow.logger.warning("sleep failed", extra={"run_id": run_id, "error": str(cause)})
            return ended(SleepStatus.FAILED, f"Sleep failed: {cause}")

    async def _compact(self, now: datetime, *, soft_reset: bool = False) -> None:
        state = self._state
        kind = "soft-reset" if soft_reset else "compaction"
        try:
            result: CompactionResult = await workflow.execute_child_workflow(
                CompactionWorkflow.run,
                CompactionInput(
                    tenant_id=state.tenant_id,
                    user_id=state.user_id,
                    soft_reset_requested=soft_reset,
                    feedback_signals=state.feedback_signals,
                ),
                id=f"{kind}-{state.tenant_id}-{state.user_id}-{now:%Y%m%dT%H%M%S}",
                task_queue=state.queues.cpu,
            )
        except ChildWorkflowError as err:
            workflow.logger.warning("compaction failed", extra={"error": str(err.cause)})
            if soft_reset:
                state.last_soft_reset = f"{now:%Y-%m-%d %H:%M} failed: {err.cause}"[:300]
                state.last_soft_reset_failed = True
            return
        state.last_compaction_at = now
        state.last_entropy = result.compaction.entropy.score
        state.sleeps.compactions += 1
        # Feedback counts toward the next weekly decision only; its ids stay (bounded), so a
        # client's retry that crosses a compaction is still recognised.
        state.feedback_signals = 0
        applied = result.soft_reset_applied
        if soft_reset:
            state.last_soft_reset_failed = False
        if applied is not None:
            where = f", in {applied.archive_key}" if applied.archive_key else ""
            state.last_soft_reset = (
                f"{now:%Y-%m-%d %H:%M}: archived {applied.archived_memories} memories, "
                f"kept {applied.kept_memories}{where}"
            )

    # --- tiers ---------------------------------------------------------------------------------

    async def _move_tier(self, target: Tier) -> None:
        state = self._state
        try:
            outcome = await workflow.execute_child_workflow(
                TierMoveWorkflow.run,
                TierMoveInput(tenant_id=state.tenant_id, user_id=state.user_id, target=target),
                id=tier_workflow_id(state.tenant_id, state.user_id),
                task_queue=state.queues.cpu,
            )
        except ChildWorkflowError as err:
            # Retried on the next wake-up; ingestion waits for the graph to be back.
            workflow.logger.warning(
                "tier move failed", extra={"target": target.value, "error": str(err.cause)}
            )
            await workflow.sleep(timedelta(minutes=1))
            return
        state.tier = outcome.tier
        if outcome.tier is Tier.HOT:
            state.rehydrate_requested = False
        self._publish()

    # --- ingestion -----------------------------------------------------------------------------

    async def _reconcile(self) -> bool:
        """Pick up messages stored but never signalled (the API's nudge was lost). False when
        the user is gone (erased, or being erased): then the workflow ends, so that a late
        signal-with-start cannot leave a lifecycle running for nobody."""
        try:
            pending = await workflow.execute_activity_method(
                IngestionActivities.pending_messages,
                PendingInput(tenant_id=self._state.tenant_id, user_id=self._state.user_id),
                start_to_close_timeout=CPU_TIMEOUT,
                retry_policy=CPU_RETRY,
            )
        except ActivityError as err:
            if isinstance(err.cause, ApplicationError) and err.cause.type == USER_GONE:
                workflow.logger.warning("the user is gone: the lifecycle ends")
                return False
            raise
        self._queue(pending)
        self._state.reconciled = True
        self._state.last_reconcile_at = workflow.now()
        return True

    def _queue(self, message_ids: list[str]) -> None:
        queued = set(self._state.pending_message_ids)
        for message_id in message_ids:
            if message_id not in queued:
                self._state.pending_message_ids.append(message_id)
                queued.add(message_id)

    async def _ingest(self, message_ids: list[str]) -> None:
        tenant_id, user_id = self._state.tenant_id, self._state.user_id
        batch = await workflow.execute_activity_method(
            IngestionActivities.load_batch,
            LoadBatchInput(
                tenant_id=tenant_id, user_id=user_id, message_ids=message_ids, now=workflow.now()
            ),
            start_to_close_timeout=CPU_TIMEOUT,
            retry_policy=CPU_RETRY,
        )
        # The load looks at the whole log: messages whose nudge from the API was lost (it died
        # after answering) join the queue with the user's next message, not the next reconcile.
        if batch.also_pending and workflow.patched("lifecycle-also-pending"):
            self._queue(batch.also_pending)  # patched: the previous release ignores them
        # Only this batch travels on: the ids are not written to history twice more.
        batch = batch.model_copy(update={"also_pending": []})
        if not batch.messages:
            return  # all already extracted (a replayed signal)
        try:
            extracted = await workflow.execute_activity_method(
                ExtractionActivities.extract,
                ExtractInput(batch=batch),
                task_queue=self._state.queues.gpu,
                start_to_close_timeout=LLM_TIMEOUT,
                retry_policy=LLM_RETRY,
            )
        except ActivityError as err:
            if not isinstance(err.cause, ApplicationError) or not err.cause.non_retryable:
                raise
            workflow.logger.warning("extraction failed for good: %s", err.cause.message)
            await workflow.execute_activity_method(
                IngestionActivities.mark_failed,
                MarkFailedInput(
                    tenant_id=tenant_id,
                    user_id=user_id,
                    message_ids=[m.id for m in batch.messages],
                    reason=err.cause.message,
                ),
                start_to_close_timeout=CPU_TIMEOUT,
                retry_policy=CPU_RETRY,
            )
            self._state.ingestion.messages_failed += len(batch.messages)
            return
        outcome = await workflow.execute_activity_method(
            IngestionActivities.apply_extraction,
            ApplyInput(batch=batch, extracted=extracted),
            start_to_close_timeout=CPU_TIMEOUT,
            retry_policy=CPU_RETRY,
        )
        stats = self._state.ingestion
        stats.messages_extracted += len(batch.messages)
        stats.memories_created += outcome.created
        stats.memories_ungrounded += outcome.ungrounded
        stats.memories_reinforced += outcome.reinforced
