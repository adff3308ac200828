"""Message ingestion: 202 only once the raw messages are durable in the message log."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from api.auth import Caller
from api.errors import ApiError
from api.lifecycle import signal_messages
from api.routes.common import UserId, resources_of, scope_of, unknown_user
from api.timing import ServerTiming
from selfimprint.adapters.neo4j.message_log import MessageConflictError, UnknownUserError
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
    try:
        with timer("store"):
            outcome = await resources.messages(scope).append(batch.messages, require_profile=True)
    except UnknownUserError as exc:
        raise unknown_user(scope) from exc
    except MessageConflictError as exc:
        raise ApiError(409, "message_conflict", str(exc), {"ids": exc.ids}) from exc
    ids = [m.id for m in batch.messages]
    try:
        with timer("signal"):
            await signal_messages(resources, scope, ids, max(m.sent_at for m in batch.messages))
    except Exception as exc:
        log.warning("lifecycle.signal_failed", user_id=user_id, error=str(exc))
        raise ApiError(
            503,
            "orchestrator_unavailable",
            "messages are stored but extraction could not be scheduled; retry the same call",
            {"stored": len(outcome.new_ids)},
        ) from exc
    response.headers["Server-Timing"] = timer.header()
    return Accepted(
        accepted=len(outcome.new_ids), duplicates=len(outcome.duplicate_ids), scheduled=True
    )
