"""POST /context: what the assistant should know about this user before replying.

For a user whose graph is in warm or cold storage, the route asks the lifecycle to bring it back
and, within `context_archive_timeout_s`, answers from the encrypted archive read into memory.

Read your writes (issue 36): every answer says how many of the user's messages wait for
extraction; a request naming the last message the caller sent (`after_message`) also gets the
user's messages not yet extracted, verbatim, in a marked section within the budget.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from api.auth import Caller
from api.errors import EVERY_ROUTE, UNKNOWN_USER, WITH_BODY, ApiError, documented
from api.lifecycle import request_rehydration
from api.resources import Resources
from api.routes.common import UserId, resources_of, scope_of, unknown_user
from api.routes.messages import Extraction
from api.routes.reviews import ReviewOut
from api.timing import ServerTiming
from selfimprint.domain.context import UsedMemory
from selfimprint.domain.language import detect_language
from selfimprint.domain.messages import MessageText
from selfimprint.domain.models import MemoryId, NodeType
from selfimprint.domain.pending_messages import PendingBlock, readable_chars
from selfimprint.domain.users import Tier, UserScope
from selfimprint.logging import get_logger
from selfimprint.ports import MessageBacklogReader, PendingRead
from selfimprint.service.archive_read import from_snapshot, read_archived
from selfimprint.service.collective import collective_hints
from selfimprint.service.read_path import (
    ContextMode,
    ContextOutcome,
    Retrieve,
    build_context,
    pending_only_context,
)

router = APIRouter(prefix="/v1/users", tags=["context"])
UNKNOWN_MESSAGE = (422, "unknown_message")
log = get_logger(__name__)


class ContextRequest(BaseModel):
    message: MessageText = Field(description="The user's latest message.")
    budget_tokens: Annotated[int, Field(ge=50, le=4000)] = 400
    mode: ContextMode = ContextMode.FAST
    after_message: MemoryId | None = Field(
        None,
        description="The id of the last message the caller posted for this user. The answer "
        "then also holds the user's messages stored but not yet extracted, verbatim "
        "(`pending_messages`, and a marked section of `context`), newest first within the "
        "budget. An id this user does not have is `422 unknown_message`.",
    )


class MemoryUsed(BaseModel):
    id: str
    type: NodeType
    content: str
    score: float
    sources: list[str]
    recalled: bool = Field(
        False,
        description="The memory had faded and the request's words brought it back "
        "(recognition); being used, it is reinforced at the user's next sleep (issue 32).",
    )


class PendingMessageOut(BaseModel):
    id: str
    sent_at: datetime
    text: str = Field(description="The message as the context shows it (whitespace collapsed).")
    truncated: bool = Field(description="Cut to fit the budget; `text` ends with an ellipsis.")


class ContextResponse(BaseModel):
    context: str = Field(description="Text for the main model's system prompt (use, don't quote).")
    language: str
    mode: ContextMode = Field(description="The mode actually used.")
    fallback_reason: str | None = Field(
        None, description="Why prose mode fell back to the extractive context."
    )
    tokens: int
    memories: list[MemoryUsed]
    collective_hints: list[str] = Field(
        default_factory=list,
        description="CollectiveImprint operational hints (spec §3.7): fixed texts of patterns "
        "that k distinct users of the tenant marked unhelpful and this request matches.",
    )
    open_loop_questions: list[str] = Field(
        description="Questions about open loops in this context (in the user's language) and "
        "the ones the sleep prepared whose time has come."
    )
    review: ReviewOut | None = Field(
        None,
        description="The session review (every 10th session): the surest and least sure "
        "beliefs, also asked in `context`. Post the user's answers to its endpoint.",
    )
    monthly_summary: str | None = Field(
        None,
        description="A monthly summary (YYYY-MM) the user has not been shown: `context` asks the "
        "assistant to offer it; GET /v1/users/{user_id}/summaries/{month} shows it (and marks it "
        "seen).",
    )
    tier: Tier = Field(description="Where the user's graph lives now.")
    rehydrating: bool = Field(
        False,
        description="The graph is in warm/cold storage and is being brought back. Its memories "
        "were read from the encrypted archive when that fit the time budget; otherwise this "
        "answer has none (see fallback_reason): ask again in a few seconds.",
    )
    extraction: Extraction = Field(
        description="How many of the user's messages wait for extraction: their words are in "
        "no memory yet (name the last one in `after_message` to have them in the context)."
    )
    pending_messages: list[PendingMessageOut] = Field(
        default_factory=list,
        description="With `after_message`: the user's messages not yet extracted that the "
        "context shows, newest first, in the section marked as not yet processed.",
    )
    timings_ms: dict[str, float]


@router.post(
    "/{user_id}/context",
    response_model=ContextResponse,
    responses=documented(*EVERY_ROUTE, *WITH_BODY, UNKNOWN_USER, UNKNOWN_MESSAGE),
)
async def post_context(
    user_id: UserId, body: ContextRequest, who: Caller, request: Request, response: Response
) -> ContextResponse:
    """The context for the next reply: `{message, budget_tokens=400, mode=fast|prose,
    after_message?}`.

    The answer carries `extraction` and `pending_messages` (docs/api.md, "Read your writes"); each
    of its `memories` says `recalled: true` when it had faded and the message's words brought it
    back (recognition): that use reinforces it at the user's next sleep, as a re-mention would."""
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    timer = ServerTiming()
    # The tier and the message log's backlog are read side by side: one round trip of latency.
    tier, log_read = await asyncio.gather(
        _tier(resources, scope, timer), _pending_read(resources, scope, body, timer)
    )
    if tier is None:
        raise unknown_user(scope)
    if log_read.named_found is False:
        raise _unknown_message(body.after_message)
    retrieve: Retrieve | None = None
    if tier is not Tier.HOT:
        await request_rehydration(resources, scope)
        with timer("archive"):
            snapshot, why_not = await read_archived(resources, scope, tier)
        if snapshot is None:
            return _without_memories(resources, body, tier, why_not, log_read)
        timeline = await resources.graph.for_user(scope.tenant_id, scope.user_id).decay_clock()
        retrieve = from_snapshot(snapshot, timeline)
    # CollectiveImprint is asked beside the user's graph (spec §3.4): one indexed lookup.
    lookup = asyncio.create_task(_collective(resources, scope, body.message, timer))
    try:
        outcome = await build_context(
            resources,
            scope,
            body.message,
            body.budget_tokens,
            body.mode,
            retrieve,
            pending=log_read.newest,
        )
        hints = await lookup
    finally:
        lookup.cancel()  # a no-op once done; stops the lookup when the context failed
    ctx = outcome.context
    if retrieve is None:  # the graph is in Neo4j (an archived one is read, not written)
        await _note_recalls(resources, scope, ctx.memories_used)
    for part, ms in outcome.timings_ms.items():
        timer.add(part, ms)
    response.headers["Server-Timing"] = timer.header()
    if outcome.pending.shown:
        log.info(
            "context.pending_included",
            user_id=user_id,
            shown=len(outcome.pending.shown),
            pending=log_read.backlog.pending,
        )
    return ContextResponse(
        context=ctx.text,
        language=ctx.language,
        mode=outcome.mode,
        fallback_reason=outcome.fallback_reason,
        tokens=ctx.tokens,
        memories=[
            MemoryUsed(
                id=m.id,
                type=m.type,
                content=m.content,
                score=m.score,
                sources=list(m.sources),
                recalled=m.recalled,
            )
            for m in ctx.memories_used
        ],
        collective_hints=hints(len(ctx.memories_used)),
        open_loop_questions=list(ctx.open_loop_questions),
        review=ReviewOut.of(ctx.review) if ctx.review else None,
        monthly_summary=ctx.summary_month,
        tier=tier,
        rehydrating=tier is not Tier.HOT,
        extraction=Extraction.of(log_read.backlog),
        pending_messages=_pending_out(outcome.pending),
        timings_ms={k: round(v, 2) for k, v in outcome.timings_ms.items()},
    )


