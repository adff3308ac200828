"""A context for a user whose graph is in warm or cold storage: their encrypted archive read
into memory within a time and size budget, and retrieval over that snapshot (the same rules as
the Neo4j read path: adapters.snapshot_retrieval)."""

from __future__ import annotations

import asyncio
from typing import Protocol

from selfimprint.adapters.graph_archive import GraphArchive
from selfimprint.adapters.snapshot_retrieval import retrieve_from_snapshot
from selfimprint.config import Settings
from selfimprint.domain.decay import ActivityTimeline
from selfimprint.domain.users import Tier, UserScope
from selfimprint.logging import get_logger
from selfimprint.ports import GraphSnapshot, RetrievalQuery, RetrievalResult
from selfimprint.service.read_path import Retrieve

log = get_logger(__name__)


class ArchiveResources(Protocol):
    """What an archive read uses of a process's resources (the API's `Resources`)."""

    @property
    def settings(self) -> Settings: ...

    def archive(self) -> GraphArchive: ...


def from_snapshot(snapshot: GraphSnapshot, timeline: ActivityTimeline) -> Retrieve:
    async def retrieve(query: RetrievalQuery) -> RetrievalResult:
        return await asyncio.to_thread(retrieve_from_snapshot, snapshot, query, timeline)

    return retrieve


# Archive reads decode in worker threads that a timeout cannot stop: a few at a time per API
# process, and a request that finds them all busy is answered without memories at once.
MAX_ARCHIVE_READS = 2
_archive_reads = asyncio.Semaphore(MAX_ARCHIVE_READS)


async def read_archived(
    resources: ArchiveResources, scope: UserScope, tier: Tier
) -> tuple[GraphSnapshot | None, str]:
    """The user's graph from their warm/cold object, within the configured time and size, or
    None and why not. The object may vanish under us (the rehydration finished): that is fine."""
    settings = resources.settings
    if settings.context_archive_timeout_s <= 0:
        return None, "reading the archive on the context path is switched off"
    if _archive_reads.locked():
        return None, "other archive reads are in progress on this server"
    async with _archive_reads:
        try:
            return await asyncio.wait_for(
                _read(resources, scope, tier), settings.context_archive_timeout_s
            )
        except TimeoutError:
            return None, f"reading it took over {settings.context_archive_timeout_s:g} s"
        except Exception as exc:  # any storage failure degrades to a context without memories
            log.warning("context.archive_read_failed", user_id=scope.user_id, error=str(exc)[:200])
            return None, f"it could not be read ({type(exc).__name__})"


async def _read(
    resources: ArchiveResources, scope: UserScope, tier: Tier
) -> tuple[GraphSnapshot | None, str]:
    archive = await asyncio.to_thread(resources.archive)  # first use builds boto3 and the keys
    head = await asyncio.to_thread(archive.head, scope.tenant_id, scope.user_id, tier)
    if head is None:
        return None, "no archived graph found (it may have just come back: ask again)"
    if head.nodes > resources.settings.context_archive_max_nodes:
        return None, f"{head.nodes} memories: too many to read on the context path"
    read = await asyncio.to_thread(archive.read, scope.tenant_id, scope.user_id, tier)
    return read.snapshot, ""
