"""What a lifecycle reads of its tenant (cpu queue): the operator's tenant-wide sleep pause
(`selfimprint sleep pause --all`), kept on the tenant so that lifecycles started after the pause
follow it too."""

from __future__ import annotations

from pydantic import BaseModel
from temporalio import activity

from selfimprint.adapters.neo4j.accounts import Neo4jAccounts, TenantPause


class TenantInput(BaseModel):
    tenant_id: str


class TenantActivities:
    def __init__(self, accounts: Neo4jAccounts) -> None:
        self._accounts = accounts

    @activity.defn(name="tenants.sleep_pause")
    async def sleep_pause(self, data: TenantInput) -> TenantPause:
        return await self._accounts.sleep_pause(data.tenant_id)
