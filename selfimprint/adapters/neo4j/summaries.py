"""Monthly summaries: `(:MonthlySummary {scope, id: <user>-<YYYY-MM>})`, the summary itself as
JSON in `body` (it is read back whole, never queried by field) and the few fields the queries
need beside it.

Idempotent by month: the write MERGEs on the month's id and replaces the body. `seen_at` survives
a retry of the same run (same `produced_at`) and is cleared by a new run, so a summary produced
again is announced again.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from selfimprint.domain.monthly_summary import MonthlySummary, summary_id
from selfimprint.domain.users import UserScope
from selfimprint.ports import StoredSummary

_UPSERT = """
MERGE (s:MonthlySummary {scope: $scope, id: $id})
  ON CREATE SET s.tenant_id = $tenant_id
SET s.seen_at = CASE WHEN s.produced_at = $produced_at THEN s.seen_at ELSE null END
SET s.month = $month, s.produced_at = $produced_at, s.status = $status,
    s.memories = $memories, s.body = $body
"""

_GET = """
MATCH (s:MonthlySummary {scope: $scope, id: $id})
RETURN s.body AS body, s.seen_at AS seen_at
"""

_LIST = """
MATCH (s:MonthlySummary {scope: $scope})
RETURN s.body AS body, s.seen_at AS seen_at
ORDER BY s.month DESC
LIMIT $limit
"""

# The memories held at the end of the latest month before `month` with a produced summary.
_PREVIOUS_TOTAL = """
MATCH (s:MonthlySummary {scope: $scope})
WHERE s.month < $month AND s.memories IS NOT NULL
RETURN s.memories AS memories
ORDER BY s.month DESC
LIMIT 1
"""

_MARK_SEEN = """
UNWIND $ids AS id
MATCH (s:MonthlySummary {scope: $scope, id: id})
WHERE s.seen_at IS NULL
SET s.seen_at = $at
RETURN count(s) AS marked
"""

_DELETE_BATCH = """
MATCH (s:MonthlySummary {scope: $scope})
WITH s LIMIT $batch
DELETE s
RETURN count(*) AS deleted
"""


def _stored(record: Any) -> StoredSummary:
    seen = record["seen_at"]
    return StoredSummary(
        summary=MonthlySummary.model_validate_json(record["body"]),
        seen_at=seen.to_native() if seen is not None else None,
    )


async def upsert(tx: AsyncManagedTransaction, scope: UserScope, summary: MonthlySummary) -> None:
    await tx.run(
        _UPSERT,
        scope=scope.key,
        tenant_id=scope.tenant_id,
        id=summary_id(scope.user_id, summary.month),
        month=summary.month,
        produced_at=summary.produced_at,
        status=summary.status.value,
        memories=summary.counts.memories if summary.counts is not None else None,
        body=summary.model_dump_json(),
    )


async def get(tx: AsyncManagedTransaction, scope: UserScope, month: str) -> StoredSummary | None:
    result = await tx.run(_GET, scope=scope.key, id=summary_id(scope.user_id, month))
    record = await result.single()
    return _stored(record) if record is not None else None


async def newest(tx: AsyncManagedTransaction, scope: UserScope, limit: int) -> list[StoredSummary]:
    result = await tx.run(_LIST, scope=scope.key, limit=limit)
    return [_stored(r) async for r in result]


async def previous_total(tx: AsyncManagedTransaction, scope: UserScope, month: str) -> int | None:
    record = await (await tx.run(_PREVIOUS_TOTAL, scope=scope.key, month=month)).single()
    return int(record["memories"]) if record is not None else None


async def mark_seen(
    tx: AsyncManagedTransaction, scope: UserScope, months: list[str], at: datetime
) -> int:
    ids = [summary_id(scope.user_id, m) for m in months]
    record = await (await tx.run(_MARK_SEEN, scope=scope.key, ids=ids, at=at)).single(strict=True)
    return int(record["marked"])


async def delete_batch(tx: AsyncManagedTransaction, scope: UserScope, batch: int) -> int:
    record = await (await tx.run(_DELETE_BATCH, scope=scope.key, batch=batch)).single(strict=True)
    return int(record["deleted"])
