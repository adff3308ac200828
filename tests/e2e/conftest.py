"""The API client every end-to-end test talks through, bound to the session's stack and tenant."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from selfimprint.client import SelfImprintClient
from selfimprint.config import Settings

# Long enough for a request that waits on extraction or erasure on 2 cores under the full suite.
CLIENT_TIMEOUT_S = 180


@pytest.fixture
async def client(stack_settings: Settings, tenant_key: str) -> AsyncIterator[SelfImprintClient]:
    async with SelfImprintClient(
        stack_settings.api_url, tenant_key, timeout_s=CLIENT_TIMEOUT_S
    ) as si:
        yield si
