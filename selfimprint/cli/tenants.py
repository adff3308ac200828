"""`selfimprint tenants ...`: issue and revoke tenant API keys (operators only)."""

from __future__ import annotations

import asyncio

import typer

from selfimprint.adapters.neo4j import Neo4jGraphStore, open_driver
from selfimprint.adapters.neo4j.accounts import TENANT_ID, IssuedKey, Neo4jAccounts
from selfimprint.config import Settings

tenants_app = typer.Typer(no_args_is_help=True, help="Tenants and their API keys.")


@tenants_app.command("create")
def create(
    tenant_id: str = typer.Argument(..., help="Lowercase letters, digits and _ (no '-')."),
    name: str = typer.Option("", help="Display name."),
    admin: bool = typer.Option(False, help="The key may use operator endpoints."),
) -> None:
    """Create the tenant if needed and print a new API key (shown once)."""
    if not TENANT_ID.fullmatch(tenant_id):
        typer.echo("tenant ids are 1-40 of: lowercase letters, digits, _", err=True)
        raise typer.Exit(2)
    settings = Settings()

    async def issue() -> IssuedKey:
        driver = open_driver(settings)
        try:
            await Neo4jGraphStore(driver, settings.neo4j_database).migrate()
            accounts = Neo4jAccounts(driver, settings.neo4j_database)
            return await accounts.issue_key(tenant_id, name or tenant_id, admin=admin)
        finally:
            await driver.close()

    issued = asyncio.run(issue())
    typer.echo(f"tenant: {issued.tenant_id}\nkey id: {issued.key_id}\napi key: {issued.api_key}")


@tenants_app.command("revoke")
def revoke(key_id: str) -> None:
    """Revoke an API key by its key id."""
    settings = Settings()

    async def run() -> bool:
        driver = open_driver(settings)
        try:
            return await Neo4jAccounts(driver, settings.neo4j_database).revoke(key_id)
        finally:
            await driver.close()

    if not asyncio.run(run()):
        typer.echo(f"no key with id {key_id}", err=True)
        raise typer.Exit(1)
    typer.echo(f"revoked {key_id}")
