"""The soft reset of spec §3.9: due only when the graph is tangled past a threshold and the user
has said the system lost them; it keeps pinned memories and the recent window, archives the rest."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict

from selfimprint.domain.compaction.config import CompactionConfig
from selfimprint.domain.compaction.edges import EdgeKey
from selfimprint.domain.compaction.entropy import EntropyMetrics
from selfimprint.domain.models import Edge, Node


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SoftResetPlan(_Frozen):
    cutoff: datetime
    keep_node_ids: tuple[str, ...]
    archive_node_ids: tuple[str, ...]
    archive_edges: tuple[EdgeKey, ...]


def should_soft_reset(
    metrics: EntropyMetrics, feedback_signals: int, config: CompactionConfig | None = None
) -> bool:
    """Spec §3.9: only when entropy is high *and* the user said the system lost them."""
    config = config or CompactionConfig()
    return (
        metrics.score >= config.soft_reset_entropy_threshold
        and feedback_signals >= config.soft_reset_min_feedback
    )


def plan_soft_reset(
    nodes: Sequence[Node],
    edges: Sequence[Edge],
    now: datetime,
    config: CompactionConfig | None = None,
) -> SoftResetPlan:
    """Keep pinned nodes and anything created or reinforced in the window; archive the rest."""
    config = config or CompactionConfig()
    cutoff = now - timedelta(days=config.soft_reset_window_days)
    keep = {
        n.id
        for n in nodes
        if n.is_pinned or max(n.created_at, n.last_reinforced_at or n.created_at) >= cutoff
    }
    return SoftResetPlan(
        cutoff=cutoff,
        keep_node_ids=tuple(sorted(keep)),
        archive_node_ids=tuple(sorted(n.id for n in nodes if n.id not in keep)),
        archive_edges=tuple(
            sorted(
                {EdgeKey.of(e) for e in edges if e.source_id not in keep or e.target_id not in keep}
            )
        ),
    )
