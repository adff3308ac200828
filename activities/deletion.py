"""Erasure activities (right to deletion, spec §4.3). Each removes one store's share of a user and
is safe to repeat: a second call finds nothing and reports 0."""

from __future__ import annotations

import asyncio
from datetime import datetime

from pydantic import BaseModel, Field
from temporalio import activity
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from activities.tiers import with_heartbeats
from selfimprint.adapters.graph_archive import GraphArchive
from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.neo4j.message_log import MessageLogs
from selfimprint.domain.collective import withdrawal_pseudonyms
from selfimprint.domain.monthly_summary import summary_schedule_id
from selfimprint.domain.users import UserScope
from selfimprint.logging import get_logger
from selfimprint.ports import CollectiveStore, DataKeyStore

log = get_logger(__name__)


class DeletionInput(BaseModel):
    tenant_id: str
    user_id: str
    # A second pass this long after the erasure (0: none) catches what an activity already
    # running at erasure time wrote late (a tier move or soft reset uploading, which would also
    # create a fresh data key). Longer than any activity's start-to-close timeout (30 min).
    sweep_after_s: int = Field(45 * 60, ge=0)


class DeletionReport(BaseModel):
    tenant_id: str
    user_id: str
    workflows_terminated: list[str]
    memories_deleted: int
    objects_deleted: int  # object versions and delete markers under the user's prefix
    messages_deleted: int
    profile_deleted: bool
    key_destroyed: bool
    finished_at: datetime
    sweep_workflow_id: str | None = None  # the delayed second pass, if one was started
    # CollectiveImprint patterns not yet graduated that held the user's pseudonym.
    collective_patterns_withdrawn: int = 0


class SweepInput(BaseModel):
    tenant_id: str
    user_id: str
    after_s: int


class SweepReport(BaseModel):
    """What the second pass still found: anything non-zero was written after the erasure."""

    objects_deleted: int
    memories_deleted: int
    key_destroyed: bool
    collective_patterns_withdrawn: int = 0


class StopWorkflowsInput(BaseModel):
    workflow_ids: list[str]
    reason: str


class DeleteUserPartInput(BaseModel):
    """Input of every per-store deletion activity."""

    tenant_id: str
    user_id: str


class DeletionActivities:
    """cpu queue. `collective_secret`: the key of CollectiveImprint's pseudonyms
    (`Settings.collective_secret()`), to find the user's among them."""

    def __init__(
        self,
        client: Client,
        graph: Neo4jGraphStore,
        message_logs: MessageLogs,
        accounts: Neo4jAccounts,
        archive: GraphArchive,
        keys: DataKeyStore,
        collective: CollectiveStore,
        collective_secret: bytes,
    ) -> None:
        self._client = client
        self._graph = graph
        self._logs = message_logs
        self._accounts = accounts
        self._archive = archive
        self._keys = keys
        self._collective = collective
        self._collective_secret = collective_secret

    @activity.defn(name="deletion.stop_workflows")
    async def stop_workflows(self, data: StopWorkflowsInput) -> list[str]:
        """Terminate the user's running workflows (lifecycle, tier move) so nothing writes to
        the stores while they are emptied. Returns the ids that were running."""
        stopped = []
        for workflow_id in data.workflow_ids:
            handle = self._client.get_workflow_handle(workflow_id)
            try:
                described = await handle.describe()
                if described.status is not WorkflowExecutionStatus.RUNNING:
                    continue
                await handle.terminate(reason=data.reason)
            except RPCError as exc:
                if exc.status is RPCStatusCode.NOT_FOUND:  # never started, or already closed
                    continue
                raise
            stopped.append(workflow_id)
        log.info("deletion.workflows_stopped", workflow_ids=stopped)
        return stopped

    @activity.defn(name="deletion.destroy_key")
    async def destroy_key(self, data: DeleteUserPartInput) -> bool:
        """Crypto-shredding: every SYNX copy of the user, wherever it went, becomes unreadable."""
        return await asyncio.to_thread(self._keys.destroy, data.tenant_id, data.user_id)

    @activity.defn(name="deletion.delete_objects")
    async def delete_objects(self, data: DeleteUserPartInput) -> int:
        return await with_heartbeats(
            asyncio.to_thread(self._archive.delete_user, data.tenant_id, data.user_id)
        )

    @activity.defn(name="deletion.delete_graph")
    async def delete_graph(self, data: DeleteUserPartInput) -> int:
        """Bounded batches, one transaction each (the store loops until nothing is left). The
        sleep phase's results (runs, patterns, triggers, questions) quote memories: they go too."""
        store = self._graph.for_user(data.tenant_id, data.user_id)
        memories = await with_heartbeats(store.delete_graph())
        await with_heartbeats(store.delete_sleep_results())
        await with_heartbeats(store.delete_summaries())  # they quote memories too
        return memories

    @activity.defn(name="deletion.delete_summary_schedule")
    async def delete_summary_schedule(self, data: DeleteUserPartInput) -> bool:
        """Delete the user's monthly summary schedule; False when there was none."""
        handle = self._client.get_schedule_handle(summary_schedule_id(data.tenant_id, data.user_id))
        try:
            await handle.delete()
        except RPCError as exc:
            if exc.status is RPCStatusCode.NOT_FOUND:
                return False
            raise
        log.info("deletion.summary_schedule_deleted", user_id=data.user_id)
        return True

    @activity.defn(name="deletion.delete_messages")
    async def delete_messages(self, data: DeleteUserPartInput) -> int:
        return await with_heartbeats(
            self._logs.for_user(UserScope(data.tenant_id, data.user_id)).delete_all()
        )

    @activity.defn(name="deletion.withdraw_collective")
    async def withdraw_collective(self, data: DeleteUserPartInput) -> int:
        """Remove the user's pseudonym from each of the tenant's CollectiveImprint patterns not
        yet graduated (a pseudonym is personal data to the key holder; graduated patterns keep
        only a count). Returns how many patterns held it: 0 on a repeat."""
        pending = await self._collective.pending(data.tenant_id)
        pseudonyms = withdrawal_pseudonyms(
            data.tenant_id, data.user_id, pending, self._collective_secret
        )
        withdrawn = await self._collective.withdraw(data.tenant_id, pseudonyms)
        # No pattern keys in the log: beside the user id they would say what the user asked.
        log.info("deletion.collective_withdrawn", patterns=withdrawn)
        return withdrawn

    @activity.defn(name="deletion.delete_profile")
    async def delete_profile(self, data: DeleteUserPartInput) -> bool:
        return await self._accounts.delete_profile(UserScope(data.tenant_id, data.user_id))
