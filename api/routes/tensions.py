"""The tensions log for the user (through the app): contradictions kept on the record,
unresolved until the user resolves one (epistemic-memory article; what a resolution writes is
`selfimprint.domain.tensions`)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Path, Request
from pydantic import BaseModel, Field

from api.auth import Caller
from api.errors import EVERY_ROUTE, UNKNOWN_USER, WITH_BODY, ApiError, documented
from api.routes.common import UserId, known_user, resources_of, scope_of
from selfimprint.domain.models import MAX_ID_CHARS, TensionKind, TensionStatus
from selfimprint.domain.tensions import (
    Keep,
    TensionAlreadyResolvedError,
    TensionRecord,
    TensionResolution,
)
from selfimprint.ports import UserGraphStore

router = APIRouter(prefix="/v1/users", tags=["tensions"])

TensionId = Annotated[
    str, Path(min_length=1, max_length=MAX_ID_CHARS, pattern=r"^[A-Za-z0-9_.:\-]+$")
]


class TensionSide(BaseModel):
    id: str
    content: str | None = Field(
        description="The memory's words; once decay has removed the memory, the words the "
        "tension kept (issue 33). None only for a tension stored before it kept them."
    )
    faded: bool = Field(
        False, description="The memory itself is gone (decay); the tension stays on the record."
    )


class ResolutionOut(BaseModel):
    keep: Keep
    resolved_at: datetime


class TensionOut(BaseModel):
    id: str
    kind: TensionKind = Field(
        description="contradiction: two of the user's statements; divergence: the user's answer "
        "about a memory against what their own messages showed (issue 33)."
    )
    status: TensionStatus
    detected_at: datetime
    note: str
    a: TensionSide = Field(
        description="contradiction: the newer statement; divergence: the memory."
    )
    b: TensionSide = Field(
        description="contradiction: the older statement it contradicts; divergence: the "
        "answer (its id is the answer's, not a memory's)."
    )
    resolution: ResolutionOut | None = Field(
        None, description="How the user resolved it (None while unresolved)."
    )


class TensionList(BaseModel):
    tensions: list[TensionOut]


def _out(record: TensionRecord, contents: dict[str, str]) -> TensionOut:
    tension, resolution = record.tension, record.resolution
    said_a, said_b = tension.sides(contents)
    # A divergence's side b is an answer, never a memory: it cannot fade.
    answer = tension.kind is TensionKind.DIVERGENCE
    return TensionOut(
        id=tension.id,
        kind=tension.kind,
        status=tension.status,
        detected_at=tension.detected_at,
        note=tension.note,
        a=TensionSide(id=tension.node_a, content=said_a, faded=tension.node_a not in contents),
        b=TensionSide(
            id=tension.node_b,
            content=said_b,
            faded=not answer and tension.node_b not in contents,
        ),
        resolution=(
            None
            if resolution is None
            else ResolutionOut(keep=resolution.keep, resolved_at=resolution.resolved_at)
        ),
    )


@router.get(
    "/{user_id}/tensions",
    response_model=TensionList,
    responses=documented(*EVERY_ROUTE, UNKNOWN_USER),
)
async def list_tensions(
    user_id: UserId, who: Caller, request: Request, status: TensionStatus | None = None
) -> TensionList:
    """The user's tensions, oldest first, with both sides' words: `?status=unresolved|resolved`
    (both when absent).

    Contradictions and divergences kept on the record: `id`, `kind` (`contradiction`: `a` the newer
    statement, `b` the older; `divergence`: `a` a memory, `b` the user's session-review answer that
    points against what their own messages showed, its `id` the answer's, never a memory's),
    `status`, `detected_at`, `note`, `a` and `b` as `{id, content, faded}`, `resolution` (`{keep,
    resolved_at}` once resolved). Unresolved until the user resolves one; nothing else resolves
    them. A tension keeps both sides' words: when decay and the sweeper remove a side's memory,
    `faded` is `true` and `content` is the words kept with the tension; only the user's own deletion
    (DELETE, forget, erase) takes a tension with its side."""
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    await known_user(resources, scope)
    store = resources.graph.for_user(scope.tenant_id, scope.user_id)
    return TensionList(tensions=await tensions_of(store, status))


async def tensions_of(
    store: UserGraphStore, status: TensionStatus | None = None
) -> list[TensionOut]:
    """The user's tensions as the API shows them, oldest first, both sides' words."""
    records = await store.tension_records(status)
    ids = sorted({i for r in records for i in (r.tension.node_a, r.tension.node_b)})
    contents = {n.id: n.content for n in await store.get_nodes(ids)}
    return [_out(r, contents) for r in records]


@router.post(
    "/{user_id}/tensions/{tension_id}/resolve",
    response_model=TensionOut,
    responses=documented(
        *EVERY_ROUTE,
        *WITH_BODY,
        UNKNOWN_USER,
        (404, "unknown_tension"),
        (409, "tension_already_resolved"),
    ),
)
async def resolve_tension(
    user_id: UserId,
    tension_id: TensionId,
    resolution: TensionResolution,
    who: Caller,
    request: Request,
) -> TensionOut:
    """Resolve a tension: `{keep: "a"|"b"|"both", note?}`.

    `a`/`b` keeps that side and marks the other wrong (as `PATCH {wrong: true}`: confidence 0,
    refuted, out of context), and the kept side gets one piece of self-report evidence; `both` only
    records the resolution. The same body again is `200` with the same answer; another body on a
    resolved tension is `409 tension_already_resolved`; `404 unknown_tension`. The portrait shows it
    `status:resolved` with the note."""
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    await known_user(resources, scope)
    store = resources.graph.for_user(scope.tenant_id, scope.user_id)
    try:
        record = await store.resolve_tension(
            tension_id, resolution, resources.clock(), resources.tuning.beliefs
        )
    except TensionAlreadyResolvedError as exc:
        raise ApiError(
            409,
            "tension_already_resolved",
            f"tension {tension_id!r} was already resolved otherwise",
        ) from exc
    if record is None:
        raise ApiError(404, "unknown_tension", f"tension {tension_id!r} does not exist")
    sides = [record.tension.node_a, record.tension.node_b]
    contents = {n.id: n.content for n in await store.get_nodes(sides)}
    return _out(record, contents)
