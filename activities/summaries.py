"""The monthly summary activity (spec §3.5, §4; cpu queue): read the user's profile, tier and
graph, plan the summary with the domain (`domain.monthly_summary`), write it to Neo4j.

Idempotent by month: the summary's id is `<user>-<YYYY-MM>` of the month it covers, so a retry
or a repeated run overwrites that month's summary. A user whose graph is warm or cold gets a
summary that says it was skipped and why (the graph is not brought back for it: see
`SkipReason.GRAPH_ARCHIVED`). A user deleted before its schedule was gets nothing.

`summary.ensure_schedule` (cpu queue) makes sure the user's schedule exists, for the user's
lifecycle workflow (`workflows/lifecycle_summary.py`): users PUT before schedules existed, or
while Temporal was down, get theirs too. The schedule itself is built in
`selfimprint/service/summaries.py`, a layer above this one, and handed in (`SummarySchedules`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from pydantic import BaseModel, ValidationError
from temporalio import activity
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from activities.tiers import with_heartbeats
from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.domain.monthly_summary import (
    DEFAULT_SUMMARY,
    DEFAULT_SUMMARY_LANGUAGE,
    MonthlySummary,
    SummaryConfig,
    SummaryStatus,
    covered_month,
    plan_monthly_summary,
    skipped_summary,
    summary_language,
)
from selfimprint.domain.users import Tier, UserProfile, UserScope
from selfimprint.logging import get_logger

log = get_logger(__name__)
BAD_DATA = "BadSummaryDataError"
# The Temporal server has no Schedules API (the time-skipping test server): retrying won't help.
SCHEDULES_UNSUPPORTED = "SchedulesUnsupportedError"


class SummaryInput(BaseModel):
    tenant_id: str
    user_id: str
    now: datetime  # the workflow's time: the month covered is the one before it


class SummaryOutput(BaseModel):
    month: str | None  # None: the user no longer exists
    status: SummaryStatus | None


class SummaryActivities:
    def __init__(
        self,
        graph: Neo4jGraphStore,
        accounts: Neo4jAccounts,
        config: SummaryConfig = DEFAULT_SUMMARY,
    ) -> None:
        self._graph = graph
        self._accounts = accounts
        self._config = config

    @activity.defn(name="summary.produce_monthly")
    async def produce_monthly(self, data: SummaryInput) -> SummaryOutput:
        scope = UserScope(data.tenant_id, data.user_id)
        profile = await self._accounts.get_profile(scope)
        if profile is None:
            log.info("summary.unknown_user", tenant_id=data.tenant_id, user_id=data.user_id)
            return SummaryOutput(month=None, status=None)
        month = covered_month(data.now, profile.zone)
        tier = await self._accounts.get_tier(scope) or Tier.HOT
        try:
            summary = await self._plan(scope, profile, month, tier, data.now)
        except ValidationError as exc:  # stored data the summary cannot hold: retrying won't help
            raise ApplicationError(str(exc)[:1000], type=BAD_DATA, non_retryable=True) from exc
        await self._graph.for_user(data.tenant_id, data.user_id).put_summary(summary)
        log.info(
            "summary.written",
            tenant_id=data.tenant_id,
            user_id=data.user_id,
            month=month,
            status=summary.status.value,
        )
        return SummaryOutput(month=month, status=summary.status)

    async def _plan(
        self, scope: UserScope, profile: UserProfile, month: str, tier: Tier, now: datetime
    ) -> MonthlySummary:
        if tier is not Tier.HOT:
            return skipped_summary(
                scope.user_id,
                month,
                profile.zone,
                tier=tier,
                produced_at=now,
                language=profile.language or DEFAULT_SUMMARY_LANGUAGE,
            )
        graph = self._graph.for_user(scope.tenant_id, scope.user_id)
        snapshot = await with_heartbeats(graph.export_graph(now))
        previous = await graph.summarised_total(month)
        return plan_monthly_summary(
            scope.user_id,
            month,
            profile.zone,
            nodes=snapshot.nodes,
            hypotheses=snapshot.hypotheses,
            tensions=snapshot.tensions,
            produced_at=now,
            language=summary_language(profile.language, snapshot.nodes, self._config),
            previous_total=previous,
            config=self._config,
        )


class ScheduleInput(BaseModel):
    tenant_id: str
    user_id: str


class SummarySchedules(Protocol):
    """The users' monthly summary schedules (`selfimprint.service.summaries.MonthlySchedules`)."""

    async def ensure(self, scope: UserScope) -> bool:
        """Create the user's schedule unless it exists; True if this call created it."""
        ...

    async def delete(self, scope: UserScope) -> bool:
        """Delete the user's schedule; False when there was none."""
        ...


class Profiles(Protocol):
    async def get_profile(self, scope: UserScope) -> UserProfile | None:
        """None for an unknown user and for one being erased (`deleting_since`)."""
        ...


class ScheduleActivities:
    """cpu queue."""

    def __init__(self, profiles: Profiles, schedules: SummarySchedules) -> None:
        self._profiles = profiles
        self._schedules = schedules

    @activity.defn(name="summary.ensure_schedule")
    async def ensure_schedule(self, data: ScheduleInput) -> bool:
        """Make sure the user's monthly summary schedule exists. False, leaving no schedule,
        when the user is unknown or being erased: an erasure deletes the schedule, and this
        must not bring it back."""
        scope = UserScope(data.tenant_id, data.user_id)
        if await self._profiles.get_profile(scope) is None:
            log.info("summary.schedule_user_gone", tenant_id=data.tenant_id, user_id=data.user_id)
            return False
        try:
            await self._schedules.ensure(scope)  # logs `summary.schedule_created` if it did
        except RPCError as exc:
            if exc.status is RPCStatusCode.UNIMPLEMENTED:
                raise ApplicationError(
                    str(exc)[:500], type=SCHEDULES_UNSUPPORTED, non_retryable=True
                ) from exc
            raise
        # The erasure marks the profile (`deleting_since`) before its workflow deletes the
        # schedule. If it began after the read above, its delete may have come before this
        # create: the profile shows it now, and what this call made is taken back.
        if await self._profiles.get_profile(scope) is None:
            await self._schedules.delete(scope)
            log.info("summary.schedule_taken_back", tenant_id=data.tenant_id, user_id=data.user_id)
            return False
        return True
