"""Reading stored things back by id or status."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from neo4j import AsyncManagedTransaction

from selfimprint.adapters.neo4j.records import (
    HYPOTHESIS_PROJECTION,
    TENSION_PROJECTION,
    hypothesis_from_record,
    node_from_record,
    node_projection,
    tension_from_record,
)
from selfimprint.domain.decay import ReinforcementTally
from selfimprint.domain.models import HypothesisStatus, Node, Tension, TensionStatus
from selfimprint.domain.users import UserScope
from selfimprint.ports import HypothesisRecord

_NODES = f"""
UNWIND $ids AS id
MATCH (n:Memory {{scope: $scope, id: id}})
RETURN {node_projection("n", with_vectors=True)} AS node
"""

_HYPOTHESES = f"""
MATCH (n:Memory:Hypothesis {{scope: $scope}})
WHERE n.hypothesis_status IS NOT NULL AND (size($statuses) = 0 OR n.hypothesis_status IN $statuses)
RETURN {node_projection("n", with_vectors=True)} AS node, {HYPOTHESIS_PROJECTION} AS hyp
ORDER BY n.id
"""

_TENSIONS = f"""
MATCH (t:Tension {{scope: $scope}})
WHERE $status IS NULL OR t.status = $status
RETURN {TENSION_PROJECTION} AS tension
ORDER BY t.detected_at, t.id
"""


async def get_nodes(
    tx: AsyncManagedTransaction, scope: UserScope, node_ids: Sequence[str]
) -> list[Node]:
    """The stored nodes among `node_ids`, in the order asked; unknown ids are left out."""
    result = await tx.run(_NODES, scope=scope.key, ids=list(node_ids))
    return [node_from_record(r["node"]) async for r in result]


async def hypotheses(
    tx: AsyncManagedTransaction, scope: UserScope, statuses: Sequence[HypothesisStatus]
) -> list[HypothesisRecord]:
    result = await tx.run(_HYPOTHESES, scope=scope.key, statuses=[s.value for s in statuses])
    return [
        HypothesisRecord(
            node=node_from_record(r["node"]),
            hypothesis=hypothesis_from_record(r["node"]["id"], r["hyp"]),
        )
        async for r in result
    ]


async def tensions(
    tx: AsyncManagedTransaction, scope: UserScope, status: TensionStatus | None
) -> list[Tension]:
    result = await tx.run(_TENSIONS, scope=scope.key, status=status.value if status else None)
    return [tension_from_record(r["tension"]) async for r in result]


_TALLIES = """
UNWIND $ids AS id
MATCH (n:Memory {scope: $scope, id: id})
WHERE n.reinforcement_day = $day
RETURN n.id AS id, n.reinforcements_applied AS applied, n.reinforcements_ignored AS ignored
"""


async def reinforcement_tallies(
    tx: AsyncManagedTransaction, scope: UserScope, node_ids: Sequence[str], day: date
) -> dict[str, ReinforcementTally]:
    """The stored tallies of `day` (writes.reinforce keeps one per node: the latest day's)."""
    result = await tx.run(_TALLIES, scope=scope.key, ids=list(node_ids), day=day)
    return {
        r["id"]: ReinforcementTally(
            day=day, applied=int(r["applied"] or 0), ignored=int(r["ignored"] or 0)
        )
        async for r in result
    }


_FLAGGED = """
UNWIND $ids AS id
MATCH (n:Memory {scope: $scope, id: id})
WHERE n.reinforcements_ignored > 0
RETURN collect(n.id) AS ids
"""


async def flagged(
    tx: AsyncManagedTransaction, scope: UserScope, node_ids: Sequence[str]
) -> set[str]:
    """Memories whose latest day of mentions went past the reinforcement limit (spec §6)."""
    record = await (await tx.run(_FLAGGED, scope=scope.key, ids=list(node_ids))).single(strict=True)
    return set(record["ids"])
