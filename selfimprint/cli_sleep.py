"""`selfimprint sleep run|status|retry|soft-reset <user> --tenant T`: operate a user's sleep phase.

All three talk to the user's lifecycle workflow (`user-{tenant}-{user}`) through Temporal:
`status` queries its state, `run` and `retry` send the `request_sleep` update (a retry is a new
pass with a new run id: each operation is idempotent and journalled, so nothing is written
twice). `--wait` polls the state until the requested pass has an outcome. `soft-reset` sends
`request_soft_reset` (spec §3.9: keep pinned memories and the last 30 days, archive the rest).
"""

from __future__ import annotations

import asyncio
import time

import typer
from temporalio.client import WorkflowUpdateFailedError
from temporalio.service import RPCError

from selfimprint.adapters.temporal import connect
from selfimprint.config import Settings
from selfimprint.domain.sleep_policy import Depth
from workflows.user_lifecycle import (
    LifecycleState,
    SleepRequest,
    SoftResetRequest,
    UserLifecycleWorkflow,
    workflow_id,
)

sleep_app = typer.Typer(no_args_is_help=True, help="A user's sleep phase (lifecycle workflow).")

TENANT = typer.Option(..., "--tenant", "-t", help="Tenant id.")
DEPTH = typer.Option(Depth.FULL, help="full | light")
WAIT = typer.Option(False, help="Wait for the outcome.")
WAIT_RETRY = typer.Option(True, help="Wait for the outcome.")


async def _state(settings: Settings, tenant: str, user: str) -> LifecycleState:
    client = await connect(settings)
    return await client.get_workflow_handle_for(
        UserLifecycleWorkflow.run, workflow_id(tenant, user)
    ).query(UserLifecycleWorkflow.state)


def _describe(state: LifecycleState) -> str:
    nxt, last, c = state.next_sleep, state.last_sleep, state.sleeps
    lines = [
        f"user:        {state.tenant_id}/{state.user_id}",
        f"plan/tier:   {state.profile.plan.value}/{state.tier.value}"
        + ("  (PAUSED)" if state.paused else ""),
        f"messages:    {state.ingestion.messages_received} received, "
        f"{len(state.pending_message_ids)} pending, {state.session_count} sessions",
        f"next sleep:  {nxt.at.isoformat() if nxt and nxt.at else 'off'}",
        f"  why:       {nxt.reason if nxt else '-'}",
        f"sleeps:      {c.full} full, {c.light} light, {c.skipped} skipped, "
        f"{c.cancelled} cancelled, {c.failed} failed; {c.llm_calls} LLM calls",
    ]
    if last is not None:
        lines += [
            f"last sleep:  {last.run_id} {last.status.value} ({last.depth.value})",
            f"  at:        {last.started_at.isoformat()} -> {last.finished_at.isoformat()}",
            f"  summary:   {last.summary}",
        ]
    if state.feedback_signals or state.last_soft_reset:
        lines.append(
            f"soft reset:  {state.last_soft_reset or 'never'}; "
            f"{state.feedback_signals} 'not understood' feedback since the last compaction"
        )
    return "\n".join(lines)


@sleep_app.command("status")
def status(user: str, tenant: str = TENANT) -> None:
    """Show tier, plan, next sleep and why, and the last sleep's outcome."""
    try:
        state = asyncio.run(_state(Settings(), tenant, user))
    except RPCError as exc:
        typer.echo(f"no lifecycle for {tenant}/{user}: {exc.message}", err=True)
        raise typer.Exit(1) from exc
    typer.echo(_describe(state))


def _request(user: str, tenant: str, depth: Depth, reason: str, wait: bool) -> None:
    settings = Settings()

    async def run() -> str:
        client = await connect(settings)
        handle = client.get_workflow_handle_for(
            UserLifecycleWorkflow.run, workflow_id(tenant, user)
        )
        before = (await handle.query(UserLifecycleWorkflow.state)).sleep_seq
        ack = await handle.execute_update(
            UserLifecycleWorkflow.request_sleep, SleepRequest(depth=depth, reason=reason)
        )
        if not wait:
            return f"accepted: {ack.message}"
        deadline = time.monotonic() + 1800
        while time.monotonic() < deadline:
            state = await handle.query(UserLifecycleWorkflow.state)
            done = state.sleep_seq > before and state.sleep_requested is None
            if done and state.last_sleep is not None:
                return _describe(state)
            await asyncio.sleep(2)
        return "still running after 30 min: see `selfimprint sleep status`"

    try:
        typer.echo(asyncio.run(run()))
    except WorkflowUpdateFailedError as exc:
        typer.echo(f"rejected: {exc.cause}", err=True)
        raise typer.Exit(1) from exc
    except RPCError as exc:
        typer.echo(f"no lifecycle for {tenant}/{user}: {exc.message}", err=True)
        raise typer.Exit(1) from exc


@sleep_app.command("run")
def run_now(
    user: str,
    tenant: str = TENANT,
    depth: Depth = DEPTH,
    wait: bool = WAIT,
) -> None:
    """Run a sleep pass now (smart skip bypassed)."""
    _request(user, tenant, depth, "operator: run", wait)


@sleep_app.command("retry")
def retry(
    user: str,
    tenant: str = TENANT,
    wait: bool = WAIT_RETRY,
) -> None:
    """Run again a pass that failed, at the depth it had (a new run; writes are idempotent)."""
    state = asyncio.run(_state(Settings(), tenant, user))
    last = state.last_sleep
    if last is None:
        typer.echo("no sleep has run for this user yet: use `sleep run`", err=True)
        raise typer.Exit(1)
    _request(user, tenant, last.depth, f"operator: retry {last.run_id}", wait)


@sleep_app.command("soft-reset")
def soft_reset(
    user: str,
    tenant: str = TENANT,
    reason: str = typer.Option(..., help="Why (kept in the workflow history and logs)."),
    wait: bool = WAIT_RETRY,
) -> None:
    """Keep pinned memories and the last 30 days; archive the rest to S3 (encrypted SYNX under
    the user's archive/ prefix) and remove it from Neo4j. Forget and erasure cover the archive."""
    settings = Settings()

    async def run() -> str:
        client = await connect(settings)
        handle = client.get_workflow_handle_for(
            UserLifecycleWorkflow.run, workflow_id(tenant, user)
        )
        before = (await handle.query(UserLifecycleWorkflow.state)).last_soft_reset
        ack = await handle.execute_update(
            UserLifecycleWorkflow.request_soft_reset, SoftResetRequest(reason=reason)
        )
        if not wait:
            return f"accepted: {ack.message}"
        deadline = time.monotonic() + 1800
        while time.monotonic() < deadline:
            state = await handle.query(UserLifecycleWorkflow.state)
            if not state.soft_reset_requested and state.last_soft_reset != before:
                return f"soft reset: {state.last_soft_reset}"
            await asyncio.sleep(2)
        return "still running after 30 min: see `selfimprint sleep status`"

    try:
        typer.echo(asyncio.run(run()))
    except WorkflowUpdateFailedError as exc:
        typer.echo(f"rejected: {exc.cause}", err=True)
        raise typer.Exit(1) from exc
    except RPCError as exc:
        typer.echo(f"no lifecycle for {tenant}/{user}: {exc.message}", err=True)
        raise typer.Exit(1) from exc
