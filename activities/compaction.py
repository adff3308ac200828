"""Compaction activities (spec §3.9): plan with the domain's rules, apply through the graph store.

A retry re-plans from the graph as it is: a plan applied once leaves nothing for the same rules
to do (domain.compaction), so the activity is idempotent without a journal.

A soft reset archives what it takes out as one encrypted SYNX object under the user's
`archive/` prefix before removing it from Neo4j. The object's label comes from the workflow, so
a retry after a crash merges into the same object: a memory is always in Neo4j or in S3.
"""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from typing import Protocol

from pydantic import BaseModel
from temporalio import activity

from activities.tiers import with_heartbeats
from selfimprint.adapters.graph_archive import GraphArchive, merge_snapshots
from selfimprint.domain.compaction.config import CompactionConfig
from selfimprint.domain.compaction.entropy import EntropyMetrics
from selfimprint.domain.compaction.plan import CompactionPlan, plan_compaction
from selfimprint.domain.compaction.soft_reset import plan_soft_reset, should_soft_reset
from selfimprint.domain.decay import ActivityTimeline
from selfimprint.domain.fading import FadingConfig
from selfimprint.logging import get_logger
from selfimprint.ports import (
    MAX_BATCH_IDS,
    CompactionOutcome,
    ForgetReport,
    GraphSnapshot,
    TopicSelector,
)
from selfimprint.telemetry.metrics import COMPACTION_DURATION

log = get_logger(__name__)


class CompactionGraph(Protocol):
    async def export_graph(self, now: datetime) -> GraphSnapshot: ...

    async def decay_clock(self) -> ActivityTimeline: ...

    async def prune_expired(self, now: datetime, fading: FadingConfig) -> list[str]: ...

    async def apply_compaction(self, plan: CompactionPlan) -> CompactionOutcome: ...

    async def forget_topic(self, topic: TopicSelector, *, dry_run: bool) -> ForgetReport: ...


class CompactionGraphs(Protocol):
    def for_user(self, tenant_id: str, user_id: str) -> CompactionGraph: ...


class CompactInput(BaseModel):
    tenant_id: str
    user_id: str
    now: datetime
    aggressive: bool | None = None  # None: the entropy decides (spec §3.9)


class CompactOutput(BaseModel):
    aggressive: bool
    entropy: EntropyMetrics
    outcome: CompactionOutcome
    pruned: int = 0  # expired memories swept before the pass


class SoftResetInput(BaseModel):
    tenant_id: str
    user_id: str
    now: datetime
    requested: bool  # an operator's explicit request
    feedback_signals: int = 0


class SoftResetOutput(BaseModel):
    due: bool
    reason: str
    keep: int
    archive: int


class ApplySoftResetInput(BaseModel):
    tenant_id: str
    user_id: str
    now: datetime  # the workflow's: the window's end and the archive's label
    reason: str = ""


class SoftResetApplied(BaseModel):
    archive_key: str | None  # None: nothing was old enough to archive
    archived_memories: int
    archived_edges: int
    kept_memories: int


def archived_part(snapshot: GraphSnapshot, ids: set[str]) -> GraphSnapshot:
    """The memories with these ids, every edge touching one, their hypotheses' lifecycle data
    and the tensions that involve them: what a soft reset takes out of the active graph."""
    return snapshot.model_copy(
        update={
            "nodes": tuple(n for n in snapshot.nodes if n.id in ids),
            "edges": tuple(e for e in snapshot.edges if e.source_id in ids or e.target_id in ids),
            "hypotheses": tuple(h for h in snapshot.hypotheses if h.node_id in ids),
            "tensions": tuple(t for t in snapshot.tensions if t.node_a in ids or t.node_b in ids),
        }
    )


def reset_label(now: datetime) -> str:
    return f"{now:%Y%m%dT%H%M%SZ}"


def _store_verified(
    archive: GraphArchive, tenant_id: str, user_id: str, label: str, part: GraphSnapshot
) -> None:
    """Upload the archive, read it back and compare, then drop older versions of it."""
    written = archive.write_reset(tenant_id, user_id, label, part)
    back = archive.read_key(tenant_id, user_id, written.key)
    if not back.matches(written):
        raise RuntimeError(f"{written.key} does not read back as written: nothing was removed")
    archive.purge_old_versions_of(written.key)


