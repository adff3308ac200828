"""POST /context: what the assistant should know about this user before replying.

For a user whose graph is in warm or cold storage, the route asks the lifecycle to bring it back
and, within `context_archive_timeout_s`, answers from the encrypted archive read into memory.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from api.auth import Caller
from api.lifecycle import request_rehydration
from api.read_path import ContextMode, Retrieve, build_context
from api.resources import Resources
from api.routes.common import UserId, resources_of, scope_of, unknown_user
from api.timing import ServerTiming
from selfimprint.adapters.snapshot_retrieval import retrieve_from_snapshot
from selfimprint.domain.decay import ActivityTimeline
from selfimprint.domain.language import detect_language
from selfimprint.domain.messages import MessageText
from selfimprint.domain.models import NodeType
from selfimprint.domain.users import Tier, UserScope
from selfimprint.logging import get_logger
from selfimprint.ports import GraphSnapshot, RetrievalQuery, RetrievalResult

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
        retrieve = _from_snapshot(snapshot, timeline)
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


def _from_snapshot(snapshot: GraphSnapshot, timeline: ActivityTimeline) -> Retrieve:
    async def retrieve(query: RetrievalQuery) -> RetrievalResult:
        return await asyncio.to_thread(retrieve_from_snapshot, snapshot, query, timeline)

    return retrieve


# Archive reads decode in worker threads that a timeout cannot stop: a few at a time per API
# process, and a request that finds them all busy is answered without memories at once.
MAX_ARCHIVE_READS = 2
_archive_reads = asyncio.Semaphore(MAX_ARCHIVE_READS)


async def read_archived(
    resources: Resources, scope: UserScope, tier: Tier
) -> tuple[GraphSnapshot | None, str]:
    """The user's graph from their warm/cold object, within the configured time and size, or
    None and why not. The object may vanish under us (the rehydration finished): that is fine."""
    settings = resources.settings
    if settings.context_archive_timeout_s <= 0:
        return None, "reading the archive on the context path is switched off"
    if _archive_reads.locked():
        return None, "other archive reads are in progress on this server"
    async with _archive_reads:
        try:
            return await asyncio.wait_for(
                _read(resources, scope, tier), settings.context_archive_timeout_s
            )
        except TimeoutError:
            return None, f"reading it took over {settings.context_archive_timeout_s:g} s"
        except Exception as exc:  # any storage failure degrades to a context without memories
            log.warning("context.archive_read_failed", user_id=scope.user_id, error=str(exc)[:200])
            return None, f"it could not be read ({type(exc).__name__})"


async def _read(
    resources: Resources, scope: UserScope, tier: Tier
) -> tuple[GraphSnapshot | None, str]:
    archive = await asyncio.to_thread(resources.archive)  # first use builds boto3 and the keys
    head = await asyncio.to_thread(archive.head, scope.tenant_id, scope.user_id, tier)
    if head is None:
        return None, "no archived graph found (it may have just come back: ask again)"
    if head.nodes > resources.settings.context_archive_max_nodes:
        return None, f"{head.nodes} memories: too many to read on the context path"
    read = await asyncio.to_thread(archive.read, scope.tenant_id, scope.user_id, tier)
    return read.snapshot, ""
