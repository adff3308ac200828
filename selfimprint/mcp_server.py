"""SelfImprint as an MCP server: the memory of one user as tools an agent can call (issue 36).

Tools: `remember` (store what the user said), `recall` (the context for a reply), `forget` (a
topic, dry run first), `portrait` (what is believed, with memory ids) and `correct` (a memory's
content, pin, or "wrong"). The server speaks for one user of one tenant, fixed by configuration
(the tenant's API key and the user id), never by a tool argument: a model that calls the tools
cannot reach another user's memory. It talks to the HTTP API with the Python client, so every
rule of the API (validation, idempotency, read your writes) holds here too.

    SELFIMPRINT_MCP_API_KEY=si_... SELFIMPRINT_MCP_USER=alice selfimprint mcp            # stdio
    ... selfimprint mcp --http --port 8765   # streamable HTTP at http://127.0.0.1:8765/mcp

Over HTTP, `SELFIMPRINT_MCP_HTTP_TOKEN` (when set) must come as `Authorization: Bearer ...`;
without one, bind it to a loopback address only (the default).
"""

from __future__ import annotations

import hmac
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from starlette.types import ASGIApp, Receive, Scope, Send

from selfimprint.client import ApiError, SelfImprintClient
from selfimprint.domain.messages import Message, Role

# How many message ids `remember` keeps the first time of, for retries.
REMEMBERED_IDS = 4096
INSTRUCTIONS = (
    "Long-term memory of the user you are talking with. Call `recall` with the user's message "
    "before you reply and use what it returns as background; call `remember` with each message "
    "the user sends. `portrait` shows what is believed about the user, with ids; `correct` and "
    "`forget` change it only when the user asks."
)


@dataclass(frozen=True)
class McpConfig:
    api_url: str
    api_key: str
    user_id: str
    timeout_s: float = 30.0


def build_server(config: McpConfig, transport: httpx.AsyncBaseTransport | None = None) -> MCPServer:
    """The MCP server for `config`'s user; `transport`: the API in process (tests)."""
    server = MCPServer(name="selfimprint", instructions=INSTRUCTIONS)
    user = config.user_id

    @asynccontextmanager
    async def api() -> AsyncIterator[SelfImprintClient]:
        client = SelfImprintClient(
            config.api_url, config.api_key, timeout_s=config.timeout_s, transport=transport
        )
        try:
            yield client
        except ApiError as exc:  # the model reads this: say what was wrong, not a traceback
            raise ToolError(f"{exc.code}: {exc.message}") from exc
        finally:
            await client.close()

    # message id -> the time it was first stored: a retried `remember` re-sends the same
    # message (the API answers a duplicate), not a conflicting one with a later time.
    sent: OrderedDict[str, datetime] = OrderedDict()

    @server.tool()
    async def remember(
        text: str, message_id: str | None = None, sent_at: datetime | None = None
    ) -> dict[str, Any]:
        """Store a message the user sent, in their words, for extraction into memory. Give
        `message_id` (your chat's id for it) to make retries safe: the same id is stored once.
        `sent_at`: when the user sent it (default: now)."""
        id_ = message_id or f"mcp-{uuid.uuid4().hex}"
        when = sent_at or sent.get(id_) or datetime.now(UTC)
        message = Message(id=id_, role=Role.USER, text=text, sent_at=when)
        async with api() as si:
            accepted = await si.post_messages(user, [message])
        sent[id_] = when
        while len(sent) > REMEMBERED_IDS:
            sent.popitem(last=False)
        return {
            "message_id": message.id,
            "stored": accepted.accepted == 1,
            "duplicate": accepted.duplicates == 1,
            "pending_extraction": accepted.extraction.pending,
        }

    @server.tool()
    async def recall(
        message: str, budget_tokens: int = 400, after_message: str | None = None
    ) -> dict[str, Any]:
        """What is remembered about the user that bears on `message`: a short context in the
        user's language to reply with, and the memories it holds (ids, types). `after_message`:
        the id `remember` returned last; messages not extracted yet are then included."""
        async with api() as si:
            found = await si.context(
                user, message, budget_tokens=budget_tokens, after_message=after_message
            )
        return {
            "context": found.context,
            "language": found.language,
            "memories": [
                {"id": m.id, "type": m.type, "content": m.content} for m in found.memories
            ],
            "not_yet_extracted": [p.text for p in found.pending_messages],
        }

    @server.tool()
    async def forget(topic: str, dry_run: bool = True) -> dict[str, Any]:
        """Forget everything about `topic` (the user asked to). `dry_run` (the default) only lists
        what would go; call again with `dry_run: false` once the user agrees."""
        async with api() as si:
            return await si.forget(user, topic, dry_run=dry_run)

    @server.tool()
    async def portrait(limit: int = 100) -> dict[str, Any]:
        """What is believed about the user, how sure, and since when (`portrait`, the text the
        user is shown), and up to `limit` memories with the ids `correct` takes."""
        async with api() as si:
            text = await si.portrait(user)
            data = await si.portrait_data(user, limit=limit)
        return {
            "portrait": text,
            "memories": [
                {"id": m["id"], "type": m["type"], "content": m["content"]}
                for m in data["memories"]
            ],
        }

    @server.tool()
    async def correct(
        memory_id: str,
        content: str | None = None,
        wrong: bool | None = None,
        pinned: bool | None = None,
    ) -> dict[str, Any]:
        """Correct one memory as the user asked: new `content`, `wrong: true` (it is not true:
        out of every context), or `pinned` (never fades) true or false."""
        async with api() as si:
            return await si.patch_memory(
                user, memory_id, content=content, wrong=wrong, pinned=pinned
            )

    return server


class BearerToken:
    """Streamable HTTP behind a shared token: anything else is a 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers", [])).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"application/json")],
                    }
                )
                await send({"type": "http.response.body", "body": b'{"error": "unauthorized"}'})
                return
        await self.app(scope, receive, send)


def http_app(server: MCPServer, token: str | None) -> ASGIApp:
    """The streamable HTTP app at /mcp, behind `token` when given."""
    app: ASGIApp = server.streamable_http_app(streamable_http_path="/mcp")
    return BearerToken(app, token) if token else app
