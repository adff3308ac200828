"""Users: create or update the profile that drives sleep scheduling and inference policy."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from api.auth import Caller
from api.errors import EVERY_ROUTE, UNKNOWN_USER, WITH_BODY, ApiError, documented
from api.lifecycle import signal_feedback, signal_profile
from api.resources import Resources
from api.routes.common import UserId, known_user, resources_of, scope_of
from api.routes.messages import Extraction
from selfimprint.domain.users import UserProfile, UserScope
from selfimprint.logging import get_logger
from selfimprint.ports import MessageBacklogReader
from selfimprint.service import summaries
from workflows.lifecycle_state import FeedbackReceived, ProfileChanged

router = APIRouter(prefix="/v1/users", tags=["users"])
log = get_logger(__name__)


class UserOut(BaseModel):
    user_id: str
    profile: UserProfile
    created: bool = False
    extraction: Extraction = Field(
        description="How many of the user's messages wait for extraction (issue 36)."
    )


@router.put("/{user_id}", response_model=UserOut, responses=documented(*EVERY_ROUTE, *WITH_BODY))
async def put_user(user_id: UserId, profile: UserProfile, who: Caller, request: Request) -> UserOut:
    """Create the user or replace its profile (idempotent): plan (free/paid), IANA time zone,
    language, medical-deployment flag."""
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    existed = await resources.accounts.get_profile(scope) is not None
    await resources.accounts.put_profile(scope, profile)
    try:
        await signal_profile(resources, scope, ProfileChanged(profile=profile))
    except Exception as exc:  # the profile is stored; the workflow reads it when it starts
        log.warning("lifecycle.signal_failed", user_id=user_id, error=str(exc))
    try:  # the monthly summary's schedule (spec §4); every PUT makes sure it exists
        await summaries.ensure_schedule(await resources.temporal(), resources.settings, scope)
    except Exception as exc:  # Temporal down: the profile is stored; the lifecycle creates it
        log.warning("summary.schedule_failed", user_id=user_id, error=str(exc))
    return UserOut(
        user_id=user_id,
        profile=profile,
        created=not existed,
        extraction=await _extraction(resources, scope),
    )


@router.get("/{user_id}", response_model=UserOut, responses=documented(*EVERY_ROUTE, UNKNOWN_USER))
async def get_user(user_id: UserId, who: Caller, request: Request) -> UserOut:
    """The profile, and `extraction`: how many of the user's messages wait for extraction
    (docs/api.md, "Read your writes")."""
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    profile = await known_user(resources, scope)
    return UserOut(user_id=user_id, profile=profile, extraction=await _extraction(resources, scope))


async def _extraction(resources: Resources, scope: UserScope) -> Extraction:
    messages: MessageBacklogReader = resources.messages(scope)
    return Extraction.of(await messages.backlog())


class FeedbackAccepted(BaseModel):
    id: str
    kind: str


@router.post(
    "/{user_id}/feedback",
    status_code=202,
    response_model=FeedbackAccepted,
    responses=documented(*EVERY_ROUTE, *WITH_BODY, UNKNOWN_USER),
)
async def post_feedback(
    user_id: UserId, feedback: FeedbackReceived, who: Caller, request: Request
) -> FeedbackAccepted:
    """The user says the assistant no longer understands them: `{id, kind: "not_understood"}`.

    Counted once per `id` until the next weekly compaction; with a high graph entropy it triggers a
    soft reset there (spec §3.9: keep pinned memories and the last 30 days, archive the rest;
    docs/operations.md). `202` once the user's lifecycle workflow has it durably."""
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    await known_user(resources, scope)
    try:
        await signal_feedback(resources, scope, feedback)
    except Exception as exc:
        log.warning("lifecycle.signal_failed", user_id=user_id, error=str(exc))
        raise ApiError(
            503, "orchestrator_unavailable", "feedback not recorded; retry the same call", {}
        ) from exc
    return FeedbackAccepted(id=feedback.id, kind=feedback.kind)
