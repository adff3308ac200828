"""`selfimprint messages ...`: the raw message log (wired into the main CLI as `messages`)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import typer

from selfimprint.adapters.neo4j import open_driver
from selfimprint.adapters.neo4j.message_log import MessageLogs
from selfimprint.adapters.temporal import connect
from selfimprint.config import Settings
from selfimprint.service import lifecycle_signals

messages_app = typer.Typer(no_args_is_help=True, help="The raw message log.")


async def retell_all(settings: Settings, older_than: timedelta, limit: int) -> dict[str, int]:
    """Re-tell every user with messages pending for longer than `older_than`; returns the
    number of messages told, per `tenant/user`."""
    driver = open_driver(settings)
    try:
        client = await connect(settings)
        logs = MessageLogs(driver, settings.neo4j_database)
        told = {}
        for scope in await logs.users_with_pending(datetime.now(UTC) - older_than, limit):
            told[scope.key] = await lifecycle_signals.retell_pending(
                client, settings, logs.for_user(scope), scope
            )
        return told
    finally:
        await driver.close()


@messages_app.command("retell")
def retell(
    older_than_minutes: float = typer.Option(
        15.0, help="Only messages stored at least this long ago (younger ones are in flight)."
    ),
    limit: int = typer.Option(10_000, help="At most this many users per run."),
) -> None:
    """Tell each user's lifecycle about messages still waiting in the log, starting the
    lifecycle where none runs. Run it after Temporal was unreachable for longer than the API
    retries its nudges (10 minutes): a user with no running lifecycle would otherwise wait
    for their next message (docs/operations.md)."""
    told = asyncio.run(retell_all(Settings(), timedelta(minutes=older_than_minutes), limit))
    for key, count in told.items():
        typer.echo(f"{key}: {count} pending message(s) told")
    typer.echo(f"{len(told)} user(s)")
