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

from temporalio import workflow
from temporalio.common import (
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
    from selfimprint.domain.lifecycle import (
        Extract,
        MoveTier,
        PlannedSleep,
        Reconcile,
        ReplayForget,
        Situation,
        Sleep,
        SoftReset,
        Step,
        Wait,
        compaction_due,
        forget_overlapped,
        next_step,
        starts_session,
    )
    from selfimprint.domain.sleep_policy import (
        Depth,
        ScheduleState,
        SleepKind,
        next_sleep_at,
    )
    from selfimprint.domain.sleep_writes import SleepStatus
    from selfimprint.domain.users import Tier
    from workflows.compaction import CompactionInput, CompactionResult, CompactionWorkflow
    from workflows.forget import ForgetTopicWorkflow
    from workflows.ids import lifecycle_workflow_id
    from workflows.lifecycle_state import (
        ContextRequested,
        FeedbackReceived,
        ForgetReplay,
        LastSleep,
        LifecycleInput,
        LifecycleState,
        MessagesReceived,
        NextSleepView,
        PauseRequest,
        PauseResult,
        ProfileChanged,
        SleepRequest,
        SleepRequestAck,
        SoftResetAck,
        SoftResetRequest,
    )
    from workflows.options import INGESTION_GRAPH, INGESTION_MODEL
    from workflows.sleep_phase import SleepInput, SleepOutcome, SleepPhaseWorkflow
    from workflows.tiers import TierMoveInput, TierMoveWorkflow, tier_workflow_id

workflow_id = lifecycle_workflow_id


# Registered on the local dev server by selfimprint/devstack/services.py (SEARCH_ATTRIBUTES).
TIER_KEY = SearchAttributeKey.for_keyword("SelfImprintTier")
PLAN_KEY = SearchAttributeKey.for_keyword("SelfImprintPlan")
NEXT_SLEEP_KEY = SearchAttributeKey.for_datetime("SelfImprintNextSleepAt")
LAST_SLEEP_KEY = SearchAttributeKey.for_keyword("SelfImprintLastSleepStatus")


MAX_FEEDBACK_IDS = 100  # remembered per week; more feedback than this changes nothing anyway


def _what_failed(error: BaseException | None) -> str:
    """The failed activity and the innermost cause ("sleep.detect_patterns: Couldn't connect to
    ..."): an operator reads it in `sleep status`, where "Activity task failed" says nothing."""
    activity_type = None
    while error is not None:
        if isinstance(error, ActivityError):
            activity_type = error.activity_type
        if error.__cause__ is None:
            break
        error = error.__cause__
    if error is None:
        return "unknown error"
    text = getattr(error, "message", None) or str(error)
    return f"{activity_type}: {text}" if activity_type else text


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
        if starts_session(state.last_active_at, now, state.timings.session_gap):
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
        overlapped = forget_overlapped(
            operation_running=self._operation is not None,
            messages_pending=bool(state.pending_message_ids),
            last_operation_ended_at=state.last_operation_ended_at,
            forget_started_at=signal.started_at,
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
        """Ask the domain for the next step (`domain.lifecycle.next_step`) and perform it, until
        the user is gone; continue-as-new when the history grows long."""
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
            now = workflow.now()
            if not await self._perform(next_step(self._situation(now), now)):
                return

    def _situation(self, now: datetime) -> Situation:
        state = self._state
        planned_at = self._plan(now)
        view = state.next_sleep
        planned = None
        if planned_at is not None and view is not None and view.depth is not None:
            planned = PlannedSleep(at=planned_at, depth=view.depth, kind=view.kind)
        return Situation(
            tier=state.tier,
            pending=tuple(state.pending_message_ids),
            forget_waits=[frozenset(r.after_messages) for r in state.forget_replays],
            paused=state.paused,
            rehydrate_requested=state.rehydrate_requested,
            sleep_requested=state.sleep_requested,
            soft_reset_requested=state.soft_reset_requested,
            planned_sleep=planned,
            last_active_at=state.last_active_at,
            last_reconcile_at=state.last_reconcile_at,
            timings=state.timings,
        )

    async def _perform(self, step: Step) -> bool:
        """One step of the loop; False when the lifecycle must end (the user is gone)."""
        state = self._state
        match step:
            case ReplayForget(index=index):
                await self._replay_forget(state.forget_replays.pop(index).forget)
            case MoveTier(target=target):
                with self._operating("tier move"):
                    await self._move_tier(target)
            case Extract(message_ids=batch):
                with self._operating("extraction"):
                    await self._ingest(list(batch))
                del state.pending_message_ids[: len(batch)]
            case SoftReset():
                with self._operating("soft reset"):
                    await self._compact(workflow.now(), soft_reset=True)
                state.soft_reset_requested = False
            case Sleep(depth=depth, kind=kind, explicit=explicit):
                if explicit:
                    state.sleep_requested = None
                with self._operating("sleep"):
                    await self._sleep(depth, kind, explicit=explicit)
            case Reconcile():
                return await self._reconcile()
            case Wait(timeout=timeout):
                self._publish()
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
        return True

    @contextmanager
    def _operating(self, name: str) -> Iterator[None]:
        """Marks a graph operation as running, for `topic_forgotten`'s overlap check."""
        self._operation = name
        try:
            yield
        finally:
            self._operation = None
            self._state.last_operation_ended_at = workflow.now()

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
        if compaction_due(
            kind,
            outcome.status,
            started,
            state.last_compaction_at,
            state.timings.compaction_every,
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
                    **INGESTION_GRAPH,
                )
                return cancelled
            cause = _what_failed(err.cause if isinstance(err, ChildWorkflowError) else err)
            workflow.logger.warning("sleep failed", extra={"run_id": run_id, "error": cause})
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
                **INGESTION_GRAPH,
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
            **INGESTION_GRAPH,
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
                **INGESTION_MODEL,
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
                **INGESTION_GRAPH,
            )
            self._state.ingestion.messages_failed += len(batch.messages)
            return
        outcome = await workflow.execute_activity_method(
            IngestionActivities.apply_extraction,
            ApplyInput(batch=batch, extracted=extracted),
            **INGESTION_GRAPH,
        )
        stats = self._state.ingestion
        stats.messages_extracted += len(batch.messages)
        stats.memories_created += outcome.created
        stats.memories_ungrounded += outcome.ungrounded
        stats.memories_reinforced += outcome.reinforced
