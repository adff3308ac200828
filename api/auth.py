"""Bearer API keys per tenant. Resolved keys are cached briefly so that the latency-critical
context call does not pay a database round trip for authentication every time."""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from api.errors import ApiError
from selfimprint.adapters.neo4j.accounts import Principal, hash_key

_bearer = HTTPBearer(auto_error=False, description="A tenant API key: `si_<tenant>_<secret>`")
CACHE_TTL_S = 30.0
_cache: dict[str, tuple[float, Principal]] = {}


async def principal(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Principal:
    if credentials is None or not credentials.credentials:
        raise ApiError(401, "unauthorized", "missing bearer API key")
    key = credentials.credentials
    digest = hash_key(key)
    hit = _cache.get(digest)
    now = time.monotonic()
    if hit is not None and now - hit[0] < CACHE_TTL_S:
        return hit[1]
    resolved: Principal | None = await request.app.state.resources.accounts.resolve(key)
    if resolved is None:
        raise ApiError(401, "unauthorized", "unknown or revoked API key")
    _cache[digest] = (now, resolved)
    return resolved


async def admin(who: Annotated[Principal, Depends(principal)]) -> Principal:
    if not who.admin:
        raise ApiError(403, "forbidden", "this endpoint needs an admin API key")
    return who


Caller = Annotated[Principal, Depends(principal)]
Admin = Annotated[Principal, Depends(admin)]
