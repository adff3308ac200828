"""`selfimprint mcp`: serve one user's memory as MCP tools (selfimprint/mcp_server.py)."""

from __future__ import annotations

import os

import typer
import uvicorn

from selfimprint.config import Settings
from selfimprint.mcp_server import McpConfig, build_server, http_app


def _required(name: str) -> str:
    value = os.environ.get(name, "")
    if not value:
        raise typer.BadParameter(f"set {name}")
    return value


def mcp(
    http: bool = typer.Option(False, "--http", help="streamable HTTP at /mcp, not stdio"),
    host: str = typer.Option("127.0.0.1", help="with --http: the address to bind"),
    port: int = typer.Option(8765, help="with --http: the port"),
    api_url: str = typer.Option("", help="the SelfImprint API (default: the local stack's)"),
) -> None:
    """Serve SELFIMPRINT_MCP_USER's memory (tenant of SELFIMPRINT_MCP_API_KEY) as MCP tools:
    remember, recall, forget, portrait, correct. Over HTTP, SELFIMPRINT_MCP_HTTP_TOKEN, when set,
    is required as a bearer token."""
    config = McpConfig(
        api_url=api_url or Settings().api_url,
        api_key=_required("SELFIMPRINT_MCP_API_KEY"),
        user_id=_required("SELFIMPRINT_MCP_USER"),
    )
    server = build_server(config)
    if not http:
        server.run("stdio")
        return
    token = os.environ.get("SELFIMPRINT_MCP_HTTP_TOKEN") or None
    uvicorn.run(http_app(server, token), host=host, port=port, log_level="warning")
