"""Path parameters and lookups shared by the user-scoped routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Request

from api.errors import ApiError
from api.notifier import LifecycleNotifier
from api.resources import Resources
from selfimprint.adapters.neo4j.accounts import Principal
from selfimprint.domain.models import MAX_ID_CHARS
from selfimprint.domain.users import UserProfile, UserScope

UserId = Annotated[
    str,
    Path(
        min_length=1,
        max_length=MAX_ID_CHARS,
        pattern=r"^[A-Za-z0-9_.:\-]+$",
        description="The app's user id (letters, digits, _ . : -), scoped by tenant.",
    ),
]


def resources_of(request: Request) -> Resources:
    resources: Resources = request.app.state.resources
    return resources


def notifier_of(request: Request) -> LifecycleNotifier:
    notifier: LifecycleNotifier = request.app.state.notifier
    return notifier


def scope_of(who: Principal, user_id: str) -> UserScope:
    return UserScope(who.tenant_id, user_id)


async def known_user(resources: Resources, scope: UserScope) -> UserProfile:
    """The user's profile; a user another tenant owns is simply unknown here (404)."""
    profile = await resources.accounts.get_profile(scope)
    if profile is None:
        raise unknown_user(scope)
    return profile


def unknown_user(scope: UserScope) -> ApiError:
    return ApiError(404, "unknown_user", f"user {scope.user_id!r} does not exist: PUT it first")
