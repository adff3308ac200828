"""Tensions as the user sees them: listed with how each was resolved, and resolved in one
transaction (the tension, the side marked wrong, the side kept), scope-checked like every
query. The resolution's `keep` and time are fields of the tension (`Tension.resolved_keep`,
`resolved_at`), so archives carry them like its status and note.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from selfimprint.adapters.neo4j import browsing, decay_clock, lookups, writes
from selfimprint.adapters.neo4j.records import TENSION_PROJECTION, tension_from_record
from selfimprint.domain.belief import BeliefConfig
from selfimprint.domain.models import HypothesisStatus, TensionStatus
from selfimprint.domain.tensions import (
    TensionRecord,
    TensionResolution,
    is_repeat,
    plan_resolution,
)
from selfimprint.domain.users import UserScope

_FIELDS = f"{TENSION_PROJECTION} AS tension"

_LIST = f"""
MATCH (t:Tension {{scope: $scope}})
WHERE $status IS NULL OR t.status = $status
RETURN {_FIELDS}
ORDER BY t.detected_at, t.id
"""

# The no-op SET takes the tension's write lock before its fields are read: two resolutions of
# one tension run one after the other, so the second sees the first and cannot overwrite it.
_LOCKED = f"""
MATCH (t:Tension {{scope: $scope, id: $id}})
SET t.status = t.status
RETURN {_FIELDS}
"""


def _record(row: Any) -> TensionRecord:
    return TensionRecord(tension=tension_from_record(row["tension"]))


async def list_tensions(
    tx: AsyncManagedTransaction, scope: UserScope, status: TensionStatus | None
) -> list[TensionRecord]:
    result = await tx.run(_LIST, scope=scope.key, status=status.value if status else None)
    return [_record(r) async for r in result]


async def resolve_tension(
    tx: AsyncManagedTransaction,
    scope: UserScope,
    tension_id: str,
    resolution: TensionResolution,
    now: datetime,
    beliefs: BeliefConfig,
) -> TensionRecord | None:
    """The tension as resolved; None when the scope has no such tension. Resolving again with
    the same answer writes nothing and returns the first result; another answer raises
    `TensionAlreadyResolvedError` (domain.tensions)."""
    row = await (await tx.run(_LOCKED, scope=scope.key, id=tension_id)).single()
    if row is None:
        return None
    stored = _record(row)
    if is_repeat(stored.tension, stored.resolution, resolution):
        return stored
    tension = stored.tension
    sides = {n.id: n for n in await lookups.get_nodes(tx, scope, [tension.node_a, tension.node_b])}
    plan = plan_resolution(
        tension,
        resolution,
        sides,
        now,
        timeline=await decay_clock.read(tx, scope),
        beliefs=beliefs,
    )
    # indexed=False leaves an indexed node's vector-index label as it is (only adds none).
    await writes.upsert_nodes(tx, scope, plan.nodes, indexed=False)
    for node_id in plan.refuted_ids:
        await browsing.set_status(tx, scope, node_id, HypothesisStatus.REFUTED)
    await writes.upsert_tensions(tx, scope, [plan.tension])
    return TensionRecord(tension=plan.tension)
