"""TierMoveWorkflow: move one user's graph hot <-> warm -> cold (spec §3.8.1), id `tier-{t}-{u}`.

Started as a child of the user's lifecycle workflow. Every step is an idempotent activity and the
order keeps the graph in Neo4j or in S3 at every moment (docs/tiers.md):

  hot -> warm   archive to the warm object, read it back and verify, empty Neo4j, record warm
  warm -> cold  copy to the cold object (cold storage class), verify, record cold, delete warm
  -> hot        import the object into Neo4j (one transaction), verify counts, record hot,
                delete the objects

The recorded tier is the commit point. Where the graph authoritatively is follows from it and
from what exists: see `_authoritative`.
"""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.tiers import (
        ArchiveHotInput,
        ArchiveInfo,
        CopyArchiveInput,
        DeleteArchiveInput,
        DropHotInput,
        LocateInput,
        Placement,
        RecordTierInput,
        RehydrateInput,
        RehydrateOutcome,
        TierActivities,
        TierMoveInput,
        TierMoveOutcome,
        VerifyArchiveInput,
    )
    from selfimprint.domain.users import Tier
    from workflows.options import TIER_SHORT, TIER_TRANSFER

__all__ = ["TierMoveInput", "TierMoveOutcome", "TierMoveWorkflow", "tier_workflow_id"]


def tier_workflow_id(tenant_id: str, user_id: str) -> str:
    return f"tier-{tenant_id}-{user_id}"


# A graph that keeps changing between export and removal (the lifecycle should not ingest
# during a move; this bounds the damage if it does).
ARCHIVE_ATTEMPTS = 3


