"""What the system believes about a user, for the user (through the app): browse, see why a
memory exists, correct it, pin it, mark it wrong, delete it, read the portrait ("mirror")."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel, Field

from api.auth import Caller
from api.errors import EVERY_ROUTE, UNKNOWN_USER, WITH_BODY, ApiError, documented
from api.routes.common import UserId, known_user, resources_of, scope_of
from api.routes.tensions import TensionOut, tensions_of
from selfimprint.domain.belief import BeliefConfig, effective_confidence
from selfimprint.domain.corrections import MemoryCorrection, apply_correction
from selfimprint.domain.decay import ActivityTimeline, is_expired, node_effective_weight
from selfimprint.domain.models import (
    MAX_ID_CHARS,
    EdgeType,
    EvidenceKind,
    HypothesisStatus,
    Node,
    NodeType,
    Permanence,
    Valence,
)
from selfimprint.domain.portrait import (
    PortraitEntry,
    entry_title,
    portrait_language,
    render_portrait,
    render_tensions,
)
from selfimprint.domain.users import Tier
from selfimprint.service.embedding_lane import embed_off_loop

router = APIRouter(prefix="/v1/users", tags=["memories"])
UNKNOWN_MEMORY = (404, "unknown_memory")

MemoryId = Annotated[
    str, Path(min_length=1, max_length=MAX_ID_CHARS, pattern=r"^[A-Za-z0-9_.:\-]+$")
]


class MemoryOut(BaseModel):
    id: str
    type: NodeType
    content: str
    valence: Valence | None = Field(None, description="positive | negative on an emotional_note.")
    status: HypothesisStatus = Field(description="active for ordinary memories")
    weight: float = Field(description="Effective (decayed) weight now.")
    confidence: float = Field(description="Effective (dormancy-decayed) confidence now.")
    permanence: Permanence
    evidence_kind: EvidenceKind
    confirmed_at: datetime | None = Field(
        None, description="Last time behaviour was consistent with it (epistemic article)."
    )
    challenged_at: datetime | None = Field(
        None, description="Last time something contradicted it (epistemic article)."
    )
    is_inference: bool
    is_pinned: bool
    created_at: datetime
    last_reinforced_at: datetime | None
    valid_until: datetime | None = Field(
        None,
        description="When a later statement of the user's ended what it says (a contradiction): "
        "kept as history, shown as past, never as current. null = current.",
    )
    faded: bool = Field(
        False,
        description="Decayed under the removal threshold: kept, out of the default context, "
        "recalled only when a question matches it strongly (recognition).",
    )
    sources: list[str] = Field(description="Ids of the messages this memory came from.")
    flagged: bool = Field(
        False,
        description="Mentioned more than the daily reinforcement limit on its latest day of "
        "mentions (spec §6): the extra mentions were ignored; worth a review.",
    )

    @staticmethod
    def of(
        node: Node,
        status: HypothesisStatus,
        now: datetime,
        timeline: ActivityTimeline,
        *,
        beliefs: BeliefConfig,
        flagged: bool = False,
    ) -> MemoryOut:
        return MemoryOut(
            id=node.id,
            type=node.type,
            content=node.content,
            valence=node.valence,
            status=status,
            weight=round(node_effective_weight(node, now, timeline=timeline), 4),
            confidence=round(effective_confidence(node.belief, now, beliefs), 4),
            permanence=node.belief.permanence,
            evidence_kind=node.belief.evidence_kind,
            confirmed_at=node.belief.confirmed_at,
            challenged_at=node.belief.challenged_at,
            is_inference=node.is_inference,
            is_pinned=node.is_pinned,
            created_at=node.created_at,
            last_reinforced_at=node.last_reinforced_at,
            valid_until=node.valid_until,
            faded=is_expired(node, now, timeline=timeline),
            sources=list(node.sources),
            flagged=flagged,
        )


class MemoryList(BaseModel):
    memories: list[MemoryOut]
    next_offset: int | None


class SourceMessage(BaseModel):
    id: str
    sent_at: datetime
    excerpt: str


class EdgeOut(BaseModel):
    type: EdgeType
    direction: str = Field(description="out: this memory -> other; in: other -> this memory")
    other_id: str
    other_content: str | None
    confidence: float
    is_inferred: bool


class MemoryDetail(BaseModel):
    memory: MemoryOut
    why: list[SourceMessage] = Field(description="The messages this memory came from.")
    edges: list[EdgeOut]


@router.get(
    "/{user_id}/memories",
    response_model=MemoryList,
    responses=documented(*EVERY_ROUTE, UNKNOWN_USER),
)
async def list_memories(
    user_id: UserId,
    who: Caller,
    request: Request,
    type: NodeType | None = None,  # noqa: A002 - the API's field name
    status: HypothesisStatus | None = None,
    archived: bool | None = None,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> MemoryList:
    """The user's memories: filters `type`, `status`, `archived`; paging `offset`/`limit` (fields as
    in `GET .../memories/{id}`)."""
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    await known_user(resources, scope)
    store = resources.graph.for_user(scope.tenant_id, scope.user_id)
    rows, timeline = await asyncio.gather(
        store.list_memories(
            type_=type, status=status, archived=archived, offset=offset, limit=limit + 1
        ),
        store.decay_clock(),
    )
    flagged = await store.flagged([n.id for n, _ in rows[:limit]])
    now = resources.clock()
    return MemoryList(
        memories=[
            MemoryOut.of(
                n, s, now, timeline, beliefs=resources.tuning.beliefs, flagged=n.id in flagged
            )
            for n, s in rows[:limit]
        ],
        next_offset=offset + limit if len(rows) > limit else None,
    )


async def _memory(request: Request, who: Caller, user_id: str, memory_id: str) -> Node:
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    await known_user(resources, scope)
    found = await resources.graph.for_user(scope.tenant_id, scope.user_id).get_nodes([memory_id])
    if not found:
        raise ApiError(404, "unknown_memory", f"memory {memory_id!r} does not exist")
    return found[0]


@router.get(
    "/{user_id}/memories/{memory_id}",
    response_model=MemoryDetail,
    responses=documented(*EVERY_ROUTE, UNKNOWN_USER, UNKNOWN_MEMORY),
)
async def get_memory(
    user_id: UserId, memory_id: MemoryId, who: Caller, request: Request
) -> MemoryDetail:
    """One memory with why it exists: its source messages and its edges.

    Memories carry `created_at` = when the user said it (their messages' `sent_at`), `weight` =
    effective now on the user's decay clock (it stands still after 7 idle days), `flagged` =
    mentioned more than 10 times on its latest day of mentions (the extra mentions were ignored),
    `valence` = positive / negative on an emotional note (null otherwise), `type` as the extractor
    read it (fact, event, emotional_note, person, open_loop; a user who disagrees corrects the
    content or marks it wrong), `valid_until` = when a later statement of the user's ended what it
    says (a contradiction: kept as history, shown in the context under "No longer true" with its end
    date, never as current; null = current), `faded` = decayed under the removal threshold (kept,
    out of the default context, brought back by a question that matches it strongly)."""
    node = await _memory(request, who, user_id, memory_id)
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    store = resources.graph.for_user(scope.tenant_id, scope.user_id)
    status, edges, messages, timeline, flagged = await asyncio.gather(
        store.status_of(memory_id),
        store.edges_of(memory_id),
        resources.messages(scope).get(list(node.sources)),
        store.decay_clock(),
        store.flagged([memory_id]),
    )
    others = {
        n.id: n
        for n in await store.get_nodes(
            [e.target_id if e.source_id == memory_id else e.source_id for e in edges]
        )
    }
    edges_out = []
    for edge in edges:
        outgoing = edge.source_id == memory_id
        other_id = edge.target_id if outgoing else edge.source_id
        other = others.get(other_id)
        edges_out.append(
            EdgeOut(
                type=edge.type,
                direction="out" if outgoing else "in",
                other_id=other_id,
                other_content=other.content if other else None,
                confidence=edge.confidence,
                is_inferred=edge.is_inferred,
            )
        )
    return MemoryDetail(
        memory=MemoryOut.of(
            node,
            status or HypothesisStatus.ACTIVE,
            resources.clock(),
            timeline,
            beliefs=resources.tuning.beliefs,
            flagged=memory_id in flagged,
        ),
        why=[SourceMessage(id=m.id, sent_at=m.sent_at, excerpt=m.text[:280]) for m in messages],
        edges=edges_out,
    )


@router.patch(
    "/{user_id}/memories/{memory_id}",
    response_model=MemoryOut,
    responses=documented(
        *EVERY_ROUTE, *WITH_BODY, UNKNOWN_USER, UNKNOWN_MEMORY, (422, "empty_correction")
    ),
)
async def patch_memory(
    user_id: UserId,
    memory_id: MemoryId,
    correction: MemoryCorrection,
    who: Caller,
    request: Request,
) -> MemoryOut:
    """Correct a memory: `{content}` corrects it, `{pinned: true|false}` pins or unpins it,
    `{wrong: true}` marks it wrong (refuted: out of context)."""
    if correction.content is None and correction.pinned is None and correction.wrong is None:
        raise ApiError(422, "empty_correction", "give at least one of content, pinned, wrong")
    if correction.wrong is False:
        raise ApiError(422, "invalid_request", "wrong can only be set to true")
    node = await _memory(request, who, user_id, memory_id)
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    now = resources.clock()
    store = resources.graph.for_user(scope.tenant_id, scope.user_id)
    timeline = await store.decay_clock()
    embedding = None
    if correction.content is not None and correction.content != node.content:
        vector = await embed_off_loop(
            resources.embedder.embed_passages,
            [correction.content],
            resources.settings.api_embed_threads,
        )
        embedding = tuple(vector[0])
    fixed = apply_correction(
        node,
        correction,
        now,
        embedding=embedding,
        embedding_model=resources.embedder.model_id if embedding else None,
        timeline=timeline,
    )
    await store.upsert([fixed])
    if correction.wrong:
        await store.set_status(memory_id, HypothesisStatus.REFUTED)
    status = await store.status_of(memory_id) or HypothesisStatus.ACTIVE
    return MemoryOut.of(fixed, status, now, timeline, beliefs=resources.tuning.beliefs)


@router.delete(
    "/{user_id}/memories/{memory_id}",
    status_code=204,
    response_class=Response,
    responses=documented(*EVERY_ROUTE, UNKNOWN_USER, (409, "graph_archived")),
)
async def delete_memory(
    user_id: UserId, memory_id: MemoryId, who: Caller, request: Request
) -> Response:
    """Delete this one memory: the memory, its edges, the tensions that name it, its place in
    hypotheses' evidence, the scheduled triggers / open-loop questions / patterns citing it,
    its item in a session review (the others stay answerable; a review left empty goes) and its
    entries in monthly summaries (rewritten without them, text rendered again).

    `204`, and `204` for a memory that is already gone for any reason (a retry, a forget, the
    sweeper, a merge, or an id the user never had: DELETE is idempotent, and only the user's own
    graph is touched); `409 graph_archived` while the user's graph is warm or cold (a context
    request rehydrates it; retry). It stays deleted: a retried extraction of its messages does not
    write it again; saying the same thing later is a new memory."""
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    await known_user(resources, scope)
    store = resources.graph.for_user(scope.tenant_id, scope.user_id)
    if await store.delete_memory(memory_id, now=resources.clock()):
        return Response(status_code=204)
    if await resources.accounts.get_tier(scope) not in (None, Tier.HOT):
        # The graph is in S3: rehydrate it (any context request does) and delete then.
        raise ApiError(
            409, "graph_archived", "the user's memory is archived; request context and retry"
        )
    return Response(status_code=204)


class PortraitJson(BaseModel):
    """The portrait for an app to act on (`Accept: application/json`): every memory the system
    holds about the user (events included) with its id, so an entry can be corrected
    (`PATCH .../memories/{id}`) or deleted, and the tensions log."""

    memories: list[MemoryOut]
    tensions: list[TensionOut] = Field(description="Every tension, oldest first.")
    next_offset: int | None = Field(description="The next page of memories; null on the last.")


def _wants_json(accept: str) -> bool:
    """Content negotiation between the two forms: JSON when the client ranks it above text."""
    ranks: dict[str, float] = {}
    for part in accept.split(","):
        kind, *params = (p.strip() for p in part.split(";"))
        q = 1.0
        for param in params:
            if param.startswith("q="):
                try:
                    q = float(param[2:])
                except ValueError:
                    q = 0.0
        ranks[kind.lower()] = max(q, ranks.get(kind.lower(), 0.0))
    json_q = ranks.get("application/json", 0.0)
    text_q = max(ranks.get("text/plain", 0.0), ranks.get("text/*", 0.0), ranks.get("*/*", 0.0))
    return json_q > 0.0 and json_q >= text_q


@router.get(
    "/{user_id}/portrait",
    responses={
        200: {
            "model": PortraitJson,
            "description": "text/plain: the block format for people; application/json (by "
            "`Accept`): the same as data, paginated.",
            "content": {"text/plain": {"schema": {"type": "string"}}},
        },
        **documented(*EVERY_ROUTE, UNKNOWN_USER),
    },
)
async def portrait(
    user_id: UserId,
    who: Caller,
    request: Request,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 200,
) -> Response:
    """The user's memory portrait ("mirror") in the epistemic-memory block format, with the tensions
    log: what the system believes, how sure it is, and since when (`text/plain`, the default).

    With `Accept: application/json` (ranked at least as high as text), the same as data an app can
    act on (`PortraitJson`): `memories` (every memory the list endpoint shows, events included, each
    with its `id` to correct or delete it, its type, dates, `valid_until`, confidence, permanence,
    `faded`), `tensions` (as `GET .../tensions`) and `next_offset`; `?offset=0&limit=200` (1..500)
    page the memories (the text form shows the first `limit` beliefs)."""
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    profile = await known_user(resources, scope)
    store = resources.graph.for_user(scope.tenant_id, scope.user_id)
    if _wants_json(request.headers.get("accept", "")):
        rows, timeline = await asyncio.gather(
            store.list_memories(archived=False, offset=offset, limit=limit + 1),
            store.decay_clock(),
        )
        flagged = await store.flagged([n.id for n, _ in rows[:limit]])
        now = resources.clock()
        body = PortraitJson(
            memories=[
                MemoryOut.of(
                    n, s, now, timeline, beliefs=resources.tuning.beliefs, flagged=n.id in flagged
                )
                for n, s in rows[:limit]
            ],
            tensions=await tensions_of(store),
            next_offset=offset + limit if len(rows) > limit else None,
        )
        return JSONResponse(body.model_dump(mode="json"))
    rows = await store.list_memories(archived=False, offset=offset, limit=limit)
    now = resources.clock()
    language = portrait_language((n.content for n, _ in rows), profile.language)
    entries = [
        PortraitEntry.from_belief(
            entry_title(node.type, node.content, language),
            node.content,
            node.belief,
            confidence=effective_confidence(node.belief, now, resources.tuning.beliefs),
            tz=profile.zone,
            valid_until=node.valid_until,
        )
        for node, _ in rows
        if node.type is not NodeType.EVENT
    ]
    tensions = await store.tensions()
    contents = {n.id: n.content for n, _ in rows}
    # A side the user marked wrong (resolving the tension) is out of `rows`: show its words.
    unseen = sorted({i for t in tensions for i in (t.node_a, t.node_b)} - contents.keys())
    contents |= {n.id: n.content for n in await store.get_nodes(unseen)}
    text = render_portrait(entries)
    if tensions:
        # render_tensions opens with its own heading.
        text += "\n\n" + render_tensions(tensions, contents, tz=profile.zone, language=language)
    return PlainTextResponse(text)
