"""Tier activities: move one user's graph between Neo4j (hot) and SYNX objects in S3 (warm,
cold). Each activity is one idempotent step; `workflows.tiers.TierMoveWorkflow` orders them so
the graph is always in Neo4j or in S3 (docs/tiers.md). Snapshots never travel through Temporal:
only keys, counts and checksums do.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from pydantic import BaseModel, Field
from temporalio import activity
from temporalio.exceptions import ApplicationError

from selfimprint.adapters.crypto import DataKeyNotFoundError
from selfimprint.adapters.graph_archive import (
    ArchivedGraph,
    ArchiveMetadataError,
    GraphArchive,
    merge_snapshots,
    snapshot_fingerprint,
)
from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.adapters.neo4j.accounts import Neo4jAccounts
from selfimprint.adapters.synx import SynxError
from selfimprint.domain.users import Tier, UserScope
from selfimprint.logging import get_logger
from selfimprint.ports import ObjectNotFoundError
from selfimprint.telemetry.metrics import TIER_MOVES

log = get_logger(__name__)
T = TypeVar("T")

HEARTBEAT_EVERY = timedelta(seconds=5)


# --- models ---------------------------------------------------------------------------------------


class TierMoveInput(BaseModel):
    tenant_id: str
    user_id: str
    target: Tier


class TierMoveOutcome(BaseModel):
    tier: Tier
    moved: bool
    nodes: int
    edges: int
    bytes: int
    detail: str


class ArchiveInfo(BaseModel):
    """A graph object as recorded at upload (mirrors `ArchivedGraph`)."""

    key: str
    size: int
    storage_class: str
    sha256: str
    fingerprint: str
    nodes: int
    edges: int
    hypotheses: int
    tensions: int

    @classmethod
    def of(cls, archived: ArchivedGraph) -> ArchiveInfo:
        return cls(**archived.__dict__)


class HotCounts(BaseModel):
    nodes: int
    edges: int
    hypotheses: int
    tensions: int


class LocateInput(BaseModel):
    tenant_id: str
    user_id: str


class Placement(BaseModel):
    """Where the user's graph is: the recorded tier (None: no profile), what Neo4j holds, and the
    warm and cold objects if they exist."""

    recorded: Tier | None
    hot: HotCounts
    warm: ArchiveInfo | None
    cold: ArchiveInfo | None
    resets: list[str] = Field(default_factory=list)  # soft-reset archives' keys


class ArchiveHotInput(BaseModel):
    tenant_id: str
    user_id: str


class VerifyArchiveInput(BaseModel):
    tenant_id: str
    user_id: str
    tier: Tier
    expected: ArchiveInfo


class DropHotInput(BaseModel):
    tenant_id: str
    user_id: str
    fingerprint: str  # of the graph that was archived: Neo4j is emptied only if it still matches


class DropHotOutcome(BaseModel):
    dropped: bool
    memories: int


class RecordTierInput(BaseModel):
    tenant_id: str
    user_id: str
    tier: Tier


class CopyArchiveInput(BaseModel):
    tenant_id: str
    user_id: str
    source: Tier
    target: Tier


class DeleteArchiveInput(BaseModel):
    tenant_id: str
    user_id: str
    tier: Tier


class RehydrateInput(BaseModel):
    tenant_id: str
    user_id: str
    source: Tier


class RehydrateOutcome(BaseModel):
    nodes: int
    edges: int
    bytes: int
    merged_hot_nodes: int  # memories already in Neo4j that were kept (written while archived)
    seconds: float


# --- helpers --------------------------------------------------------------------------------------


async def with_heartbeats(work: Awaitable[T]) -> T:
    """Heartbeat while `work` runs (long S3 transfers and Neo4j transactions), so a dead worker is
    noticed within the heartbeat timeout rather than the start-to-close timeout."""
    task = asyncio.ensure_future(work)
    while True:
        done, _ = await asyncio.wait({task}, timeout=HEARTBEAT_EVERY.total_seconds())
        if done:
            return task.result()
        activity.heartbeat()


def bad_data(exc: Exception) -> ApplicationError:
    """Retrying cannot fix these: a tampered or foreign file, a destroyed key, a foreign object."""
    return ApplicationError(str(exc), type=type(exc).__name__, non_retryable=True)


PERMANENT = (SynxError, DataKeyNotFoundError, ArchiveMetadataError)


# --- activities -----------------------------------------------------------------------------------


class TierActivities:
    """cpu queue. Adapters injected; every method is safe to repeat after a crash."""

    def __init__(
        self, graph: Neo4jGraphStore, accounts: Neo4jAccounts, archive: GraphArchive
    ) -> None:
        self._graph = graph
        self._accounts = accounts
        self._archive = archive

    @activity.defn(name="tiers.locate")
    async def locate(self, data: LocateInput) -> Placement:
        scope = UserScope(data.tenant_id, data.user_id)
        counts = await self._graph.for_user(data.tenant_id, data.user_id).counts()
        try:
            warm, cold, resets = await asyncio.gather(
                asyncio.to_thread(self._archive.head, data.tenant_id, data.user_id, Tier.WARM),
                asyncio.to_thread(self._archive.head, data.tenant_id, data.user_id, Tier.COLD),
                asyncio.to_thread(self._archive.reset_archives, data.tenant_id, data.user_id),
            )
        except ArchiveMetadataError as exc:
            raise bad_data(exc) from exc
        return Placement(
            recorded=await self._accounts.get_tier(scope),
            hot=HotCounts(**counts.__dict__),
            warm=None if warm is None else ArchiveInfo.of(warm),
            cold=None if cold is None else ArchiveInfo.of(cold),
            resets=resets,
        )

    @activity.defn(name="tiers.archive_hot")
    async def archive_hot(self, data: ArchiveHotInput) -> ArchiveInfo:
        """Export the Neo4j graph and upload it as the warm object (replacing any older one)."""
        store = self._graph.for_user(data.tenant_id, data.user_id)
        snapshot = await with_heartbeats(store.export_graph(datetime.now(UTC)))
        archived = await with_heartbeats(
            asyncio.to_thread(
                self._archive.write, data.tenant_id, data.user_id, Tier.WARM, snapshot
            )
        )
        log.info("tiers.archived", user_id=data.user_id, nodes=archived.nodes, bytes=archived.size)
        return ArchiveInfo.of(archived)

    @activity.defn(name="tiers.verify_archive")
    async def verify_archive(self, data: VerifyArchiveInput) -> ArchiveInfo:
        """Read the object back and check it against what was written: the bytes' SHA-256, every
        frame's authentication and the manifest (SYNX reader), the counts, and the content
        fingerprint. Raises non-retryable on any difference."""
        try:
            read = await with_heartbeats(
                asyncio.to_thread(self._archive.read, data.tenant_id, data.user_id, data.tier)
            )
        except PERMANENT as exc:
            raise bad_data(exc) from exc
        snap, want = read.snapshot, data.expected
        found = (
            read.sha256,
            read.size,
            len(snap.nodes),
            len(snap.edges),
            len(snap.hypotheses),
            len(snap.tensions),
            snapshot_fingerprint(snap),
        )
        expected = (
            want.sha256,
            want.size,
            want.nodes,
            want.edges,
            want.hypotheses,
            want.tensions,
            want.fingerprint,
        )
        if found != expected:
            raise ApplicationError(
                f"{data.tier.value} object of {data.user_id} does not match what was written: "
                f"read {found[:6]}, expected {expected[:6]}",
                type="ArchiveVerificationError",
                non_retryable=True,
            )
        head = await asyncio.to_thread(self._archive.head, data.tenant_id, data.user_id, data.tier)
        assert head is not None  # just read it
        return ArchiveInfo.of(head)

    @activity.defn(name="tiers.drop_hot")
    async def drop_hot(self, data: DropHotInput) -> DropHotOutcome:
        """Remove the graph from Neo4j, but only if it is still the graph that was archived (a
        write since would otherwise be lost). Empty already: done (a repeated call)."""
        store = self._graph.for_user(data.tenant_id, data.user_id)
        if (await store.counts()).nodes == 0:
            return DropHotOutcome(dropped=True, memories=0)
        current = await with_heartbeats(store.export_graph(datetime.now(UTC)))
        if snapshot_fingerprint(current) != data.fingerprint:
            log.warning("tiers.changed_since_archived", user_id=data.user_id)
            return DropHotOutcome(dropped=False, memories=0)
        deleted = await with_heartbeats(store.delete_graph())
        return DropHotOutcome(dropped=True, memories=deleted)

    @activity.defn(name="tiers.record_tier")
    async def record_tier(self, data: RecordTierInput) -> None:
        scope = UserScope(data.tenant_id, data.user_id)
        before = await self._accounts.get_tier(scope)  # a retry finds the tier already moved
        if not await self._accounts.set_tier(scope, data.tier):
            raise ApplicationError(
                f"no profile for {data.tenant_id}/{data.user_id}",
                type="UnknownUserError",
                non_retryable=True,
            )
        if before is not None and before is not data.tier:
            TIER_MOVES.labels(before.value, data.tier.value).inc()

    @activity.defn(name="tiers.copy_archive")
    async def copy_archive(self, data: CopyArchiveInput) -> ArchiveInfo:
        """Server-side copy into the target tier's storage class. A repeated call whose source
        is already gone returns the target (the copy happened, then the source was deleted)."""
        try:
            copied = await with_heartbeats(
                asyncio.to_thread(
                    self._archive.copy, data.tenant_id, data.user_id, data.source, data.target
                )
            )
        except ObjectNotFoundError:
            existing = await asyncio.to_thread(
                self._archive.head, data.tenant_id, data.user_id, data.target
            )
            if existing is None:
                raise ApplicationError(
                    f"neither {data.source.value} nor {data.target.value} object exists",
                    type="ArchiveMissingError",
                    non_retryable=True,
                ) from None
            copied = existing
        except ArchiveMetadataError as exc:
            raise bad_data(exc) from exc
        return ArchiveInfo.of(copied)

    @activity.defn(name="tiers.delete_archive")
    async def delete_archive(self, data: DeleteArchiveInput) -> int:
        return await asyncio.to_thread(
            self._archive.delete, data.tenant_id, data.user_id, data.tier
        )

    @activity.defn(name="tiers.rehydrate")
    async def rehydrate(self, data: RehydrateInput) -> RehydrateOutcome:
        """Read the object and import it into Neo4j in one transaction (all or nothing), keeping
        memories that reached Neo4j meanwhile; then check the counts."""
        started = asyncio.get_running_loop().time()
        store = self._graph.for_user(data.tenant_id, data.user_id)
        try:
            read = await with_heartbeats(
                asyncio.to_thread(self._archive.read, data.tenant_id, data.user_id, data.source)
            )
        except PERMANENT as exc:
            raise bad_data(exc) from exc
        graph, kept = read.snapshot, 0
        if (await store.counts()).nodes:
            # Writes that landed while the graph was archived, or this import done once before.
            hot = await with_heartbeats(store.export_graph(graph.exported_at))
            kept = len(hot.nodes)
            graph = merge_snapshots(graph, hot)
        await with_heartbeats(store.import_graph(graph))
        counts = await store.counts()
        expected = (len(graph.nodes), len(graph.edges), len(graph.hypotheses), len(graph.tensions))
        found = (counts.nodes, counts.edges, counts.hypotheses, counts.tensions)
        if found != expected:
            raise ApplicationError(
                f"imported {found}, expected {expected}",
                type="RehydrateVerificationError",
                non_retryable=True,
            )
        seconds = asyncio.get_running_loop().time() - started
        log.info("tiers.rehydrated", user_id=data.user_id, nodes=counts.nodes, seconds=seconds)
        return RehydrateOutcome(
            nodes=counts.nodes,
            edges=counts.edges,
            bytes=read.size,
            merged_hot_nodes=kept,
            seconds=seconds,
        )
