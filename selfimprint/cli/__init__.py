"""The `selfimprint` command: the local stack (`dev ...`) and operator tools."""

from __future__ import annotations

import asyncio
import os
import sys
import time
import uuid
from datetime import timedelta

import typer

from selfimprint.cli.db import db_app
from selfimprint.cli.mcp import mcp
from selfimprint.cli.messages import messages_app
from selfimprint.cli.sleep import sleep_app
from selfimprint.cli.tenants import tenants_app
from selfimprint.config import Settings
from selfimprint.devstack import stack
from selfimprint.devstack.process import ServiceStartError, tail
from selfimprint.logging import configure_logging

app = typer.Typer(no_args_is_help=True, help="SelfImprint: long-term memory for assistants.")
dev = typer.Typer(no_args_is_help=True, help="The local stack on real services (loopback only).")
app.add_typer(dev, name="dev")
app.add_typer(db_app, name="db")
app.add_typer(tenants_app, name="tenants")
app.add_typer(sleep_app, name="sleep")
app.add_typer(messages_app, name="messages")
app.command("mcp")(mcp)


def _settings() -> Settings:
    settings = Settings()
    configure_logging(settings.log_level, settings.log_format)
    return settings


def _mib(n: int) -> str:
    return f"{n / 2**20:.0f} MiB" if n else "-"


def _print_reports(reports: list[stack.ServiceReport]) -> None:
    for r in reports:
        pid = f"pid {r.pid}" if r.pid else ""
        took = f"{r.seconds:5.1f}s" if r.seconds else ""
        typer.echo(f"  {r.name:<11} {r.state:<16} {took:>6}  {pid:<11} {_mib(r.rss_bytes):>9}")
        for label, url in r.urls.items():
            typer.echo(f"      {label}: {url}")


@dev.command("up")
def dev_up() -> None:
    """Start Temporal (+ codec server), Neo4j, S3, the LLM server, workers, API; await ready."""
    settings = _settings()
    started = time.monotonic()
    try:
        reports = stack.up(settings)
    except stack.PreflightError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from exc
    except ServiceStartError as exc:
        typer.echo(f"{exc.name} failed to start: {exc.reason}", err=True)
        if exc.log_tail:
            typer.echo(f"--- last lines of {stack.log_path(settings, exc.name)} ---", err=True)
            typer.echo(exc.log_tail, err=True)
        typer.echo("every service this command started has been stopped again", err=True)
        raise typer.Exit(1) from exc
    typer.echo(f"SelfImprint dev stack is up in {time.monotonic() - started:.1f}s")
    typer.echo(f"  data dir: {settings.data_dir.resolve()}")
    _print_reports(reports)
    typer.echo(f"  whole stack RSS: {_mib(stack.stack_rss_bytes(settings))}")


@dev.command("status")
def dev_status() -> None:
    """Report each service: running and ready, not ready, stopped, or external."""
    settings = _settings()
    reports = stack.status(settings)
    _print_reports(reports)
    typer.echo(f"  whole stack RSS: {_mib(stack.stack_rss_bytes(settings))}")
    if any(r.state in {"stopped", "not ready"} for r in reports):
        raise typer.Exit(1)


@dev.command("down")
def dev_down() -> None:
    """Stop exactly the processes `dev up` started (data is kept)."""
    settings = _settings()
    stopped = stack.down(settings)
    typer.echo("stopped: " + (", ".join(stopped) if stopped else "nothing was running"))


@dev.command("logs")
def dev_logs(service: str, lines: int = 40) -> None:
    """Print the last lines of one service's log."""
    typer.echo(tail(stack.log_path(_settings(), service), lines))


@dev.command("smoke")
def dev_smoke() -> None:
    """Run the stack probe workflow (cpu worker -> gpu worker -> embedder) and print its answer."""
    settings = _settings()

    async def probe() -> str:
        from selfimprint.adapters.temporal import connect
        from workflows.probe import StackProbeInput, StackProbeWorkflow

        client = await connect(settings)
        out = await client.execute_workflow(
            StackProbeWorkflow.run,
            StackProbeInput(text="stack probe", gpu_task_queue=settings.task_queue_gpu),
            id=f"stack-probe-{uuid.uuid4()}",
            task_queue=settings.task_queue_cpu,
            execution_timeout=timedelta(seconds=120),
        )
        return f"{out.model_id} answered with a {out.dimension}-dim vector"

    typer.echo(asyncio.run(probe()))


@app.command("demo")
def demo(timeout_s: float = typer.Option(900.0, help="How long to wait for extraction.")) -> None:
    """The main job: send a scripted conversation through the API and show what is remembered."""
    from selfimprint.devstack.demo import run_demo

    asyncio.run(run_demo(_settings(), typer.echo, timeout_s))


@app.command("codec-server")
def codec_server(
    port: int | None = typer.Option(None, help="Listen port (default SELFIMPRINT_CODEC_PORT)."),
    show_user_text: bool = typer.Option(
        False,
        "--show-user-text",
        help="Show message texts and memory contents in decoded payloads (redacted otherwise).",
    ),
) -> None:
    """Serve the Temporal codec protocol (/encode, /decode) so the UI shows decrypted payloads."""
    from selfimprint.codec_server import serve
    from selfimprint.config import MissingSecretError

    settings = _settings()
    try:
        serve(settings, port, show_user_text or settings.codec_show_user_text)
    except MissingSecretError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from exc


@app.command("version")
def version() -> None:
    """Print the installed version."""
    import selfimprint

    typer.echo(selfimprint.__version__)


def main() -> None:
    """Console entry point. A short-lived process that used Temporal's client can abort in
    CPython's teardown, when the client's Rust threads release the GIL during finalization
    (temporalio/sdk-python#300; seen here once in four `dev smoke` runs). So the CLI flushes
    its output and leaves with its exit code without that teardown."""
    try:
        app()
        code: object = 0
    except SystemExit as leaving:
        code = leaving.code
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code if isinstance(code, int) else 0 if code is None else 1)


if __name__ == "__main__":
    main()
