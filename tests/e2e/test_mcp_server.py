"""The MCP server (issue 36) through the official SDK's client, against the running stack:
every tool in process, then the same server over stdio (`selfimprint mcp`) and over
streamable HTTP behind its bearer token."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
import uvicorn
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from selfimprint.client import SelfImprintClient
from selfimprint.config import Settings
from selfimprint.domain.users import UserProfile
from selfimprint.mcp_server import McpConfig, build_server, http_app

pytestmark = pytest.mark.e2e

TOOLS = {"remember", "recall", "forget", "portrait", "correct"}


@pytest.fixture
async def user(stack_settings: Settings, tenant_key: str) -> AsyncIterator[str]:
    user_id = f"u-{uuid.uuid4().hex[:8]}"
    async with SelfImprintClient(stack_settings.api_url, tenant_key) as si:
        await si.put_user(user_id, UserProfile())
    yield user_id


def _data(result: Any) -> Any:
    assert not result.is_error, result.content
    return result.structured_content.get("result", result.structured_content)


async def _extracted(settings: Settings, key: str, user_id: str, timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    async with SelfImprintClient(settings.api_url, key) as si:
        while (await si.get_user(user_id))["extraction"]["pending"]:
            assert time.monotonic() < deadline, "messages still pending"
            await asyncio.sleep(1.0)


async def test_every_tool_acts_on_the_configured_users_memory(
    stack_settings: Settings, tenant_key: str, user: str
) -> None:
    server = build_server(McpConfig(stack_settings.api_url, tenant_key, user))
    async with Client(server) as client:
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS
        said = "My sister Lena moved to Porto last spring."
        first = _data(await client.call_tool("remember", {"text": said, "message_id": "m-1"}))
        assert first["stored"] and not first["duplicate"]
        again = _data(await client.call_tool("remember", {"text": said, "message_id": "m-1"}))
        assert again["duplicate"] and not again["stored"]
        # Read your writes: asked at once, the words are there, extracted or not yet.
        recalled = _data(
            await client.call_tool(
                "recall", {"message": "Where does Lena live?", "after_message": "m-1"}
            )
        )
        assert "Porto" in recalled["context"] + " ".join(recalled["not_yet_extracted"])

        await _extracted(stack_settings, tenant_key, user)
        shown = _data(await client.call_tool("portrait", {}))
        assert "Lena" in shown["portrait"]
        memory = next(m for m in shown["memories"] if "Porto" in m["content"])
        pinned = _data(
            await client.call_tool("correct", {"memory_id": memory["id"], "pinned": True})
        )
        assert pinned["id"] == memory["id"] and pinned["is_pinned"] is True
        refused = await client.call_tool("correct", {"memory_id": memory["id"]})
        assert refused.is_error and "empty_correction" in str(refused.content)

        plan = _data(await client.call_tool("forget", {"topic": "Porto"}))
        assert plan["dry_run"] is True
        assert memory["id"] in {m["id"] for m in plan["memories"]}
        kept = _data(await client.call_tool("portrait", {}))["memories"]
        assert memory["id"] in {m["id"] for m in kept}


async def test_stdio_serves_the_tools(stack_settings: Settings, tenant_key: str, user: str) -> None:
    command = Path(sys.executable).with_name("selfimprint")
    env = {
        **os.environ,
        "SELFIMPRINT_MCP_API_KEY": tenant_key,
        "SELFIMPRINT_MCP_USER": user,
    }
    params = StdioServerParameters(
        command=str(command), args=["mcp", "--api-url", stack_settings.api_url], env=env
    )
    async with Client(params) as client:
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS
        stored = _data(await client.call_tool("remember", {"text": "I play the cello."}))
        assert stored["stored"]


@contextmanager
def _serving(app: Any) -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the MCP app did not start"
        time.sleep(0.1)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(10)


async def test_streamable_http_needs_its_token(
    stack_settings: Settings, tenant_key: str, user: str
) -> None:
    server = build_server(McpConfig(stack_settings.api_url, tenant_key, user))
    with _serving(http_app(server, "s3cret")) as url:
        refused = httpx.post(url, json={}, headers={"Authorization": "Bearer wrong"})
        assert refused.status_code == 401
        headers = {"Authorization": "Bearer s3cret"}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                assert {t.name for t in (await client.list_tools()).tools} == TOOLS
                found = _data(await client.call_tool("recall", {"message": "What do I play?"}))
                assert found["language"]
