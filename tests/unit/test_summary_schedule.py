"""The lifecycle's `summary.ensure_schedule` activity over fakes: it makes sure the schedule
exists for a user who is there, leaves none for one gone or being erased (taking back what it
made when the erasure began during the call), and stops retrying on a server without
schedules; and a lifecycle state of the previous release loads with the flag unset."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from activities.summaries import SCHEDULES_UNSUPPORTED, ScheduleActivities, ScheduleInput
from selfimprint.domain.users import UserProfile, UserScope
from workflows.lifecycle_state import LifecycleState

pytestmark = pytest.mark.unit

DATA = ScheduleInput(tenant_id="t1", user_id="u1")


@dataclass
class Profiles:
    """Answers each read with the next of `answers` (the last one repeats)."""

    answers: list[UserProfile | None]
    reads: int = 0

    async def get_profile(self, scope: UserScope) -> UserProfile | None:
        self.reads += 1
        return self.answers[min(self.reads, len(self.answers)) - 1]


@dataclass
class Schedules:
    existing: set[UserScope] = field(default_factory=set)
    failure: Exception | None = None
    ensured: list[UserScope] = field(default_factory=list)

    async def ensure(self, scope: UserScope) -> bool:
        if self.failure is not None:
            raise self.failure
        self.ensured.append(scope)
        created = scope not in self.existing
        self.existing.add(scope)
        return created

    async def delete(self, scope: UserScope) -> bool:
        found = scope in self.existing
        self.existing.discard(scope)
        return found


async def test_a_user_who_is_there_gets_the_schedule_once_however_often_asked() -> None:
    schedules = Schedules()
    activities = ScheduleActivities(Profiles([UserProfile()]), schedules)
    assert await activities.ensure_schedule(DATA)
    assert await activities.ensure_schedule(DATA)  # it exists: not an error
    assert schedules.existing == {UserScope("t1", "u1")}


async def test_a_user_gone_or_being_erased_gets_none() -> None:
    schedules = Schedules()
    activities = ScheduleActivities(Profiles([None]), schedules)
    assert not await activities.ensure_schedule(DATA)
    assert schedules.ensured == [] and schedules.existing == set()


async def test_an_erasure_begun_during_the_call_takes_the_schedule_back() -> None:
    """The profile was there when read; the erasure marked it and deleted the schedule before
    this call created it: the second read sees the mark, and the schedule goes again."""
    schedules = Schedules()
    activities = ScheduleActivities(Profiles([UserProfile(), None]), schedules)
    assert not await activities.ensure_schedule(DATA)
    assert schedules.ensured == [UserScope("t1", "u1")] and schedules.existing == set()


async def test_a_server_without_schedules_is_not_retried() -> None:
    unimplemented = RPCError("CreateSchedule is unimplemented", RPCStatusCode.UNIMPLEMENTED, b"")
    activities = ScheduleActivities(Profiles([UserProfile()]), Schedules(failure=unimplemented))
    with pytest.raises(ApplicationError) as raised:
        await activities.ensure_schedule(DATA)
    assert raised.value.type == SCHEDULES_UNSUPPORTED and raised.value.non_retryable
    unavailable = RPCError("frontend down", RPCStatusCode.UNAVAILABLE, b"")
    activities = ScheduleActivities(Profiles([UserProfile()]), Schedules(failure=unavailable))
    with pytest.raises(RPCError):  # retried by Temporal (SUMMARY_SCHEDULE)
        await activities.ensure_schedule(DATA)


def test_a_state_of_the_previous_release_loads_with_the_schedule_not_yet_ensured() -> None:
    old = {"tenant_id": "t1", "user_id": "u1", "queues": {"cpu": "c", "gpu": "g"}}
    state = LifecycleState.model_validate(old)
    assert not state.summary_schedule_ensured
    carried = LifecycleState.model_validate_json(
        state.model_copy(update={"summary_schedule_ensured": True}).model_dump_json()
    )
    assert carried.summary_schedule_ensured