async def _note_recalls(resources: Resources, scope: UserScope, used: Sequence[UsedMemory]) -> None:
    """Faded memories this context used are marked recalled (issue 32); the next sleep
    reinforces them. Best effort: a failed mark costs one reinforcement, never the answer."""
    recalled = [m.id for m in used if m.recalled]
    if not recalled:
        return
    try:
        store = resources.graph.for_user(scope.tenant_id, scope.user_id)
        await store.mark_recalled(recalled, resources.clock())
    except Exception as exc:
        log.warning("context.recall_not_noted", user_id=scope.user_id, error=str(exc))


async def _tier(resources: Resources, scope: UserScope, timer: ServerTiming) -> Tier | None:
    with timer("tier"):
        return await resources.accounts.get_tier(scope)


async def _pending_read(
    resources: Resources, scope: UserScope, body: ContextRequest, timer: ServerTiming
) -> PendingRead:
    """The backlog; with `after_message`, also the newest pending messages and whether the
    named one is the user's. Scoped to the user: another user's id is not found, and says so
    exactly as an id nobody sent."""
    config = resources.tuning.context
    named = body.after_message
    messages: MessageBacklogReader = resources.messages(scope)
    with timer("backlog"):
        return await messages.pending_read(
            named=named,
            newest=config.max_pending_messages if named is not None else 0,
            max_chars=readable_chars(body.budget_tokens, config),
        )


def _unknown_message(message_id: str | None) -> ApiError:
    return ApiError(
        422,
        "unknown_message",
        f"message {message_id!r} is not among this user's messages: post it first",
        [
            {
                "loc": ["body", "after_message"],
                "msg": "no message of this user has this id",
                "type": "unknown_message",
            }
        ],
    )


def _pending_out(block: PendingBlock) -> list[PendingMessageOut]:
    return [
        PendingMessageOut(id=m.id, sent_at=m.sent_at, text=m.text, truncated=m.truncated)
        for m in block.shown
    ]


async def _collective(
    resources: Resources, scope: UserScope, message: str, timer: ServerTiming
) -> Callable[[int], list[str]]:
    with timer("collective"):
        try:
            return await collective_hints(resources, scope, message, detect_language(message))
        except Exception as exc:  # a failed lookup costs the hints, not the context
            log.warning("context.collective_failed", error=str(exc)[:200])
            return lambda _served: []


def _without_memories(
    resources: Resources, body: ContextRequest, tier: Tier, why: str, log_read: PendingRead
) -> ContextResponse:
    """No memories can be read now; the messages not yet extracted still can."""
    outcome: ContextOutcome = pending_only_context(
        resources, body.message, body.budget_tokens, log_read.newest
    )
    return ContextResponse(
        context=outcome.context.text,
        language=outcome.context.language,
        mode=ContextMode.FAST,
        fallback_reason=f"the user's memory is in {tier.value} storage: {why}",
        tokens=outcome.context.tokens,
        memories=[],
        open_loop_questions=[],
        tier=tier,
        rehydrating=True,
        extraction=Extraction.of(log_read.backlog),
        pending_messages=_pending_out(outcome.pending),
        timings_ms={},
    )
