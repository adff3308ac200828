"""Monthly summaries (spec §3.5, §4): what the system remembers, as the user is shown it once a
month. Written by the user's monthly schedule; handing one out marks it seen."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from pydantic import BaseModel, Field

from api.auth import Caller
from api.errors import EVERY_ROUTE, UNKNOWN_USER, ApiError, documented
from api.routes.common import UserId, known_user, resources_of, scope_of
from selfimprint.domain.monthly_summary import MONTH_PATTERN, MonthlySummary
from selfimprint.service import summaries

router = APIRouter(prefix="/v1/users", tags=["summaries"])

SummaryMonth = Annotated[
    str, Path(pattern=MONTH_PATTERN, description="The month summarised, YYYY-MM.")
]
MAX_LISTED = 60  # five years of months


class SummaryOut(BaseModel):
    summary: MonthlySummary
    seen_at: datetime | None = Field(description="When it was first handed out.")


class SummariesOut(BaseModel):
    summaries: list[SummaryOut]


@router.get(
    "/{user_id}/summaries",
    response_model=SummariesOut,
    responses=documented(*EVERY_ROUTE, UNKNOWN_USER),
)
async def list_summaries(
    user_id: UserId,
    who: Caller,
    request: Request,
    limit: Annotated[int, Query(ge=1, le=MAX_LISTED)] = 12,
) -> SummariesOut:
    """The user's monthly summaries (spec §4), newest month first: `?limit=1..60` (12), each
    `{summary, seen_at}`.

    A summary: `month` (YYYY-MM, in the user's time zone), `status` `produced` or `skipped`
    (`skip_reason: graph_archived`: the graph was warm or cold that month), `language`, `hypotheses`
    (active, with confidence), `significant`, `assumptions` (the least sure beliefs), `tensions`
    (unresolved, both sides), each entry with the `memory_id` to correct (`PATCH .../memories/{id}`)
    or flag wrong; `counts` (`memories`, `added`, `forgotten`: net since the previous summary, null
    without one), and `text`, ready to show. Handing one out marks it seen (`seen_at`)."""
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    await known_user(resources, scope)
    found = await summaries.read_summaries(resources.graph, scope, limit, resources.clock())
    return SummariesOut(summaries=[SummaryOut(summary=s.summary, seen_at=s.seen_at) for s in found])


@router.get(
    "/{user_id}/summaries/{month}",
    response_model=SummaryOut,
    responses=documented(*EVERY_ROUTE, UNKNOWN_USER, (404, "summary_not_found")),
)
async def get_summary(
    user_id: UserId, month: SummaryMonth, who: Caller, request: Request
) -> SummaryOut:
    """One month's summary (marks it seen); `404 summary_not_found`; a month not written `YYYY-MM`
    is `422 invalid_request`."""
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    await known_user(resources, scope)
    found = await summaries.read_summary(resources.graph, scope, month, resources.clock())
    if found is None:
        raise ApiError(404, "summary_not_found", f"no summary for {month}", {"month": month})
    return SummaryOut(summary=found.summary, seen_at=found.seen_at)
