"""Monthly summaries outside the workflow (spec §3.5, §4): the per-user Temporal Schedule that
produces them, reading them (which marks them seen), and the "a new summary is ready" check
the context uses to push one to the assistant rather than wait to be asked.

The schedule is made sure of in two places, both through `ensure_schedule` (idempotent): by
every `PUT /v1/users/{u}`, and once per user lifecycle by the `summary.ensure_schedule` activity
(`MonthlySchedules`, given to it by the cpu worker), so that users PUT before schedules existed,
or while Temporal was down, get one too. The erasure deletes it.

The schedule fires on the 1st of each month at 12:00 UTC plus up to 6 h of jitter: at any
instant in that window every time zone (UTC-12 to UTC+14) is on the 1st or the 2nd, so the
month before the user's local date (`domain.monthly_summary.covered_month`) is the month that
just ended, whatever the user's zone; and a tenant's users do not all run in the same minute.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleAlreadyRunningError,
    ScheduleCalendarSpec,
    ScheduleOverlapPolicy,
    SchedulePolicy,
    ScheduleRange,
    ScheduleSpec,
)
from temporalio.service import RPCError, RPCStatusCode

from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.config import Settings
from selfimprint.domain.monthly_summary import summary_schedule_id
from selfimprint.domain.users import UserScope
from selfimprint.logging import get_logger
from selfimprint.ports import StoredSummary
from workflows.monthly_summary import MonthlySummaryInput, MonthlySummaryWorkflow

log = get_logger(__name__)

# Project choice: see the module docstring (every zone is on the 1st or 2nd in this window).
FIRE_DAY, FIRE_HOUR_UTC = 1, 12
JITTER = timedelta(hours=6)
# Project choice: after an outage, a missed run still starts within a week; older ones are
# dropped (next month's summary covers the graph as it is then).
CATCHUP_WINDOW = timedelta(days=7)
SCHEDULE_RPC_TIMEOUT = timedelta(seconds=10)


def monthly_schedule(settings: Settings, scope: UserScope) -> Schedule:
    return Schedule(
        action=ScheduleActionStartWorkflow(
            MonthlySummaryWorkflow.run,
            MonthlySummaryInput(tenant_id=scope.tenant_id, user_id=scope.user_id),
            id=summary_schedule_id(scope.tenant_id, scope.user_id),
            task_queue=settings.task_queue_cpu,
            static_summary="monthly summary",
        ),
        spec=ScheduleSpec(
            calendars=[
                ScheduleCalendarSpec(
                    day_of_month=[ScheduleRange(FIRE_DAY)],
                    hour=[ScheduleRange(FIRE_HOUR_UTC)],
                    comment="monthly summary",
                )
            ],
            jitter=JITTER,
        ),
        policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP, catchup_window=CATCHUP_WINDOW),
    )


async def ensure_schedule(client: Client, settings: Settings, scope: UserScope) -> bool:
    """Create the user's monthly schedule; True if it was created, False if it already existed
    (not an error: PUT is idempotent, and so is this)."""
    try:
        await client.create_schedule(
            summary_schedule_id(scope.tenant_id, scope.user_id),
            monthly_schedule(settings, scope),
            rpc_timeout=SCHEDULE_RPC_TIMEOUT,
        )
    except ScheduleAlreadyRunningError:
        return False
    log.info("summary.schedule_created", tenant_id=scope.tenant_id, user_id=scope.user_id)
    return True


class MonthlySchedules:
    """The users' schedules on one Temporal client: what the lifecycle's activity is given
    (`activities.summaries.SummarySchedules`; activities sit below this layer)."""

    def __init__(self, client: Client, settings: Settings) -> None:
        self._client = client
        self._settings = settings

    async def ensure(self, scope: UserScope) -> bool:
        return await ensure_schedule(self._client, self._settings, scope)

    async def delete(self, scope: UserScope) -> bool:
        handle = self._client.get_schedule_handle(
            summary_schedule_id(scope.tenant_id, scope.user_id)
        )
        try:
            await handle.delete(rpc_timeout=SCHEDULE_RPC_TIMEOUT)
        except RPCError as exc:
            if exc.status is RPCStatusCode.NOT_FOUND:
                return False
            raise
        return True


async def read_summaries(
    graph: Neo4jGraphStore, scope: UserScope, limit: int, now: datetime
) -> list[StoredSummary]:
    """Newest first; what is handed out counts as seen from now on."""
    store = graph.for_user(scope.tenant_id, scope.user_id)
    return await _seen(graph, scope, await store.recent_summaries(limit), now)


async def read_summary(
    graph: Neo4jGraphStore, scope: UserScope, month: str, now: datetime
) -> StoredSummary | None:
    found = await graph.for_user(scope.tenant_id, scope.user_id).summary(month)
    return None if found is None else (await _seen(graph, scope, [found], now))[0]


async def _seen(
    graph: Neo4jGraphStore, scope: UserScope, found: list[StoredSummary], now: datetime
) -> list[StoredSummary]:
    unseen = [s.summary.month for s in found if s.seen_at is None]
    if unseen:
        await graph.for_user(scope.tenant_id, scope.user_id).mark_summaries_seen(unseen, now)
    return [s if s.seen_at is not None else s.model_copy(update={"seen_at": now}) for s in found]