@workflow.defn
class TierMoveWorkflow:
    @workflow.run
    async def run(self, data: TierMoveInput) -> TierMoveOutcome:
        self._data = data
        self._moved = False
        where = await self._locate()
        if where.recorded is None:
            raise ApplicationError(
                f"no profile for {data.tenant_id}/{data.user_id}",
                type="UnknownUserError",
                non_retryable=True,
            )
        source = self._authoritative(where)
        if source is None:
            # Archived, yet Neo4j holds memories: written while archived, or a rehydrate that
            # was interrupted. Fold both together in Neo4j first; nothing is dropped.
            await self._rehydrate(where)
            where = await self._locate()
            source = Tier.HOT
        if data.target is Tier.HOT:
            return await self._to_hot(where, source)
        if source is Tier.COLD and data.target is Tier.WARM:
            raise ApplicationError(
                "cold -> warm is not a move: rehydrate (target hot) first",
                type="UnsupportedMoveError",
                non_retryable=True,
            )
        if source is Tier.HOT:
            archived = await self._archive_hot()
            await self._record(Tier.WARM)
            where = await self._locate()
            source = Tier.WARM
        else:
            found = self._object(where, source)
            assert found is not None  # _authoritative names a tier whose object exists
            archived = found
        if data.target is Tier.COLD and source is Tier.WARM:
            archived = await self._warm_to_cold(where)
            source = Tier.COLD
        await self._record(source)
        # Leftovers of interrupted moves: the other tier's object (same bytes, verified).
        other = Tier.COLD if source is Tier.WARM else Tier.WARM
        if self._object(await self._locate(), other) is not None:
            await self._delete_object(other)
        return TierMoveOutcome(
            tier=source,
            moved=self._moved,
            nodes=archived.nodes,
            edges=archived.edges,
            bytes=archived.size,
            detail=f"{archived.key} ({archived.storage_class})",
        )

    @staticmethod
    def _object(where: Placement, tier: Tier | None) -> ArchiveInfo | None:
        return where.warm if tier is Tier.WARM else where.cold if tier is Tier.COLD else None

    @staticmethod
    def _authoritative(where: Placement) -> Tier | None:
        """Where the graph is; None when both Neo4j and an object hold parts of it.

        Recorded hot: Neo4j, unless it is empty and an object exists (the move crashed after
        emptying Neo4j, before recording). Recorded warm/cold: that tier's object (or the
        other's, mid-move), unless Neo4j has memories too (None)."""
        has_hot = where.hot.nodes > 0
        objects = [t for t in (Tier.WARM, Tier.COLD) if TierMoveWorkflow._object(where, t)]
        if where.recorded is Tier.HOT or not objects:
            if has_hot or not objects:
                return Tier.HOT
            return objects[0]
        if has_hot:
            return None
        return where.recorded if where.recorded in objects else objects[0]

    async def _to_hot(self, where: Placement, source: Tier) -> TierMoveOutcome:
        if source is not Tier.HOT:
            outcome = await self._rehydrate(where, source)
            nodes, edges, size = outcome.nodes, outcome.edges, outcome.bytes
        else:
            nodes, edges, size = where.hot.nodes, where.hot.edges, 0
            await self._record(Tier.HOT)
            for tier in (Tier.WARM, Tier.COLD):
                if self._object(where, tier) is not None:
                    await self._delete_object(tier)  # stale copies of what Neo4j holds
        return TierMoveOutcome(
            tier=Tier.HOT, moved=self._moved, nodes=nodes, edges=edges, bytes=size, detail="neo4j"
        )

    async def _rehydrate(self, where: Placement, source: Tier | None = None) -> RehydrateOutcome:
        if source is None:  # the recorded tier's object first
            source = next(
                t for t in (where.recorded, Tier.WARM, Tier.COLD) if self._object(where, t)
            )
        outcome = await workflow.execute_activity_method(
            TierActivities.rehydrate,
            RehydrateInput(
                tenant_id=self._data.tenant_id, user_id=self._data.user_id, source=source
            ),
            **TIER_TRANSFER,
        )
        await self._record(Tier.HOT)
        for tier in (Tier.WARM, Tier.COLD):
            if self._object(where, tier) is not None:
                await self._delete_object(tier)
        return outcome

    async def _archive_hot(self) -> ArchiveInfo:
        ids = {"tenant_id": self._data.tenant_id, "user_id": self._data.user_id}
        for _ in range(ARCHIVE_ATTEMPTS):
            archived = await workflow.execute_activity_method(
                TierActivities.archive_hot,
                ArchiveHotInput(**ids),
                **TIER_TRANSFER,
            )
            await workflow.execute_activity_method(
                TierActivities.verify_archive,
                VerifyArchiveInput(**ids, tier=Tier.WARM, expected=archived),
                **TIER_TRANSFER,
            )
            dropped = await workflow.execute_activity_method(
                TierActivities.drop_hot,
                DropHotInput(**ids, fingerprint=archived.fingerprint),
                **TIER_TRANSFER,
            )
            if dropped.dropped:
                return archived
        raise ApplicationError(
            f"the graph changed during each of {ARCHIVE_ATTEMPTS} archive attempts; it stays hot",
            type="GraphChangingError",
        )

    async def _warm_to_cold(self, where: Placement) -> ArchiveInfo:
        ids = {"tenant_id": self._data.tenant_id, "user_id": self._data.user_id}
        warm = where.warm
        if warm is None:  # only the cold object is left: the copy was done before
            assert where.cold is not None
            return where.cold
        copied = await workflow.execute_activity_method(
            TierActivities.copy_archive,
            CopyArchiveInput(**ids, source=Tier.WARM, target=Tier.COLD),
            **TIER_TRANSFER,
        )
        # The cold object must be the warm one, byte for byte, and still decrypt.
        expected = warm.model_copy(
            update={"key": copied.key, "storage_class": copied.storage_class}
        )
        await workflow.execute_activity_method(
            TierActivities.verify_archive,
            VerifyArchiveInput(**ids, tier=Tier.COLD, expected=expected),
            **TIER_TRANSFER,
        )
        await self._record(Tier.COLD)
        await self._delete_object(Tier.WARM)
        return copied

    async def _locate(self) -> Placement:
        where = await workflow.execute_activity_method(
            TierActivities.locate,
            LocateInput(tenant_id=self._data.tenant_id, user_id=self._data.user_id),
            **TIER_SHORT,
        )
        self._recorded = where.recorded
        return where

    async def _record(self, tier: Tier) -> None:
        """Record the tier (the commit point of a move) unless it is already recorded."""
        if self._recorded is tier:
            return
        self._moved = True
        self._recorded = tier
        await workflow.execute_activity_method(
            TierActivities.record_tier,
            RecordTierInput(tenant_id=self._data.tenant_id, user_id=self._data.user_id, tier=tier),
            **TIER_SHORT,
        )

    async def _delete_object(self, tier: Tier) -> None:
        await workflow.execute_activity_method(
            TierActivities.delete_archive,
            DeleteArchiveInput(
                tenant_id=self._data.tenant_id, user_id=self._data.user_id, tier=tier
            ),
            **TIER_SHORT,
        )
