"""A lifecycle's session review (epistemic-memory article, component 8): on session N, 2N...
(`domain.session_review.due_review_session`) the review activity picks the beliefs to put to the
user and stores them for the context. A base of `UserLifecycleWorkflow`.

It runs beside the loop, never in it: ingestion, sleeps and tier moves go on while it runs or
while Temporal retries it (a Neo4j outage), and the context asks it as soon as it is stored. It
starts once the messages that opened the session are extracted, so the review reads the graph
as the session found it, those messages included. Continue-as-new waits for a running one
(Temporal's retries of it add nothing to the history); the store keeps one review per session.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.reviews import ReviewActivities, ReviewInput
    from selfimprint.domain.session_review import due_review_session
    from workflows.lifecycle_view import LifecycleView

# One read of the user's beliefs and one small write. Retried without limit, backing off to ten
# minutes: the review waits out an outage without holding anything up (it runs beside the loop).
REVIEW_TIMEOUT = timedelta(minutes=2)
REVIEW_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=2), maximum_interval=timedelta(minutes=10)
)


class ReviewSteps(LifecycleView):
    """Start the due session review beside the loop."""

    _reviewing: asyncio.Task[None] | None

    def _review_running(self) -> bool:
        return self._reviewing is not None and not self._reviewing.done()

    def _start_review(self) -> None:
        state = self._state
        if self._review_running():
            return
        if state.ingestion.pending_message_ids:
            return  # the session's first messages go into the graph first
        session = due_review_session(state.activity.session_count, state.review.last_session)
        # Patched: histories of the previous release never started a review.
        if session is None or not workflow.patched("session-review"):
            return
        self._reviewing = asyncio.create_task(self._review(session))

    async def _review(self, session: int) -> None:
        state = self._state
        try:
            outcome = await workflow.execute_activity_method(
                ReviewActivities.open_session_review,
                ReviewInput(
                    tenant_id=state.tenant_id,
                    user_id=state.user_id,
                    session=session,
                    now=workflow.now(),
                ),
                task_queue=state.queues.cpu,
                start_to_close_timeout=REVIEW_TIMEOUT,
                retry_policy=REVIEW_RETRY,
            )
        except ActivityError as err:
            # Only a non-retryable failure gets here: retrying it would fail the same way, so
            # this session goes unreviewed (operators see why in the state); the next is due
            # N sessions later.
            workflow.logger.warning(
                "session review failed", extra={"session": session, "error": str(err.cause)}
            )
            state.review.last_failed = f"session {session}: {err.cause}"[:300]
            state.review.last_session = session
            return
        state.review.last_session = session
        state.review.last_review_id = outcome.review_id
