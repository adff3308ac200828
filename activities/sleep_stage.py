"""How a sleep pass's texts and vectors travel between its activities by reference (issue 35).

The graph side writes what the model side reads (new memories for the pre-check, the memories
and patterns hypothesis formation shows the model, the hypothesis/memory pairs to judge); the
model side writes its proposals (statements, vectors, policy scores) for the graph side to
store. The workflow's history holds a `SleepStageRef` and counts. Histories recorded before
this (patch `sleep-stage`) still carry the values, and every activity still accepts them.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol, TypeVar

from pydantic import BaseModel
from temporalio.exceptions import ApplicationError

from selfimprint.domain.users import UserScope

M = TypeVar("M", bound=BaseModel)
UNSTAGED = "SleepStageMissingError"


class SleepStep(StrEnum):
    NEW_MEMORIES = "new_memories"
    HYPOTHESIS_CONTEXT = "hypothesis_context"
    PROPOSALS = "proposals"
    STANCE_PAIRS = "stance_pairs"


class SleepStageRef(BaseModel):
    """One run's stages: the model side finds them by it (it holds no text)."""

    tenant_id: str
    user_id: str
    run_id: str

    @property
    def scope(self) -> UserScope:
        return UserScope(self.tenant_id, self.user_id)


class SleepStages(Protocol):
    """Where the stages are kept (Neo4jSleepStages; an in-memory one in workflow tests)."""

    async def put(self, scope: UserScope, run_id: str, step: str, payload: str) -> bool: ...

    async def get(self, scope: UserScope, run_id: str, step: str) -> str | None: ...

    async def drop_run(self, scope: UserScope, run_id: str) -> None: ...


class SleepStaging:
    """Writes and reads a run's steps as the activities' models."""

    def __init__(self, stages: SleepStages | None) -> None:
        self._stages = stages

    def _require(self) -> SleepStages:
        if self._stages is None:
            # A worker built without the graph's address cannot serve a staged pass: a deploy
            # error, not something a retry mends.
            raise ApplicationError(
                "this worker has no sleep stages (Neo4j) configured",
                type=UNSTAGED,
                non_retryable=True,
            )
        return self._stages

    async def write(self, ref: SleepStageRef, step: SleepStep, value: BaseModel) -> None:
        if not await self._require().put(ref.scope, ref.run_id, step, value.model_dump_json()):
            raise ApplicationError(
                f"user {ref.user_id} has no profile (erased, or being erased): "
                f"sleep run {ref.run_id} stopped",
                type=UNSTAGED,
                non_retryable=True,
            )

    async def read(self, ref: SleepStageRef, step: SleepStep, model: type[M]) -> M:
        payload = await self._require().get(ref.scope, ref.run_id, step)
        if payload is None:
            raise ApplicationError(
                f"sleep run {ref.run_id} has no staged {step} (erased, or finished)",
                type=UNSTAGED,
                non_retryable=True,
            )
        return model.model_validate_json(payload)

    async def drop_run(self, ref: SleepStageRef) -> None:
        if self._stages is not None:
            await self._stages.drop_run(ref.scope, ref.run_id)
