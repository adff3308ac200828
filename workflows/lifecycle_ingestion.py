"""A lifecycle's ingestion: pick up messages stored but never signalled (and the tenant's
sleep pause, which a lifecycle started after it was not told either), queue them, and
extract a batch (load on the cpu queue, extract and embed on the gpu queue, apply on the cpu
queue). The batch travels by reference, staged in Neo4j by its activities: messages, memories
and vectors stay out of the history (issue 35). A base of `UserLifecycleWorkflow`."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.ingestion import (
        USER_GONE,
        ApplyInput,
        ApplyOutcome,
        ExtractInput,
        ExtractionActivities,
        IngestionActivities,
        LoadBatchInput,
        MarkFailedInput,
        PendingInput,
        StageRef,
    )
    from activities.tenants import TenantActivities, TenantInput
    from workflows.lifecycle_view import LifecycleView
    from workflows.options import INGESTION_GRAPH, INGESTION_MODEL


class IngestionSteps(LifecycleView):
    """Reconcile, queue and extract for the lifecycle's loop."""

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
        self._state.ingestion.reconciled = True
        self._state.ingestion.last_reconcile_at = workflow.now()
        # Patched: histories of the previous release read no tenant at their reconciles.
        if workflow.patched("tenant-pause"):
            await self._follow_tenant_pause()
        return True

    async def _follow_tenant_pause(self) -> None:
        """A tenant paused by an operator (`sleep pause --all`) pauses a lifecycle that was not
        running when it was paused: read at start and at each reconcile. It never resumes one:
        `sleep resume --all` clears the tenant's pause and resumes the running lifecycles."""
        pause = await workflow.execute_activity_method(
            TenantActivities.sleep_pause,
            TenantInput(tenant_id=self._state.tenant_id),
            **INGESTION_GRAPH,
        )
        if pause.paused and not self._state.paused:
            self._state.paused = True
            workflow.logger.info("lifecycle paused with its tenant", extra={"reason": pause.reason})

    def _queue(self, message_ids: list[str]) -> None:
        pending = self._state.ingestion.pending_message_ids
        queued = set(pending)
        for message_id in message_ids:
            if message_id not in queued:
                pending.append(message_id)
                queued.add(message_id)

    async def _ingest(self, message_ids: list[str]) -> None:
        # Patched: histories of the previous release scheduled the by-value activities.
        if workflow.patched("ingestion-by-reference"):
            await self._ingest_staged(message_ids)
        else:
            await self._ingest_by_value(message_ids)

    async def _ingest_staged(self, message_ids: list[str]) -> None:
        tenant_id, user_id = self._state.tenant_id, self._state.user_id
        staged = await workflow.execute_activity_method(
            IngestionActivities.stage_batch,
            LoadBatchInput(
                tenant_id=tenant_id, user_id=user_id, message_ids=message_ids, now=workflow.now()
            ),
            **INGESTION_GRAPH,
        )
        # The load looks at the whole log: messages whose nudge from the API was lost (it died
        # after answering) join the queue with the user's next message, not the next reconcile.
        self._queue(staged.also_pending)
        if not staged.message_ids:
            return  # all already extracted (a replayed signal), or the user is gone
        ref = StageRef(tenant_id=tenant_id, user_id=user_id, batch_id=staged.batch_id)
        try:
            extracted = await workflow.execute_activity_method(
                ExtractionActivities.extract_staged,
                ref,
                task_queue=self._state.queues.gpu,
                **INGESTION_MODEL,
            )
            # The extractor says how many messages it takes at once (a model-free one more).
            self._state.ingestion.batch_size = extracted.batch_size
            outcome = await workflow.execute_activity_method(
                IngestionActivities.apply_staged, ref, **INGESTION_GRAPH
            )
        except ActivityError as err:
            await self._failed_for_good(err, staged.message_ids)
            return
        self._count(len(staged.message_ids), outcome)

    async def _ingest_by_value(self, message_ids: list[str]) -> None:
        """The previous release's ingestion, the batch and its vectors in the history: kept
        for the histories it recorded."""
        tenant_id, user_id = self._state.tenant_id, self._state.user_id
        batch = await workflow.execute_activity_method(
            IngestionActivities.load_batch,
            LoadBatchInput(
                tenant_id=tenant_id, user_id=user_id, message_ids=message_ids, now=workflow.now()
            ),
            **INGESTION_GRAPH,
        )
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
            await self._failed_for_good(err, [m.id for m in batch.messages])
            return
        self._state.ingestion.batch_size = extracted.batch_size
        outcome = await workflow.execute_activity_method(
            IngestionActivities.apply_extraction,
            ApplyInput(batch=batch, extracted=extracted),
            **INGESTION_GRAPH,
        )
        self._count(len(batch.messages), outcome)

    async def _failed_for_good(self, err: ActivityError, message_ids: list[str]) -> None:
        """Mark the batch's messages failed when its activity failed for good; re-raise
        anything else."""
        if not isinstance(err.cause, ApplicationError) or not err.cause.non_retryable:
            raise err
        workflow.logger.warning("extraction failed for good: %s", err.cause.message)
        await workflow.execute_activity_method(
            IngestionActivities.mark_failed,
            MarkFailedInput(
                tenant_id=self._state.tenant_id,
                user_id=self._state.user_id,
                message_ids=message_ids,
                reason=err.cause.message,
            ),
            **INGESTION_GRAPH,
        )
        self._state.ingestion.stats.messages_failed += len(message_ids)

    def _count(self, messages: int, outcome: ApplyOutcome) -> None:
        stats = self._state.ingestion.stats
        stats.messages_extracted += messages
        stats.memories_created += outcome.created
        stats.memories_ungrounded += outcome.ungrounded
        stats.memories_reinforced += outcome.reinforced
