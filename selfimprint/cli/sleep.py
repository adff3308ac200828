"""`selfimprint sleep run|status|retry|pause|resume|soft-reset <user> --tenant T`: operate a
user's sleep phase.

Each talks to the user's lifecycle workflow (`user-{tenant}-{user}`) through Temporal:
`status` queries its state (and describes the running pass's child workflow), `run` and `retry`
send the `request_sleep` update (a retry is a new pass with a new run id: each operation is
idempotent and journalled, so nothing is written twice), `pause` and `resume` the `set_paused`
update, to one user or with `--all` to every running lifecycle of the tenant (a tenant's pause
is also kept on the tenant, and lifecycles that start later follow it).
`--wait` polls the state until the requested pass has an outcome. `soft-reset` sends
`request_soft_reset` (spec §3.9: keep pinned memories and the last 30 days, archive the rest).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from datetime import UTC

import typer
from temporalio.client import (
    WorkflowExecutionDescription,
    WorkflowHandle,
    WorkflowUpdateFailedError,
)
from temporalio.service import RPCError

from selfimprint.adapters.neo4j import open_driver
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.temporal import connect
from selfimprint.config import Settings
from selfimprint.domain.sleep_policy import Depth
from selfimprint.domain.sleep_writes import SleepStatus
from workflows.lifecycle_state import (
    LifecycleState,
    PauseRequest,
    RunningSleep,
    SleepRequest,
    SoftResetRequest,
)
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
        topics = ", ".join(r.forget.shown() for r in forgets.replays) or "none"
        failed = forgets.last_replay_failed or "none"
        lines.append(f"forget:      second passes queued: {topics}; last failed: {failed}")
    return "\n".join(lines)


def _describe_running(running: RunningSleep, child: WorkflowExecutionDescription | None) -> str:
    """The pass in progress: its steps now running, each with attempt, next retry and the last
    failure, read from the child workflow's pending activities."""
    lines = [
        f"running:     {running.run_id} ({running.depth.value}) since "
        f"{running.started_at.isoformat()}"
    ]
    pending = child.raw_description.pending_activities if child is not None else []
    if not pending:
        lines.append("  step:      between steps (no activity pending)")
    for activity in pending:
        of = f"/{activity.maximum_attempts}" if activity.maximum_attempts else ""
        lines.append(f"  step:      {activity.activity_type.name}, attempt {activity.attempt}{of}")
        if activity.HasField("next_attempt_schedule_time"):
            retry_at = activity.next_attempt_schedule_time.ToDatetime(UTC)
            lines.append(f"  next try:  {retry_at.isoformat()}")
        if activity.HasField("last_failure") and activity.last_failure.message:
            lines.append(f"  failed:    {activity.last_failure.message[:300]}")
    return "\n".join(lines)


async def _status_text(settings: Settings, tenant: str, user: str) -> str:
    client = await connect(settings)
    handle = client.get_workflow_handle_for(UserLifecycleWorkflow.run, workflow_id(tenant, user))
    state = await handle.query(UserLifecycleWorkflow.state)
    text = _describe(state)
    running = state.sleep.running
    if running is not None:
        try:
            child = await client.get_workflow_handle(running.run_id).describe()
        except RPCError:
            child = None  # finished between the query and the describe
        text += "\n" + _describe_running(running, child)
    return text


@sleep_app.command("status")
def status(user: str, tenant: str = TENANT) -> None:
    """Show tier, plan, next sleep and why, the pass in progress (step, attempt, next retry)
    and the last sleep's outcome."""
    try:
        text = asyncio.run(_status_text(Settings(), tenant, user))
    except RPCError as exc:
        typer.echo(f"no lifecycle for {tenant}/{user}: {exc.message}", err=True)
        raise typer.Exit(1) from exc
    typer.echo(text)


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
            return f"started: {message}", True
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
    """Run a sleep pass now (smart skip bypassed); says what it started, and when nothing is
    new since the last pass."""
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


async def _set_paused(
    settings: Settings, tenant: str, users: list[str] | None, paused: bool, reason: str
) -> list[tuple[str, str]]:
    """Send `set_paused` to the lifecycles of `users`, or of every running lifecycle of the
    tenant when None: then the pause is first kept on the tenant, where lifecycles that start
    later read it (at their start and each reconcile). Returns (user, what happened) per
    lifecycle; raises `UnknownTenant` for a tenant without keys."""
    if users is None and not await _keep_tenant_pause(settings, tenant, paused, reason):
        raise UnknownTenant(tenant)
    client = await connect(settings)
    if users is None:
        prefix = workflow_id(tenant, "")
        query = 'WorkflowType = "UserLifecycleWorkflow" AND ExecutionStatus = "Running"'
        users = [
            w.id.removeprefix(prefix)
            async for w in client.list_workflows(query)
            if w.id.startswith(prefix)
        ]
    done = []
    for user in sorted(users):
        handle = client.get_workflow_handle_for(
            UserLifecycleWorkflow.run, workflow_id(tenant, user)
        )
        try:
            result = await handle.execute_update(
                UserLifecycleWorkflow.set_paused, PauseRequest(paused=paused, reason=reason)
            )
        except WorkflowUpdateFailedError as exc:
            done.append((user, f"rejected: {exc.cause}"))
            continue
        except RPCError as exc:
            done.append((user, f"no lifecycle: {exc.message}"))
            continue
        word = "paused" if paused else "resumed"
        done.append((user, word if result.changed else f"already {word}"))
    return done


class UnknownTenant(Exception):
    pass


async def _keep_tenant_pause(settings: Settings, tenant: str, paused: bool, reason: str) -> bool:
    driver = open_driver(settings)
    try:
        accounts = Neo4jAccounts(driver, settings.neo4j_database)
        return await accounts.set_sleep_pause(tenant, paused, reason)
    finally:
        await driver.close()


def _pause_command(user: str | None, tenant: str, every: bool, paused: bool, reason: str) -> None:
    if (user is None) == (not every):
        typer.echo("name a user, or --all for every lifecycle of the tenant", err=True)
        raise typer.Exit(2)
    try:
        results = asyncio.run(
            _set_paused(Settings(), tenant, None if every else [user or ""], paused, reason)
        )
    except UnknownTenant:
        typer.echo(
            f"no tenant {tenant!r}: it has never had an API key (`selfimprint tenants create`)",
            err=True,
        )
        raise typer.Exit(1) from None
    if every:
        typer.echo(
            f"tenant {tenant}: "
            + ("paused, lifecycles that start later too" if paused else "resumed")
        )
    for who, what in results:
        typer.echo(f"{tenant}/{who}: {what}")
    if not results:
        typer.echo(f"no running lifecycle for tenant {tenant}")
    if any(what.startswith(("rejected", "no lifecycle")) for _, what in results):
        raise typer.Exit(1)


USER_OR_ALL = typer.Argument(None, help="The user (or --all).")
ALL = typer.Option(False, "--all", help="Every running lifecycle of the tenant.")
REASON = typer.Option("", help="Why (kept in the workflow history and logs).")


@sleep_app.command("pause")
def pause(
    user: str | None = USER_OR_ALL, tenant: str = TENANT, every: bool = ALL, reason: str = REASON
) -> None:
    """Pause sleeps, compaction and tier moves (ingestion continues); idempotent."""
    _pause_command(user, tenant, every, True, reason)


@sleep_app.command("resume")
def resume(
    user: str | None = USER_OR_ALL, tenant: str = TENANT, every: bool = ALL, reason: str = REASON
) -> None:
    """Resume what `pause` stopped; idempotent."""
    _pause_command(user, tenant, every, False, reason)


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
