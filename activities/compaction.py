"""Compaction activities (spec §3.9): plan with the domain's rules, apply through the graph store.

A retry re-plans from the graph as it is: a plan applied once leaves nothing for the same rules
to do (domain.compaction), so the activity is idempotent without a journal.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from pydantic import BaseModel
from temporalio import activity

from selfimprint.domain.compaction import (
    CompactionPlan,
    EntropyMetrics,
    plan_compaction,
    plan_soft_reset,
    should_soft_reset,
)
from selfimprint.logging import get_logger
from selfimprint.ports import CompactionOutcome, GraphSnapshot

log = get_logger(__name__)


class CompactionGraph(Protocol):
    async def export_graph(self, now: datetime) -> GraphSnapshot: ...

    async def apply_compaction(self, plan: CompactionPlan) -> CompactionOutcome: ...


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


class CompactionActivities:
    def __init__(self, graphs: CompactionGraphs) -> None:
        self._graphs = graphs

    @activity.defn(name="compaction.compact")
    async def compact(self, data: CompactInput) -> CompactOutput:
        graph = self._graphs.for_user(data.tenant_id, data.user_id)
        snapshot = await graph.export_graph(data.now)
        activity.heartbeat("graph read")
        plan = plan_compaction(snapshot.nodes, snapshot.edges, data.now, aggressive=data.aggressive)
        outcome = await graph.apply_compaction(plan)
        log.info(
            "compaction.applied",
            user_id=data.user_id,
            aggressive=plan.aggressive,
            entropy=round(plan.entropy.score, 4),
            **outcome.model_dump(),
        )
        return CompactOutput(aggressive=plan.aggressive, entropy=plan.entropy, outcome=outcome)

    @activity.defn(name="compaction.plan_soft_reset")
    async def plan_soft_reset(self, data: SoftResetInput) -> SoftResetOutput:
        """Decide and plan a soft reset. Archiving needs the tier store (SYNX objects), so the
        plan is reported, not applied, until the tier workflows can take the archive."""
        graph = self._graphs.for_user(data.tenant_id, data.user_id)
        snapshot = await graph.export_graph(data.now)
        plan = plan_compaction(snapshot.nodes, snapshot.edges, data.now)
        due = data.requested or should_soft_reset(plan.entropy, data.feedback_signals)
        reset = plan_soft_reset(snapshot.nodes, snapshot.edges, data.now)
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
