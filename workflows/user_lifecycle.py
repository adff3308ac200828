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
start and once a day while idle, and continues-as-new when suggested. Beside the loop it opens
the due session review (`lifecycle_review`) and, once per lifecycle, makes sure the user's
monthly summary schedule exists (`lifecycle_summary`).

Operators see tier, plan, next sleep and the last sleep's status as search attributes, and a
one-line summary in the memo.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from temporalio import workflow
from temporalio.exceptions import ChildWorkflowError

with workflow.unsafe.imports_passed_through():
    from activities.forget import ForgetActivities, ForgetInput, TopicForgotten
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
        forget_overlapped,
        next_step,
        starts_session,
    )
    from selfimprint.domain.sleep_writes import SleepStatus
    from selfimprint.domain.users import Tier
    from workflows.forget import ForgetTopicWorkflow
    from workflows.ids import lifecycle_workflow_id
    from workflows.lifecycle_ingestion import IngestionSteps
    from workflows.lifecycle_review import ReviewSteps
    from workflows.lifecycle_sleep import SleepSteps
    from workflows.lifecycle_state import (
        ContextRequested,
        FeedbackReceived,
        ForgetReplay,
        LifecycleInput,
        LifecycleState,
        MessagesReceived,
        PauseRequest,
        PauseResult,
        ProfileChanged,
        SleepRequest,
        SleepRequestAck,
        SoftResetAck,
        SoftResetRequest,
    )
    from workflows.lifecycle_summary import SummaryScheduleSteps
    from workflows.options import STORAGE_SHORT
    from workflows.tiers import TierMoveInput, TierMoveWorkflow, tier_workflow_id

workflow_id = lifecycle_workflow_id

# A pass with these outcomes saw every message before it: a request with nothing new since is
# told so (a failed or cancelled pass did not finish the work).
COVERING = frozenset({SleepStatus.COMPLETED, SleepStatus.SKIPPED})


MAX_FEEDBACK_IDS = 100  # remembered per week; more feedback than this changes nothing anyway


