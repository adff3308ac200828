"""Message ingestion: 202 only once the raw messages are durable in the message log."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from api.auth import Caller
from api.errors import ApiError
from api.lifecycle import signal_messages, signal_running
from api.resources import Resources
from api.routes.common import UserId, resources_of, scope_of, unknown_user
from api.timing import ServerTiming
from selfimprint.adapters.neo4j.message_log import (
    AppendOutcome,
    MessageConflictError,
    UnknownUserError,
)
from selfimprint.adapters.neo4j.records import UserScope
from selfimprint.domain.messages import MAX_BATCH_MESSAGES, Message
from selfimprint.logging import get_logger

router = APIRouter(prefix="/v1/users", tags=["messages"])
log = get_logger(__name__)


class MessageBatch(BaseModel):
    messages: Annotated[list[Message], Field(min_length=1, max_length=MAX_BATCH_MESSAGES)]


class Accepted(BaseModel):
    accepted: int = Field(description="Messages stored by this call.")
    duplicates: int = Field(description="Messages already stored with the same content.")
    scheduled: bool = Field(description="The lifecycle workflow has been told about them.")


@router.post("/{user_id}/messages", status_code=202, response_model=Accepted)
async def post_messages(
    user_id: UserId, batch: MessageBatch, who: Caller, request: Request, response: Response
) -> Accepted:
    """Store a batch of chat messages (idempotent on `id`) and schedule their extraction.

    The same id with different content is a 409 and nothing of the batch is stored. If the
    orchestrator cannot be reached the messages are still stored (503): retry the same call;
    the workflow also picks up stored-but-unscheduled messages when it starts.
    """
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    timer = ServerTiming()
    ids = [m.id for m in batch.messages]
    last_sent_at = max(m.sent_at for m in batch.messages)
    signalled = False
    try:
        if scope.key in resources.lifecycles:
            outcome, signalled = await _store_beside_signal(resources, scope, batch, timer)
        else:
            with timer("store"):
                outcome = await resources.messages(scope).append(
                    batch.messages, require_profile=True
                )
    except UnknownUserError as exc:
        resources.lifecycles.discard(scope.key)
        raise unknown_user(scope) from exc
    except MessageConflictError as exc:
        raise ApiError(409, "message_conflict", str(exc), {"ids": exc.ids}) from exc
    if not signalled:
        resources.lifecycles.discard(scope.key)
        try:
            with timer("signal"):
                await signal_messages(resources, scope, ids, last_sent_at)
        except Exception as exc:
            log.warning("lifecycle.signal_failed", user_id=user_id, error=str(exc))
            raise ApiError(
                503,
                "orchestrator_unavailable",
                "messages are stored but extraction could not be scheduled; retry the same call",
                {"stored": len(outcome.new_ids)},
            ) from exc
    resources.lifecycles.add(scope.key)
    response.headers["Server-Timing"] = timer.header()
    return Accepted(
        accepted=len(outcome.new_ids), duplicates=len(outcome.duplicate_ids), scheduled=True
    )


async def _store_beside_signal(
    resources: Resources, scope: UserScope, batch: MessageBatch, timer: ServerTiming
) -> tuple[AppendOutcome, bool]:
    """The fast path, for a user whose lifecycle this process signalled lately: store and
    signal side by side, so acceptance costs the slower of the two durable writes instead of
    their sum (docs/decisions.md, "Message acceptance"). A signal can therefore reach the
    workflow before the commit; the load activity waits for ids it cannot find yet. The
    signal is a plain one, never a start: if the lifecycle is gone (erased, terminated), it
    reports False and the caller takes the slow path, once the store has shown the user
    exists. Store errors win: the caller maps them as on the slow path."""
    ids = [m.id for m in batch.messages]
    last_sent_at = max(m.sent_at for m in batch.messages)

    async def store() -> AppendOutcome:
        with timer("store"):
            return await resources.messages(scope).append(batch.messages, require_profile=True)

    async def signal() -> bool:
        with timer("signal"):
            return await signal_running(resources, scope, ids, last_sent_at)

    stored, signalled = await asyncio.gather(store(), signal(), return_exceptions=True)
    if isinstance(stored, BaseException):
        raise stored
    if isinstance(signalled, BaseException):
        log.warning("lifecycle.signal_failed", user_id=scope.user_id, error=str(signalled))
        return stored, False
    return stored, signalled