class CompactionActivities:
    def __init__(
        self,
        graphs: CompactionGraphs,
        archive: GraphArchive | None = None,
        config: CompactionConfig | None = None,
    ) -> None:
        self._graphs = graphs
        self._archive = archive
        self._config = config or CompactionConfig()  # Settings.tuning_file, "compaction"

    @activity.defn(name="compaction.compact")
    async def compact(self, data: CompactInput) -> CompactOutput:
        started = time.perf_counter()
        graph = self._graphs.for_user(data.tenant_id, data.user_id)
        # The sweeper first (spec §3.3, bounded batches; issue 32: noise and what is past the
        # per-user bound go, other faded memories stay).
        pruned = await graph.prune_expired(data.now, self._config.fading)
        activity.heartbeat(f"pruned {len(pruned)}")
        snapshot = await graph.export_graph(data.now)
        timeline = await graph.decay_clock()
        activity.heartbeat("graph read")
        # Pure but CPU-heavy on big graphs (the duplicate scan is numpy, the entropy BFS is
        # not): off the event loop, so heartbeats and other activities keep running.
        plan = await asyncio.to_thread(
            plan_compaction,
            snapshot.nodes,
            snapshot.edges,
            data.now,
            self._config,
            aggressive=data.aggressive,
            timeline=timeline,
        )
        activity.heartbeat("planned")
        outcome = await graph.apply_compaction(plan)
        log.info(
            "compaction.applied",
            user_id=data.user_id,
            aggressive=plan.aggressive,
            entropy=round(plan.entropy.score, 4),
            pruned=len(pruned),
            **outcome.model_dump(),
        )
        COMPACTION_DURATION.observe(time.perf_counter() - started)
        return CompactOutput(
            aggressive=plan.aggressive, entropy=plan.entropy, outcome=outcome, pruned=len(pruned)
        )

    @activity.defn(name="compaction.plan_soft_reset")
    async def plan_soft_reset(self, data: SoftResetInput) -> SoftResetOutput:
        """Decide whether a soft reset is due and how much it would keep and archive."""
        graph = self._graphs.for_user(data.tenant_id, data.user_id)
        snapshot = await graph.export_graph(data.now)
        timeline = await graph.decay_clock()
        plan = await asyncio.to_thread(
            plan_compaction,
            snapshot.nodes,
            snapshot.edges,
            data.now,
            self._config,
            timeline=timeline,
        )
        due = data.requested or should_soft_reset(plan.entropy, data.feedback_signals, self._config)
        reset = plan_soft_reset(snapshot.nodes, snapshot.edges, data.now, self._config)
        reason = (
            "requested by an operator"
            if data.requested
            else f"entropy {plan.entropy.score:.2f} with {data.feedback_signals} feedback signal(s)"
        )
        return SoftResetOutput(
            due=due,
            reason=reason,
            keep=len(reset.keep_node_ids),
            archive=len(reset.archive_node_ids),
        )

    @activity.defn(name="compaction.apply_soft_reset")
    async def apply_soft_reset(self, data: ApplySoftResetInput) -> SoftResetApplied:
        """Spec §3.9: keep pinned memories and the last 30 days, archive the rest. The archive
        is written and read back (checksum and content fingerprint) before anything leaves
        Neo4j; removal goes in bounded batches and also drops the sleep results derived from
        the archived memories (as forgetting does)."""
        if self._archive is None:
            raise RuntimeError("this worker was built without the graph archive")
        archive = self._archive
        graph = self._graphs.for_user(data.tenant_id, data.user_id)
        snapshot = await graph.export_graph(data.now)
        plan = plan_soft_reset(snapshot.nodes, snapshot.edges, data.now, self._config)
        ids = set(plan.archive_node_ids)
        label = reset_label(data.now)
        key = archive.layout.reset_key(data.tenant_id, data.user_id, label)
        part = archived_part(snapshot, ids)
        if await asyncio.to_thread(archive.head_key, key) is not None:
            # A retry: the first attempt may already have removed some memories from Neo4j.
            earlier = await with_heartbeats(
                asyncio.to_thread(archive.read_key, data.tenant_id, data.user_id, key)
            )
            part = merge_snapshots(earlier.snapshot, part)
        elif not ids:
            return SoftResetApplied(
                archive_key=None,
                archived_memories=0,
                archived_edges=0,
                kept_memories=len(plan.keep_node_ids),
            )
        await with_heartbeats(
            asyncio.to_thread(_store_verified, archive, data.tenant_id, data.user_id, label, part)
        )
        ordered = sorted(ids)
        for start in range(0, len(ordered), MAX_BATCH_IDS):
            batch = tuple(ordered[start : start + MAX_BATCH_IDS])
            await graph.forget_topic(TopicSelector(node_ids=batch), dry_run=False)
            activity.heartbeat(f"removed {start + len(batch)} of {len(ordered)}")
        log.info(
            "compaction.soft_reset_applied",
            user_id=data.user_id,
            key=key,
            archived=len(part.nodes),
            kept=len(plan.keep_node_ids),
            reason=data.reason,
        )
        return SoftResetApplied(
            archive_key=key,
            archived_memories=len(part.nodes),
            archived_edges=len(part.edges),
            kept_memories=len(plan.keep_node_ids),
        )
