"""A lifecycle's sleep passes and compactions: run `SleepPhaseWorkflow` as a child (cancelled
when the user writes), count its outcome, compact after a deep pass when due, and run the
operator's soft reset. A base of `UserLifecycleWorkflow`."""

from __future__ import annotations

import asyncio
from datetime import datetime

from temporalio import workflow
from temporalio.exceptions import ActivityError, ChildWorkflowError

with workflow.unsafe.imports_passed_through():
    from activities.sleep import FinishInput, SleepActivities, SleepScope
    from selfimprint.domain.lifecycle import compaction_due
    from selfimprint.domain.sleep_policy import Depth, SleepKind
    from selfimprint.domain.sleep_writes import SleepStatus
    from selfimprint.domain.users import Tier
    from workflows.compaction import CompactionInput, CompactionResult, CompactionWorkflow
    from workflows.lifecycle_state import LastSleep, RunningSleep
    from workflows.lifecycle_view import LifecycleView
    from workflows.options import INGESTION_GRAPH
    from workflows.sleep_phase import SleepInput, SleepOutcome, SleepPhaseWorkflow


def _what_failed(error: BaseException | None) -> str:
    """The failed activity and what it raised ("sleep.propose_hypotheses: LLM unavailable at
    ..."): an operator reads it in `sleep status`, where "Activity task failed" says nothing.
    What the activity raised, not the innermost cause: the product's errors wrap the library's
    ("LLM unavailable at <url> (connection): ..." over anyio's "All connection attempts
    failed"), and the wrapper names the server and the kind of failure."""
    activity_type = None
    while isinstance(error, ActivityError | ChildWorkflowError) and error.__cause__ is not None:
        if isinstance(error, ActivityError):
            activity_type = error.activity_type
        error = error.__cause__
    if error is None:
        return "unknown error"
    text = getattr(error, "message", None) or str(error)
    return f"{activity_type}: {text}" if activity_type else text


class SleepSteps(LifecycleView):
    """Sleep passes and compaction for the lifecycle's loop."""

    _sleeping: bool

    async def _sleep(self, depth: Depth, kind: SleepKind | None, *, explicit: bool) -> None:
        state = self._state
        started = workflow.now()
        record = state.sleep
        record.seq += 1
        # The start time keeps ids unique across a reset of this workflow (fresh state).
        run_id = f"sleep-{state.tenant_id}-{state.user_id}-{started:%Y%m%dT%H%M%S}-{record.seq}"
        self._sleeping = True
        record.running = RunningSleep(run_id=run_id, depth=depth, started_at=started)
        try:
            outcome = await self._run_sleep(run_id, depth, explicit, started)
        finally:
            self._sleeping = False
            record.running = None
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
        counts = record.counts
        counts.llm_calls += outcome.llm_calls
        if outcome.status is SleepStatus.CANCELLED:
            counts.cancelled += 1  # not a sleep for the schedule: it runs after the next silence
        else:
            # A failed pass counts too: retrying at once would loop; operators retry by hand.
            record.last_at = started
            if outcome.status is SleepStatus.FAILED:
                counts.failed += 1
            else:
                record.new_messages = 0
                if outcome.status is SleepStatus.SKIPPED:
                    counts.skipped += 1
                elif depth is Depth.FULL:
                    counts.full += 1
                else:
                    counts.light += 1
        record.last = LastSleep(
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
            state.compaction.last_at,
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
                medical_deployment=state.profile.medical_deployment,
                since=state.sleep.last_at,
                new_messages=state.sleep.new_messages,
                skip_precheck=explicit,
                model_stance=state.model_stance,
            ),
            id=run_id,
            task_queue=state.queues.cpu,
            static_summary=f"{depth.value} sleep",
        )
        # A sleep never interrupts an active session (spec §3.5): the user's next message
        # cancels it.
        await workflow.wait_condition(
            lambda: handle.done() or bool(state.ingestion.pending_message_ids)
        )
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
                await self._record_end(run_id, depth, started, cancelled)
                return cancelled
            cause = _what_failed(err.cause if isinstance(err, ChildWorkflowError) else err)
            workflow.logger.warning("sleep failed", extra={"run_id": run_id, "error": cause})
            failed = ended(SleepStatus.FAILED, f"Sleep failed: {cause}")
            # The child failed before its own `finish`: its (:SleepRun) would stay `running`.
            # Patched: histories recorded before this replay without the write.
            if workflow.patched("sleep-failed-record"):
                await self._record_end(run_id, depth, started, failed)
            return failed

    async def _record_end(
        self, run_id: str, depth: Depth, started: datetime, outcome: SleepOutcome
    ) -> None:
        """Close the pass's (:SleepRun) for a child that could not: cancelled or failed."""
        state = self._state
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
                status=outcome.status,
                summary=outcome.summary,
                started_at=started,
            ),
            **INGESTION_GRAPH,
        )

    async def _compact(self, now: datetime, *, soft_reset: bool = False) -> None:
        state, record = self._state, self._state.compaction
        kind = "soft-reset" if soft_reset else "compaction"
        try:
            result: CompactionResult = await workflow.execute_child_workflow(
                CompactionWorkflow.run,
                CompactionInput(
                    tenant_id=state.tenant_id,
                    user_id=state.user_id,
                    soft_reset_requested=soft_reset,
                    feedback_signals=record.feedback_signals,
                ),
                id=f"{kind}-{state.tenant_id}-{state.user_id}-{now:%Y%m%dT%H%M%S}",
                task_queue=state.queues.cpu,
            )
        except ChildWorkflowError as err:
            workflow.logger.warning("compaction failed", extra={"error": str(err.cause)})
            if soft_reset:
                record.last_soft_reset = f"{now:%Y-%m-%d %H:%M} failed: {err.cause}"[:300]
                record.last_soft_reset_failed = True
            return
        record.last_at = now
        record.last_entropy = result.compaction.entropy.score
        state.sleep.counts.compactions += 1
        # Feedback counts toward the next weekly decision only; its ids stay (bounded), so a
        # client's retry that crosses a compaction is still recognised.
        record.feedback_signals = 0
        applied = result.soft_reset_applied
        if soft_reset:
            record.last_soft_reset_failed = False
        if applied is not None:
            where = f", in {applied.archive_key}" if applied.archive_key else ""
            record.last_soft_reset = (
                f"{now:%Y-%m-%d %H:%M}: archived {applied.archived_memories} memories, "
                f"kept {applied.kept_memories}{where}"
            )
