"""After an erasure or a forget: overwrite what the deletions left in Neo4j's files (issue 37;
`selfimprint.adapters.neo4j.store_flush`, docs/tiers.md "Bytes on disk")."""

from __future__ import annotations

from pydantic import BaseModel
from temporalio import activity

from activities.tiers import with_heartbeats
from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.logging import get_logger

log = get_logger(__name__)


class FlushInput(BaseModel):
    tenant_id: str
    user_id: str


class StoreFlushActivities:
    """cpu queue. `enabled`: `Settings.neo4j_flush_deleted` (off where an operator bounds the
    files otherwise, or the procedure cannot be installed)."""

    def __init__(self, graph: Neo4jGraphStore, enabled: bool) -> None:
        self._graph = graph
        self._enabled = enabled

    @activity.defn(name="store.flush_deleted")
    async def flush_deleted(self, data: FlushInput) -> bool:
        """True when Neo4j flushed; False when switched off or not installed (the deletion
        stands either way: this only hastens what Neo4j would do on its own)."""
        if not self._enabled:
            log.info("store.flush_skipped", user_id=data.user_id, reason="switched off")
            return False
        flushed = await with_heartbeats(self._graph.flush_deleted(data.tenant_id, data.user_id))
        return flushed is not None
