"""UserLifecycleWorkflow: one durable entity workflow per user, id `user-{tenant}-{user_id}`.

This part runs ingestion: the API stores raw messages durably, then signals (signal-with-start)
the ids here; the workflow extracts them in small batches: load (cpu queue) -> extract with the
LLM and embed (gpu queue) -> apply to the graph (cpu queue). The lifecycle issue extends the same
workflow with sleep scheduling; the state object is the one place both add to.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import BaseModel, Field
from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.ingestion import (
        ApplyInput,
        ExtractInput,
        ExtractionActivities,
        IngestionActivities,
        LoadBatchInput,
        MarkFailedInput,
        PendingInput,
    )
    from selfimprint.domain.users import UserProfile


def workflow_id(tenant_id: str, user_id: str) -> str:
    """Tenant ids contain no '-', so the first '-' after the prefix separates the two."""
    return f"user-{tenant_id}-{user_id}"


class TaskQueues(BaseModel):
    cpu: str
    gpu: str


class IngestionStats(BaseModel):
    messages_received: int = 0
    messages_extracted: int = 0
    messages_failed: int = 0
    memories_created: int = 0
    memories_reinforced: int = 0
    last_message_at: datetime | None = None


class LifecycleState(BaseModel):
    """Everything the workflow knows; carried whole across continue-as-new."""

    tenant_id: str
    user_id: str
    queues: TaskQueues
    profile: UserProfile = Field(default_factory=UserProfile)
    pending_message_ids: list[str] = Field(default_factory=list)
    ingestion: IngestionStats = Field(default_factory=IngestionStats)
    reconciled: bool = False


class LifecycleInput(BaseModel):
    state: LifecycleState


class MessagesReceived(BaseModel):
    message_ids: list[str] = Field(min_length=1, max_length=1000)
    last_sent_at: datetime


class ProfileChanged(BaseModel):
    profile: UserProfile


# Batches stay small: the local 135M model has a 2k-token context, and a failed batch is retried
# whole. The extraction budget in characters is enforced again by the load activity.
EXTRACTION_BATCH = 4
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

    @workflow.signal
    def messages_received(self, signal: MessagesReceived) -> None:
        queued = set(self._state.pending_message_ids)
        for message_id in signal.message_ids:
            if message_id not in queued:
                self._state.pending_message_ids.append(message_id)
                queued.add(message_id)
        stats = self._state.ingestion
        stats.messages_received += len(signal.message_ids)
        if stats.last_message_at is None or signal.last_sent_at > stats.last_message_at:
            stats.last_message_at = signal.last_sent_at

    @workflow.signal
    def profile_changed(self, signal: ProfileChanged) -> None:
        self._state.profile = signal.profile

    @workflow.query
    def state(self) -> LifecycleState:
        return self._state

    @workflow.run
    async def run(self, data: LifecycleInput) -> None:
        if not self._state.reconciled:
            await self._reconcile()
        while True:
            await workflow.wait_condition(
                lambda: (
                    bool(self._state.pending_message_ids)
                    or workflow.info().is_continue_as_new_suggested()
                )
            )
            if self._state.pending_message_ids:
                batch = self._state.pending_message_ids[:EXTRACTION_BATCH]
                await self._ingest(batch)
                del self._state.pending_message_ids[: len(batch)]
            if workflow.info().is_continue_as_new_suggested():
                await workflow.wait_condition(workflow.all_handlers_finished)
                workflow.continue_as_new(LifecycleInput(state=self._state))

    async def _reconcile(self) -> None:
        """Pick up messages stored but never signalled (e.g. Temporal was down at the time)."""
        pending = await workflow.execute_activity_method(
            IngestionActivities.pending_messages,
            PendingInput(tenant_id=self._state.tenant_id, user_id=self._state.user_id),
            start_to_close_timeout=CPU_TIMEOUT,
            retry_policy=CPU_RETRY,
        )
        queued = set(self._state.pending_message_ids)
        self._state.pending_message_ids.extend(i for i in pending if i not in queued)
        self._state.reconciled = True

    async def _ingest(self, message_ids: list[str]) -> None:
        tenant_id, user_id = self._state.tenant_id, self._state.user_id
        batch = await workflow.execute_activity_method(
            IngestionActivities.load_batch,
            LoadBatchInput(tenant_id=tenant_id, user_id=user_id, message_ids=message_ids),
            start_to_close_timeout=CPU_TIMEOUT,
            retry_policy=CPU_RETRY,
        )
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
        stats.memories_reinforced += outcome.reinforced
