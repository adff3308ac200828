"""Users: create or update the profile that drives sleep scheduling and inference policy."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel

from api.auth import Caller
from api.lifecycle import signal_profile
from api.routes.common import UserId, known_user, resources_of, scope_of
from selfimprint.domain.users import UserProfile
from selfimprint.logging import get_logger
from workflows.user_lifecycle import ProfileChanged

router = APIRouter(prefix="/v1/users", tags=["users"])
log = get_logger(__name__)


class UserOut(BaseModel):
    user_id: str
    profile: UserProfile
    created: bool = False


@router.put("/{user_id}", response_model=UserOut)
async def put_user(user_id: UserId, profile: UserProfile, who: Caller, request: Request) -> UserOut:
    """Create the user or replace its profile (idempotent)."""
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    existed = await resources.accounts.get_profile(scope) is not None
    await resources.accounts.put_profile(scope, profile)
    try:
        await signal_profile(resources, scope, ProfileChanged(profile=profile))
    except Exception as exc:  # the profile is stored; the workflow reads it when it starts
        log.warning("lifecycle.signal_failed", user_id=user_id, error=str(exc))
    return UserOut(user_id=user_id, profile=profile, created=not existed)


@router.get("/{user_id}", response_model=UserOut)
async def get_user(user_id: UserId, who: Caller, request: Request) -> UserOut:
    resources = resources_of(request)
    profile = await known_user(resources, scope_of(who, user_id))
    return UserOut(user_id=user_id, profile=profile)
