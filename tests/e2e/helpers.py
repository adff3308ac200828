"""Helpers for the end-to-end tests: the scripted conversation and polling the lifecycle."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from selfimprint.adapters.neo4j.message_log import ExtractionState, MessageLogs
from selfimprint.domain.messages import Message
from selfimprint.domain.users import UserScope

DATA = Path(__file__).resolve().parents[1] / "data"


def scripted_conversation() -> list[Message]:
    raw: dict[str, Any] = json.loads((DATA / "conversation_interview.json").read_text())
    return [Message.model_validate(m) for m in raw["messages"]]


async def wait_extracted(
    logs: MessageLogs, scope: UserScope, timeout_s: float = 600.0
) -> dict[str, int]:
    """Wait until no message of the user is pending; returns the count per extraction state."""
    deadline = time.monotonic() + timeout_s
    log = logs.for_user(scope)
    while True:
        if not await log.pending(limit=1):
            return {state.value: await _count(log, state) for state in ExtractionState}
        if time.monotonic() > deadline:
            raise TimeoutError(f"messages still pending after {timeout_s:.0f}s")
        await asyncio.sleep(1.0)


async def _count(log: Any, state: ExtractionState) -> int:
    return int(await log.count_in_state(state))
