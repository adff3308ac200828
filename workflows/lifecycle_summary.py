"""A lifecycle makes sure its user's monthly summary schedule exists (spec §3.5, §4; the Temporal
Schedule `monthly-summary-<tenant>-<user>`). `PUT /v1/users/{u}` creates it too, but a user PUT
before schedules existed, or while Temporal was down, who then only writes messages, would never
get one. A base of `UserLifecycleWorkflow`.

Once per lifecycle, not once per run: `state.summary_schedule_ensured` is carried across
continue-as-new. The activity runs beside the loop, never in it (as the session review does):
the user's messages are extracted while it runs and while Temporal retries it, so a failing
Schedules API costs a summary, not ingestion. Its retries are bounded (`SUMMARY_SCHEDULE`),
continue-as-new waits for it, and a run gives up after one failed activity: the next run (or the
user's next PUT) tries again, so a server that refuses schedules does not grow the history on
every loop turn.

Erasure: the loop starts after the reconcile that ends a lifecycle whose user is gone, and the
activity reads the profile before and after creating the schedule (`deleting_since` is set before
the deletion workflow terminates this workflow and deletes the schedule): a lifecycle cannot leave
a schedule behind an erasure.
"""

from __future__ import annotations

import asyncio

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.summaries import ScheduleActivities, ScheduleInput
    from workflows.lifecycle_view import LifecycleView
    from workflows.options import SUMMARY_SCHEDULE

PATCH = "ensure-summary-schedule"


class SummaryScheduleSteps(LifecycleView):
    """Start the schedule's activity beside the loop, once."""

    _scheduling: asyncio.Task[None] | None
    _schedule_tried: bool  # this run has started the activity: at most once per run

    def _scheduling_running(self) -> bool:
        return self._scheduling is not None and not self._scheduling.done()

    def _ensure_summary_schedule(self, turn: int) -> None:
        if self._state.summary_schedule_ensured or self._schedule_tried:
            return
        # Patched: a run of the previous release replays its history without this activity.
        # The loop turn is in the patch id because the SDK settles each id once per run, at
        # its first call: with one id, a run of the previous release would answer "no" on its
        # first replayed turn and keep that answer until its next continue-as-new (months, for
        # an idle user). Asking anew each turn, it answers "yes" on the first turn this
        # release runs live, and a replay of that history finds the marker on the same turn.
        if not workflow.patched(f"{PATCH}-{turn}"):
            return
        self._schedule_tried = True
        self._scheduling = asyncio.create_task(self._ensure_schedule())

    async def _ensure_schedule(self) -> None:
        state = self._state
        try:
            exists = await workflow.execute_activity_method(
                ScheduleActivities.ensure_schedule,
                ScheduleInput(tenant_id=state.tenant_id, user_id=state.user_id),
                task_queue=state.queues.cpu,
                **SUMMARY_SCHEDULE,
            )
        except ActivityError as err:
            workflow.logger.warning(
                "summary schedule not made sure of: the next run tries again",
                extra={"error": str(err.cause)},
            )
            return
        # False: the user is gone or being erased (no schedule was left); the lifecycle ends soon.
        state.summary_schedule_ensured = exists
