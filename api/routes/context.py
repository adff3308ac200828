"""POST /context: what the assistant should know about this user before replying.

For a user whose graph is in warm or cold storage, the route asks the lifecycle to bring it back
and, within `context_archive_timeout_s`, answers from the encrypted archive read into memory.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from api.auth import Caller
from api.lifecycle import request_rehydration
from api.routes.common import UserId, resources_of, scope_of, unknown_user
from api.timing import ServerTiming
from selfimprint.domain.language import detect_language
from selfimprint.domain.messages import MessageText
from selfimprint.domain.models import NodeType
from selfimprint.domain.users import Tier
from selfimprint.logging import get_logger
from selfimprint.service.archive_read import from_snapshot, read_archived
from selfimprint.service.read_path import ContextMode, Retrieve, build_context

router = APIRouter(prefix="/v1/users", tags=["context"])
log = get_logger(__name__)


class ContextRequest(BaseModel):
    message: MessageText = Field(description="The user's latest message.")
    budget_tokens: Annotated[int, Field(ge=50, le=4000)] = 400
    mode: ContextMode = ContextMode.FAST


class MemoryUsed(BaseModel):
    id: str
    type: NodeType
    content: str
    score: float
    sources: list[str]


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
        default_factory=list, description="CollectiveImprint hints (none until it exists)."
    )
    open_loop_questions: list[str]
    tier: Tier = Field(description="Where the user's graph lives now.")
    rehydrating: bool = Field(
        False,
        description="The graph is in warm/cold storage and is being brought back. Its memories "
        "were read from the encrypted archive when that fit the time budget; otherwise this "
        "answer has none (see fallback_reason): ask again in a few seconds.",
    )
    timings_ms: dict[str, float]


@router.post("/{user_id}/context", response_model=ContextResponse)
async def post_context(
    user_id: UserId, body: ContextRequest, who: Caller, request: Request, response: Response
) -> ContextResponse:
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    timer = ServerTiming()
    with timer("tier"):
        tier = await resources.accounts.get_tier(scope)
    if tier is None:
        raise unknown_user(scope)
    retrieve: Retrieve | None = None
    if tier is not Tier.HOT:
        await request_rehydration(resources, scope)
        with timer("archive"):
            snapshot, why_not = await read_archived(resources, scope, tier)
        if snapshot is None:
            return _without_memories(body, tier, why_not)
        timeline = await resources.graph.for_user(scope.tenant_id, scope.user_id).decay_clock()
        retrieve = from_snapshot(snapshot, timeline)
    outcome = await build_context(
        resources, scope, body.message, body.budget_tokens, body.mode, retrieve
    )
    ctx = outcome.context
    for part, ms in outcome.timings_ms.items():
        timer.add(part, ms)
    response.headers["Server-Timing"] = timer.header()
    return ContextResponse(
        context=ctx.text,
        language=ctx.language,
        mode=outcome.mode,
        fallback_reason=outcome.fallback_reason,
        tokens=ctx.tokens,
        memories=[
            MemoryUsed(
                id=m.id, type=m.type, content=m.content, score=m.score, sources=list(m.sources)
            )
            for m in ctx.memories_used
        ],
        open_loop_questions=list(ctx.open_loop_questions),
        tier=tier,
        rehydrating=tier is not Tier.HOT,
        timings_ms={k: round(v, 2) for k, v in outcome.timings_ms.items()},
    )


def _without_memories(body: ContextRequest, tier: Tier, why: str) -> ContextResponse:
    return ContextResponse(
        context="",
        language=detect_language(body.message),
        mode=ContextMode.FAST,
        fallback_reason=f"the user's memory is in {tier.value} storage: {why}",
        tokens=0,
        memories=[],
        open_loop_questions=[],
        tier=tier,
        rehydrating=True,
        timings_ms={},
    )