@workflow.defn
class UserLifecycleWorkflow(SleepSteps, IngestionSteps, ReviewSteps, SummaryScheduleSteps):
    @workflow.init
    def __init__(self, data: LifecycleInput) -> None:
        self._state = data.state
        self._continue_after = data.continue_as_new_after
        self._woken = False  # a handler changed something the loop must re-plan for
        self._sleeping = False
        self._operation: str | None = None  # the graph operation running now, if any
        self._published: tuple[object, ...] | None = None
        self._reviewing = None  # the session review running beside the loop (ReviewSteps)
        self._scheduling = None  # the summary schedule's activity (SummaryScheduleSteps)
        self._schedule_tried = False

    # --- signals -----------------------------------------------------------------------------

    @workflow.signal
    def messages_received(self, signal: MessagesReceived) -> None:
        state = self._state
        self._queue(signal.message_ids)
        # Patched: a worker of the previous release counts every message as activity, and a
        # history it wrote must replay the same on this one (rolling deploys).
        if not signal.activity and workflow.patched("lifecycle-retold-quietly"):
            return
        stats = state.ingestion.stats
        stats.messages_received += len(signal.message_ids)
        if stats.last_message_at is None or signal.last_sent_at > stats.last_message_at:
            stats.last_message_at = signal.last_sent_at
        if signal.timings is not None:
            state.timings = signal.timings
        if signal.model_stance is not None:
            state.model_stance = signal.model_stance
        # Activity is timed by the workflow clock: deterministic, and immune to client clocks.
        now = workflow.now()
        activity = state.activity
        if starts_session(activity.last_active_at, now, state.timings.session_gap):
            activity.session_count += 1
        activity.tracking_since = activity.tracking_since or now
        activity.last_active_at = now
        activity.log = activity.log.record(now, len(signal.message_ids))
        state.sleep.new_messages += len(signal.message_ids)

    @workflow.signal
    def profile_changed(self, signal: ProfileChanged) -> None:
        self._state.profile = signal.profile
        if signal.timings is not None:
            self._state.timings = signal.timings
        if signal.model_stance is not None:
            self._state.model_stance = signal.model_stance
        self._woken = True

    @workflow.signal
    def context_requested(self, signal: ContextRequested) -> None:
        self._state.activity.last_active_at = workflow.now()
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
        pending, forgets = self._state.ingestion.pending_message_ids, self._state.forgets
        overlapped = forget_overlapped(
            operation_running=self._operation is not None,
            messages_pending=bool(pending),
            last_operation_ended_at=forgets.last_operation_ended_at,
            forget_started_at=signal.started_at,
        )
        if overlapped and all(r.forget != signal.forget for r in forgets.replays):
            replay = ForgetReplay(forget=signal.forget, after_messages=list(pending))
            forgets.replays.append(replay)
            self._woken = True
        elif not overlapped and signal.forget.topic_ref is not None:
            # Issue 37: no replay will read the staged topic; the loop drops it.
            forgets.unstage.append(signal.forget.topic_ref)
            self._woken = True

    @workflow.signal
    def feedback_received(self, signal: FeedbackReceived) -> None:
        compaction = self._state.compaction
        if signal.id in compaction.feedback_ids:
            return
        compaction.feedback_ids = [*compaction.feedback_ids, signal.id][-MAX_FEEDBACK_IDS:]
        compaction.feedback_signals += 1
        workflow.logger.info("user feedback", extra={"kind": signal.kind})

    # --- updates -----------------------------------------------------------------------------

    @workflow.update
    def request_soft_reset(self, request: SoftResetRequest) -> SoftResetAck:
        self._state.compaction.soft_reset_requested = True
        self._woken = True
        workflow.logger.warning("soft reset requested", extra={"reason": request.reason})
        return SoftResetAck(
            accepted=True,
            message="queued: runs after pending messages, as a compaction with a soft reset; "
            "watch state.compaction.last_soft_reset",
        )

    @request_soft_reset.validator
    def _validate_soft_reset(self, request: SoftResetRequest) -> None:
        if self._state.compaction.soft_reset_requested:
            raise ValueError("a soft reset is already queued")

    @workflow.update
    def request_sleep(self, request: SleepRequest) -> SleepRequestAck:
        self._state.sleep.requested = request.depth
        self._woken = True
        workflow.logger.info("sleep requested", extra={"depth": request.depth.value})
        sleep = self._state.sleep
        pending = len(self._state.ingestion.pending_message_ids)
        when = f"after {pending} pending messages are extracted" if pending else "now"
        message = f"a {request.depth.value} pass starts {when}"
        last = sleep.last
        if last is not None and last.status in COVERING and not sleep.new_messages and not pending:
            # Still run: hypothesis deadlines and decay are dates, not messages.
            message += (
                f"; nothing new since the last pass ({last.run_id}, {last.status.value} at "
                f"{last.started_at:%Y-%m-%d %H:%M}Z): it re-reads the same graph and checks "
                "hypothesis deadlines"
            )
        return SleepRequestAck(accepted=True, depth=request.depth, message=message)

    @request_sleep.validator
    def _validate_sleep_request(self, request: SleepRequest) -> None:
        sleep = self._state.sleep
        if self._state.paused:
            raise ValueError("the lifecycle is paused: resume it first (sleep resume)")
        if self._sleeping or sleep.requested is not None:
            raise ValueError("a sleep is already running or queued")
        if self._state.tier is not Tier.HOT:
            raise ValueError(f"nothing to do: the graph is {self._state.tier.value}")

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
        if request.paused and self._state.sleep.requested is not None:
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
        if not state.ingestion.reconciled and not await self._reconcile():
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
            await self._drop_staged_topics()
            self._start_review()
            self._ensure_summary_schedule(loops)
            now = workflow.now()
            if not await self._perform(
                next_step(self._situation(now), now, self._state.ingestion.batch_size)
            ):
                return

    def _situation(self, now: datetime) -> Situation:
        state = self._state
        planned_at = self._plan(now)
        view = state.sleep.next
        planned = None
        if planned_at is not None and view is not None and view.depth is not None:
            planned = PlannedSleep(at=planned_at, depth=view.depth, kind=view.kind)
        return Situation(
            tier=state.tier,
            pending=tuple(state.ingestion.pending_message_ids),
            forget_waits=[frozenset(r.after_messages) for r in state.forgets.replays],
            paused=state.paused,
            rehydrate_requested=state.rehydrate_requested,
            sleep_requested=state.sleep.requested,
            soft_reset_requested=state.compaction.soft_reset_requested,
            planned_sleep=planned,
            last_active_at=state.activity.last_active_at,
            last_reconcile_at=state.ingestion.last_reconcile_at,
            timings=state.timings,
        )

    async def _perform(self, step: Step) -> bool:
        """One step of the loop; False when the lifecycle must end (the user is gone)."""
        state = self._state
        match step:
            case ReplayForget(index=index):
                await self._replay_forget(state.forgets.replays.pop(index).forget)
            case MoveTier(target=target):
                with self._operating("tier move"):
                    await self._move_tier(target)
            case Extract(message_ids=batch):
                with self._operating("extraction"):
                    await self._ingest(list(batch))
                del state.ingestion.pending_message_ids[: len(batch)]
            case SoftReset():
                with self._operating("soft reset"):
                    await self._compact(workflow.now(), soft_reset=True)
                state.compaction.soft_reset_requested = False
            case Sleep(depth=depth, kind=kind, explicit=explicit):
                if explicit:
                    state.sleep.requested = None
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
                            or bool(state.ingestion.pending_message_ids)
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
        except GeneratorExit:
            # The run is torn down (evicted from the worker's cache, or its coroutine collected):
            # no workflow call may run now, and the state dies with the run anyway.
            self._operation = None
            raise
        except BaseException:
            self._ended()
            raise
        self._ended()

    def _ended(self) -> None:
        self._operation = None
        self._state.forgets.last_operation_ended_at = workflow.now()

    async def _drop_staged_topics(self) -> None:
        """The words of forgets that no replay needs leave Neo4j (issue 37). Only forgets
        started with a staged topic put anything here, so older histories replay unchanged."""
        unstage = self._state.forgets.unstage
        while unstage:
            await workflow.execute_activity_method(
                ForgetActivities.drop_topic,
                unstage[0],
                task_queue=self._state.queues.cpu,
                **STORAGE_SHORT,
            )
            unstage.pop(0)

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
            state.forgets.last_replay_failed = f"{now:%Y-%m-%d %H:%M}: {err.cause}"[:300]
        if forget.topic_ref is not None and all(
            r.forget.topic_ref != forget.topic_ref for r in state.forgets.replays
        ):
            state.forgets.unstage.append(forget.topic_ref)

    def _should_continue_as_new(self, loops: int) -> bool:
        if self._sleeping or self._state.ingestion.pending_message_ids or self._review_running():
            return False
        if self._scheduling_running():  # its outcome goes into the state carried over
            return False
        if self._continue_after is not None and loops >= self._continue_after:
            return True
        return workflow.info().is_continue_as_new_suggested()

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
