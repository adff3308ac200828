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
from collections.abc import Awaitable, Callable

import typer
from temporalio.client import WorkflowHandle, WorkflowUpdateFailedError
from temporalio.service import RPCError

from selfimprint.adapters.temporal import connect
from selfimprint.config import Settings
from selfimprint.domain.sleep_policy import Depth
from selfimprint.domain.sleep_writes import SleepStatus
from workflows.lifecycle_state import LifecycleState, SleepRequest, SoftResetRequest
from workflows.user_lifecycle import UserLifecycleWorkflow, workflow_id

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
    nxt, last, c = state.sleep.next, state.sleep.last, state.sleep.counts
    compaction, forgets = state.compaction, state.forgets
    lines = [
        f"user:        {state.tenant_id}/{state.user_id}",
        f"plan/tier:   {state.profile.plan.value}/{state.tier.value}"
        + ("  (PAUSED)" if state.paused else ""),
        f"messages:    {state.ingestion.stats.messages_received} received, "
        f"{len(state.ingestion.pending_message_ids)} pending, "
        f"{state.activity.session_count} sessions",
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
    if compaction.feedback_signals or compaction.last_soft_reset:
        lines.append(
            f"soft reset:  {compaction.last_soft_reset or 'never'}; "
            f"{compaction.feedback_signals} 'not understood' feedback since the last compaction"
        )
    if forgets.replays or forgets.last_replay_failed:
        topics = ", ".join(repr(r.forget.topic) for r in forgets.replays) or "none"
        failed = forgets.last_replay_failed or "none"
        lines.append(f"forget:      second passes queued: {topics}; last failed: {failed}")
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


# What an update asks for, and how to tell from the state that it has happened: None while it
# has not, else what to print and whether it succeeded.
Outcome = Callable[[LifecycleState], tuple[str, bool] | None]
LifecycleHandle = WorkflowHandle[UserLifecycleWorkflow, None]


def _update_and_wait(
    user: str,
    tenant: str,
    wait: bool,
    send: Callable[[LifecycleHandle], Awaitable[str]],
    outcome: Callable[[LifecycleState], Outcome],
) -> None:
    """Send one update to the user's lifecycle (`send` returns the ack's message); with `wait`,
    poll the state until `outcome` (built from the state before the update) has an answer."""
    settings = Settings()

    async def run() -> tuple[str, bool]:
        client = await connect(settings)
        handle = client.get_workflow_handle_for(
            UserLifecycleWorkflow.run, workflow_id(tenant, user)
        )
        done = outcome(await handle.query(UserLifecycleWorkflow.state))
        message = await send(handle)
        if not wait:
            return f"accepted: {message}", True
        deadline = time.monotonic() + 1800
        while time.monotonic() < deadline:
            answer = done(await handle.query(UserLifecycleWorkflow.state))
            if answer is not None:
                return answer
            await asyncio.sleep(2)
        return "still running after 30 min: see `selfimprint sleep status`", True

    try:
        text, succeeded = asyncio.run(run())
    except WorkflowUpdateFailedError as exc:
        typer.echo(f"rejected: {exc.cause}", err=True)
        raise typer.Exit(1) from exc
    except RPCError as exc:
        typer.echo(f"no lifecycle for {tenant}/{user}: {exc.message}", err=True)
        raise typer.Exit(1) from exc
    typer.echo(text)
    if not succeeded:
        raise typer.Exit(1)


def _pass_finished(before: LifecycleState, state: LifecycleState) -> bool:
    """The requested pass has an outcome: `sleep.last` names a newer run than before. (The
    sequence number counts a pass when it starts, so it alone ends the wait too early, showing
    the previous outcome.)"""
    last, previous = state.sleep.last, before.sleep.last
    started = state.sleep.seq > before.sleep.seq and state.sleep.requested is None
    return started and last is not None and (previous is None or last.run_id != previous.run_id)


def _request(user: str, tenant: str, depth: Depth, reason: str, wait: bool) -> None:
    async def send(handle: LifecycleHandle) -> str:
        request = SleepRequest(depth=depth, reason=reason)
        return (await handle.execute_update(UserLifecycleWorkflow.request_sleep, request)).message

    def outcome(before: LifecycleState) -> Outcome:
        def done(state: LifecycleState) -> tuple[str, bool] | None:
            last = state.sleep.last
            if not _pass_finished(before, state) or last is None:
                return None
            return _describe(state), last.status is not SleepStatus.FAILED

        return done

    _update_and_wait(user, tenant, wait, send, outcome)


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
    last = state.sleep.last
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

    async def send(handle: LifecycleHandle) -> str:
        request = SoftResetRequest(reason=reason)
        ack = await handle.execute_update(UserLifecycleWorkflow.request_soft_reset, request)
        return ack.message

    def outcome(before: LifecycleState) -> Outcome:
        def done(state: LifecycleState) -> tuple[str, bool] | None:
            now, then = state.compaction, before.compaction
            if now.soft_reset_requested or now.last_soft_reset == then.last_soft_reset:
                return None
            return f"soft reset: {now.last_soft_reset}", not now.last_soft_reset_failed

        return done

    _update_and_wait(user, tenant, wait, send, outcome)
