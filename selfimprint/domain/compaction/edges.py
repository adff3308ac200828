"""How compaction addresses and ages edges.

Edges have no id in the model, so an edge is addressed by (source, target, type): `EdgeKey`.
Edge confidence is stored as of its last reinforcement and decayed lazily, like node weight
(DESIGN.md §4), so compaction never writes a decayed confidence back; it only removes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import NamedTuple

from selfimprint.domain.compaction.config import CompactionConfig
from selfimprint.domain.decay import ActivityTimeline, decay_days
from selfimprint.domain.models import Edge, EdgeType

# Days of decay between two instants. The default is wall-clock days; the lifecycle passes its
# decay clock so that edge confidence, like node weight, stops decaying while the user is away
# (spec §3.8.1).
DecayClock = Callable[[datetime, datetime], float]

_SECONDS_PER_DAY = 86_400.0


def wall_clock_days(start: datetime, end: datetime) -> float:
    return max(0.0, (end - start).total_seconds() / _SECONDS_PER_DAY)


def decay_clock_days(timeline: ActivityTimeline) -> DecayClock:
    """Days on the user's decay clock: edges, like nodes, keep their confidence while the user
    is away (spec §3.8.1)."""
    return lambda start, end: decay_days(start, end, timeline)


class EdgeKey(NamedTuple):
    source_id: str
    target_id: str
    type: EdgeType

    @classmethod
    def of(cls, edge: Edge) -> EdgeKey:
        return cls(edge.source_id, edge.target_id, edge.type)


def decay_anchor(edge: Edge) -> datetime:
    """When the stored confidence was set: the last reinforcement, else the creation."""
    return edge.last_reinforced_at or edge.created_at


def edge_confidence(
    edge: Edge,
    now: datetime,
    config: CompactionConfig | None = None,
    *,
    elapsed_days: DecayClock = wall_clock_days,
) -> float:
    """Confidence after the decay since the edge was last reinforced (or created)."""
    config = config or CompactionConfig()
    rate = (
        config.inferred_edge_decay_per_day
        if edge.is_inferred
        else config.observed_edge_decay_per_day
    )
    days = max(0.0, elapsed_days(decay_anchor(edge), now))
    return float(edge.confidence * rate**days)
