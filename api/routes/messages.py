"""Message ingestion: 202 only once the raw messages are durable in the message log."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from api.auth import Caller
from api.errors import EVERY_ROUTE, UNKNOWN_USER, WITH_BODY, ApiError, documented
from api.routes.common import UserId, notifier_of, resources_of, scope_of, unknown_user
from api.timing import ServerTiming
from selfimprint.adapters.neo4j.message_log import MessageConflictError, UnknownUserError
from selfimprint.domain.messages import MAX_BATCH_MESSAGES, Message
from selfimprint.domain.pending_messages import ExtractionBacklog

router = APIRouter(prefix="/v1/users", tags=["messages"])


class MessageBatch(BaseModel):
    messages: Annotated[list[Message], Field(min_length=1, max_length=MAX_BATCH_MESSAGES)]


class Extraction(BaseModel):
    """How far extraction is behind on the user's messages (read your writes, issue 36)."""

    pending: int = Field(
        description="The user's stored messages (any role) not yet extracted into memories."
    )
    oldest_pending_sent_at: datetime | None = Field(
        description="`sent_at` of the oldest of them; null when none is pending."
    )

    @staticmethod
    def of(backlog: ExtractionBacklog) -> Extraction:
        return Extraction(
            pending=backlog.pending, oldest_pending_sent_at=backlog.oldest_pending_sent_at
        )


class Accepted(BaseModel):
    accepted: int = Field(description="Messages stored by this call.")
    duplicates: int = Field(description="Messages already stored with the same content.")
    extraction: Extraction = Field(
        description="The user's extraction backlog right after this batch was stored: the "
        "messages a context request can include with `after_message` until they are extracted."
    )


@router.post(
    "/{user_id}/messages",
    status_code=202,
    response_model=Accepted,
    responses=documented(*EVERY_ROUTE, *WITH_BODY, UNKNOWN_USER, (409, "message_conflict")),
)
async def post_messages(
    user_id: UserId, batch: MessageBatch, who: Caller, request: Request, response: Response
) -> Accepted:
    """Store a batch of up to 100 chat messages `{id, role, text, sent_at}` (idempotent on `id`)
    and schedule their extraction.

    `202 {accepted, duplicates, extraction}` means the messages are durable in the message log; the
    same id with different content is `409 message_conflict` and nothing of the batch is stored. The
    user's lifecycle workflow is told right after the answer (it also finds stored messages in the
    log by itself), so acceptance does not wait for the orchestrator and keeps working while it is
    down. `extraction` says how many of the user's messages wait for extraction, read in the same
    statement as the write."""
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
    # Duplicates too: their first nudge may have been lost (the workflow ignores what it has).
    ids = [m.id for m in batch.messages]
    notifier_of(request).notify(scope, ids, max(m.sent_at for m in batch.messages))
    response.headers["Server-Timing"] = timer.header()
    return Accepted(
        accepted=len(outcome.new_ids),
        duplicates=len(outcome.duplicate_ids),
        extraction=Extraction.of(outcome.backlog),
    )
