"""How a workflow's texts and vectors travel between its activities by reference (issue 35).

One activity writes a value to a run's stage (Neo4j, `adapters.neo4j.payload_stage`) and
returns a `PayloadRef`; the next reads it there. The workflow's history holds the reference and
counts, never the value. Used by the sleep pass (memories, proposals, stance pairs) and the
forget workflow (the topic's vector). Histories recorded before their patches still carry the
values, and every activity still accepts them.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from pydantic import BaseModel
from temporalio.exceptions import ApplicationError

from selfimprint.domain.users import UserScope

M = TypeVar("M", bound=BaseModel)
UNSTAGED = "PayloadStageMissingError"


class PayloadRef(BaseModel):
    """One run's stages: the activity that reads them finds them by it (it holds no text)."""

    tenant_id: str
    user_id: str
    run_id: str

    @property
    def scope(self) -> UserScope:
        return UserScope(self.tenant_id, self.user_id)


class PayloadStages(Protocol):
    """Where the stages are kept (Neo4jPayloadStages; an in-memory one in workflow tests)."""

    async def put(self, scope: UserScope, run_id: str, step: str, payload: str) -> bool: ...

    async def get(self, scope: UserScope, run_id: str, step: str) -> str | None: ...

    async def drop_run(self, scope: UserScope, run_id: str) -> None: ...


class Staging:
    """Writes and reads a run's steps as the activities' models."""

    def __init__(self, stages: PayloadStages | None) -> None:
        self._stages = stages

    def _require(self) -> PayloadStages:
        if self._stages is None:
            # A worker built without the graph's address cannot serve a staged run: a deploy
            # error, not something a retry mends.
            raise ApplicationError(
                "this worker has no payload stages (Neo4j) configured",
                type=UNSTAGED,
                non_retryable=True,
            )
        return self._stages

    async def write(self, ref: PayloadRef, step: str, value: BaseModel) -> None:
        if not await self._require().put(ref.scope, ref.run_id, step, value.model_dump_json()):
            raise ApplicationError(
                f"user {ref.user_id} has no profile (erased, or being erased): "
                f"run {ref.run_id} stopped",
                type=UNSTAGED,
                non_retryable=True,
            )

    async def read(self, ref: PayloadRef, step: str, model: type[M]) -> M:
        payload = await self._require().get(ref.scope, ref.run_id, step)
        if payload is None:
            raise ApplicationError(
                f"run {ref.run_id} has no staged {step} (erased, or finished)",
                type=UNSTAGED,
                non_retryable=True,
            )
        return model.model_validate_json(payload)

    async def drop_run(self, ref: PayloadRef) -> None:
        if self._stages is not None:
            await self._stages.drop_run(ref.scope, ref.run_id)
