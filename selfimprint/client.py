"""The server's own callers of the HTTP API (the MCP server, the demo, benchmarks, tests) use the
client package `selfimprint_client` (clients/python) under the names they always had.

App backends install and import `selfimprint-client` itself; what this module adds is the one
thing that needs the server's domain: the portrait's text parsed back into entries.

async with SelfImprintClient("http://127.0.0.1:8000", api_key) as si:
    await si.put_user("alice", UserProfile(plan=Plan.PAID, time_zone="Europe/Berlin"))
    await si.post_messages("alice", [Message(...)])
    ctx = await si.context("alice", "how did the interview go?")
"""

from __future__ import annotations

from selfimprint_client import (
    Accepted,
    AsyncSelfImprint,
    Context,
    Extraction,
    PendingMessage,
    Review,
    UsedMemory,
)
from selfimprint_client import SelfImprintError as ApiError

from selfimprint.domain.portrait import PortraitEntry, parse_portrait

__all__ = [
    "Accepted",
    "ApiError",
    "Context",
    "Extraction",
    "PendingMessage",
    "Review",
    "SelfImprintClient",
    "UsedMemory",
]


class SelfImprintClient(AsyncSelfImprint):
    async def portrait_entries(self, user_id: str) -> tuple[PortraitEntry, ...]:
        """The portrait's beliefs, parsed: title, content, confidence and dates per entry."""
        return parse_portrait(await self.portrait(user_id))
