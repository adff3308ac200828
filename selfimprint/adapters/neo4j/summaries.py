"""Monthly summaries: `(:MonthlySummary {scope, id: <user>-<YYYY-MM>})`, the summary itself as
JSON in `body` (it is read back whole, never queried by field) and the few fields the queries
need beside it.

Idempotent by month: the write MERGEs on the month's id and replaces the body. `seen_at` survives
a retry of the same run (same `produced_at`) and is cleared by a new run, so a summary produced
again is announced again.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from selfimprint.domain.monthly_summary import MonthlySummary, summary_id, without_entries
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


# Summaries that may quote these memories: the body names each entry's memory id, so a body
# without any of the ids cannot cite them (a prefilter; the domain decides). A topic is looked
# for in the parsed entries, not in the JSON (escaping would hide some matches).
_QUOTING = """
MATCH (s:MonthlySummary {scope: $scope})
WHERE s.status = 'produced'
  AND ($text IS NOT NULL OR any(id IN $ids WHERE s.body CONTAINS id))
RETURN s.id AS id, s.body AS body
"""

# Only the body: produced_at and seen_at stay, so the rewrite is not announced as a new summary.
_REWRITE = """
UNWIND $rows AS row
MATCH (s:MonthlySummary {scope: $scope, id: row.id})
SET s.body = row.body
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


async def without_memories(
    tx: AsyncManagedTransaction,
    scope: UserScope,
    ids: Collection[str],
    text: str | None,
    *,
    write: bool,
) -> int:
    """Rewrite each summary that quotes one of these memories (or, given `text`, the topic)
    without those entries (`monthly_summary.without_entries`); how many summaries it touched
    (or, with `write` False, would touch: a dry run's read transaction)."""
    if not ids and text is None:
        return 0
    result = await tx.run(_QUOTING, scope=scope.key, ids=sorted(ids), text=text)
    rows = []
    async for record in result:
        summary = MonthlySummary.model_validate_json(record["body"])
        rewritten = without_entries(summary, set(ids), text)
        if rewritten is not summary:
            rows.append({"id": record["id"], "body": rewritten.model_dump_json()})
    if write and rows:
        await tx.run(_REWRITE, scope=scope.key, rows=rows)
    return len(rows)
