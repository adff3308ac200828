"""Helpers for the end-to-end tests: the scripted conversation and polling the lifecycle."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from temporalio.common import WorkflowIDReusePolicy

from activities.tiers import TierMoveInput, TierMoveOutcome
from selfimprint.adapters.neo4j import open_driver
from selfimprint.adapters.neo4j.message_log import ExtractionState, MessageLogs
from selfimprint.adapters.temporal import connect
from selfimprint.client import SelfImprintClient
from selfimprint.config import Settings
from selfimprint.devstack import stack
from selfimprint.domain.messages import Message
from selfimprint.domain.users import Tier, UserScope
from workflows.ids import lifecycle_workflow_id
from workflows.tiers import TierMoveWorkflow, tier_workflow_id

DATA = Path(__file__).resolve().parents[1] / "data"


def scripted_conversation() -> list[Message]:
    raw: dict[str, Any] = json.loads((DATA / "conversation_interview.json").read_text())
    return [Message.model_validate(m) for m in raw["messages"]]


async def wait_extracted(
    logs: MessageLogs, scope: UserScope, timeout_s: float = 600.0
) -> dict[str, int]:
    """Wait until no message of the user is pending; returns the count per extraction state.
    On timeout the error says what the user's lifecycle was doing and ends the workers' logs
    (`STACK`, set by the stack fixture), so a hang in CI can be read after the run."""
    deadline = time.monotonic() + timeout_s
    log = logs.for_user(scope)
    while True:
        if not await log.pending(limit=1):
            return {state.value: await _count(log, state) for state in ExtractionState}
        if time.monotonic() > deadline:
            pending = await log.pending()
            raise TimeoutError(
                f"messages still pending after {timeout_s:.0f}s: {pending}\n"
                + await _diagnosis(scope)
            )
        await asyncio.sleep(1.0)


async def tell(
    settings: Settings, client: SelfImprintClient, scope: UserScope, messages: list[Message]
) -> list[dict[str, Any]]:
    """Post the user's messages through the API, wait until they are extracted, and return the
    user's memories as the API lists them."""
    driver = open_driver(settings)
    try:
        await client.post_messages(scope.user_id, messages)
        await wait_extracted(MessageLogs(driver, settings.neo4j_database), scope, 300)
    finally:
        await driver.close()
    return await client.memories(scope.user_id)


# The session's stack, for the diagnosis of a lifecycle that never extracted (tests/conftest).
STACK: list[Settings] = []


async def _diagnosis(scope: UserScope) -> str:
    if not STACK:
        return "(no stack to diagnose)"
    settings = STACK[0]
    lines = []
    try:
        client = await connect(settings)
        handle = client.get_workflow_handle(lifecycle_workflow_id(scope.tenant_id, scope.user_id))
        described = await handle.describe()
        raw = described.raw_description
        status = described.status.name if described.status else "unknown"
        lines.append(f"lifecycle {handle.id}: {status}")
        lines += [
            f"  pending activity {a.activity_type.name} attempt {a.attempt} "
            f"state {a.state} last failure {a.last_failure.message[:200]!r}"
            for a in raw.pending_activities
        ]
        lines.append(f"  pending workflow task: {raw.HasField('pending_workflow_task')}")
    except Exception as exc:  # the diagnosis must not hide the timeout
        lines.append(f"lifecycle not described: {exc!r}")
    for name in ("api", "worker-cpu", "worker-gpu"):
        path = stack.log_path(settings, name)
        tail = path.read_text(errors="replace").splitlines()[-40:] if path.exists() else []
        lines.append(f"--- {path} (last {len(tail)} lines)")
        lines += tail
    return "\n".join(lines)


async def _count(log: Any, state: ExtractionState) -> int:
    return int(await log.count_in_state(state))


async def move_tier(settings: Settings, scope: UserScope, target: Tier) -> TierMoveOutcome:
    """Run the user's tier move now, as the lifecycle would after idle days."""
    temporal = await connect(settings)
    return await temporal.execute_workflow(
        TierMoveWorkflow.run,
        TierMoveInput(tenant_id=scope.tenant_id, user_id=scope.user_id, target=target),
        id=tier_workflow_id(scope.tenant_id, scope.user_id),
        task_queue=settings.task_queue_cpu,
        id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
    )
