"""Sleep-phase writes: the per-run operation journal, patterns, triggers, open-loop questions.

`claim` makes an operation's writes exactly-once: it records the operation on the run's
`:SleepRun` node inside the same transaction as the writes, so either both commit or neither does,
and a retry finds the operation done and writes nothing.

Open-loop questions do not pile up: the pass that prepares them also removes the user's earlier
ones the context can no longer serve (`SleepWrites.questions_stale_before`, `_PRUNE_QUESTIONS`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from selfimprint.adapters.neo4j import forgetting, writes
from selfimprint.adapters.neo4j.records import chunked
from selfimprint.domain.patterns import Pattern
from selfimprint.domain.scheduled_triggers import OpenLoopQuestion, ScheduledTrigger
from selfimprint.domain.sleep_writes import (
    SleepRunRecord,
    SleepStatus,
    SleepWrites,
    WeightChange,
    orphan_summary,
)
from selfimprint.domain.users import UserScope

BATCH = 500

_CLAIM = """
MERGE (r:SleepRun {scope: $scope, id: $run})
  ON CREATE SET r.tenant_id = $tenant_id, r.operations = [], r.status = 'running'
WITH r, $op IN r.operations AS done
SET r.operations = CASE WHEN done THEN r.operations ELSE r.operations + $op END
RETURN done
"""

_RECORD_RUN = """
MERGE (r:SleepRun {scope: $scope, id: $run})
  ON CREATE SET r.tenant_id = $tenant_id, r.operations = []
SET r += $props
"""

# A pass beginning closes the user's other records still running (domain.sleep_writes.
# closed_orphan): one pass runs at a time, so they are orphans.
_CLOSE_ORPHANS = """
MATCH (r:SleepRun {scope: $scope, status: 'running'})
WHERE r.id <> $run
SET r.status = 'failed', r.finished_at = $now, r.summary = $summary
RETURN count(r) AS closed
"""

_GET_RUN = """
MATCH (r:SleepRun {scope: $scope, id: $run})
RETURN r {.*} AS run
"""

_UPSERT_PATTERNS = """
UNWIND $rows AS row
MERGE (p:SleepPattern {scope: $scope, id: row.id})
  ON CREATE SET p.tenant_id = $tenant_id, p.first_detected_at = $at
SET p += row.props, p.last_detected_at = $at, p.status = 'active'
"""

_FADE_PATTERNS = """
MATCH (p:SleepPattern {scope: $scope, status: 'active'})
WHERE p.last_detected_at < $at
SET p.status = 'faded'
"""

_ACTIVE_PATTERN_NODES = """
MATCH (p:SleepPattern {scope: $scope, status: 'active'})
UNWIND p.node_ids AS id
RETURN collect(DISTINCT id) AS ids
"""

_SET_WEIGHTS = """
UNWIND $rows AS row
MATCH (n:Memory {scope: $scope, id: row.id})
SET n.weight = row.weight, n.weight_at = row.weight_at, n.expires_at = row.expires_at,
    n.confidence = coalesce(row.confidence, n.confidence)
"""

_UPSERT_TRIGGERS = """
UNWIND $rows AS row
MERGE (t:ScheduledTrigger {scope: $scope, id: row.id})
  ON CREATE SET t.tenant_id = $tenant_id
SET t += row.props
WITH t, row
UNWIND row.props.node_ids AS node_id
MATCH (n:Memory {scope: $scope, id: node_id})
SET n.priority_from = CASE WHEN n.priority_from IS NULL OR n.priority_until < datetime()
                           THEN row.props.activate_from ELSE n.priority_from END,
    n.priority_until = CASE WHEN n.priority_until IS NULL
                                 OR n.priority_until < row.props.activate_until
                            THEN row.props.activate_until ELSE n.priority_until END
"""

_UPSERT_QUESTIONS = """
UNWIND $rows AS row
MERGE (q:OpenLoopQuestion {scope: $scope, id: row.id})
  ON CREATE SET q.tenant_id = $tenant_id, q.created_at = $at
SET q += row.props, q.prepared_at = $at
"""

# The questions the context can no longer serve (its rule: reviews._PROMPTS; the domain's
# statement of this one: SleepWrites.questions_stale_before), except the pass's own ($kept).
# An index seek on the (scope, id) constraint's scope prefix: the user's questions only.
_PRUNE_QUESTIONS = """
MATCH (q:OpenLoopQuestion {scope: $scope})
WHERE NOT q.id IN $kept
OPTIONAL MATCH (n:Memory {scope: $scope, id: q.node_id})
WITH q, n
WHERE q.prepared_at IS NULL OR q.prepared_at < $stale_before OR n IS NULL
   OR (n.type <> 'open_loop' AND NOT coalesce(n.priority_until > $now, false))
DETACH DELETE q
RETURN count(*) AS pruned
"""

_DELETE_NODES = """
UNWIND $ids AS id
MATCH (n:Memory {scope: $scope, id: id})
DETACH DELETE n
"""

LABELS = ("SleepRun", "SleepPattern", "ScheduledTrigger", "OpenLoopQuestion")
# One query per label: each seeks the label's (scope, id) constraint index.
# Erasure also drops the workflows' staged texts and vectors (payload_stage.py).
_DELETE_ALL = {
    label: f"MATCH (x:{label} {{scope: $scope}}) WITH x LIMIT $batch DETACH DELETE x "
    "RETURN count(*) AS deleted"
    for label in (*LABELS, "PayloadStage")
}
_ITEMS = {
    label: f"MATCH (x:{label} {{scope: $scope}}) RETURN x {{.*}} AS item ORDER BY x.id"
    for label in LABELS
}


def _utc(value: datetime | None) -> datetime | None:
    return None if value is None else value.astimezone(UTC)


def _pattern_row(p: Pattern) -> dict[str, Any]:
    return {
        "id": p.id,
        "props": {
            "kind": p.kind.value,
            "key": p.key,
            "description": p.description,
            "strength": p.strength,
            "mentions": p.mentions,
            "node_ids": list(p.node_ids),
            "sources": list(p.sources),
        },
    }


def _weight_row(w: WeightChange) -> dict[str, Any]:
    return {
        "id": w.node_id,
        "weight": w.weight,
        "weight_at": _utc(w.weight_at),
        "expires_at": _utc(w.expires_at),
        "confidence": w.confidence,
    }


def _trigger_row(t: ScheduledTrigger) -> dict[str, Any]:
    return {
        "id": t.id,
        "props": {
            "event_date": t.event_date,
            "activate_from": _utc(t.activate_from),
            "activate_until": _utc(t.activate_until),
            "content": t.content,
            "node_id": t.node_id,
            "node_ids": list(t.node_ids),
            "sources": list(t.sources),
        },
    }


def _question_row(q: OpenLoopQuestion) -> dict[str, Any]:
    return {
        "id": q.id,
        "props": {"question": q.question, "node_id": q.node_id, "sources": list(q.sources)},
    }


async def claim(tx: AsyncManagedTransaction, scope: UserScope, run_id: str, op: str) -> bool:
    """True when this transaction is the first to apply `op` of `run_id`."""
    result = await tx.run(_CLAIM, scope=scope.key, tenant_id=scope.tenant_id, run=run_id, op=op)
    record = await result.single()
    return record is not None and not record["done"]


async def apply_writes(
    tx: AsyncManagedTransaction,
    scope: UserScope,
    run_id: str,
    op: str,
    data: SleepWrites,
    *,
    indexed: bool,
) -> bool:
    """Claim the operation and apply its writes in this transaction; False if already applied."""
    if not await claim(tx, scope, run_id, op):
        return False
    data = data.without(await forgetting.deleted_among(tx, scope, sorted(data.memory_ids())))
    key, tenant = scope.key, scope.tenant_id
    if data.nodes:
        await writes.upsert_nodes(tx, scope, data.nodes, indexed=indexed)
    if data.hypotheses:
        await writes.set_hypotheses(tx, scope, data.hypotheses)
    if data.edges:
        await writes.upsert_edges(tx, scope, data.edges)
    for weights in chunked(data.weights, BATCH):
        await tx.run(_SET_WEIGHTS, scope=key, rows=[_weight_row(w) for w in weights])
    if data.detected_at is not None:
        at = _utc(data.detected_at)
        for patterns in chunked(data.patterns, BATCH):
            rows = [_pattern_row(p) for p in patterns]
            await tx.run(_UPSERT_PATTERNS, scope=key, tenant_id=tenant, at=at, rows=rows)
        await tx.run(_FADE_PATTERNS, scope=key, at=at)
    for triggers in chunked(data.triggers, BATCH):
        rows = [_trigger_row(t) for t in triggers]
        await tx.run(_UPSERT_TRIGGERS, scope=key, tenant_id=tenant, rows=rows)
    now = datetime.now(UTC)
    for questions in chunked(data.questions, BATCH):
        rows = [_question_row(q) for q in questions]
        await tx.run(_UPSERT_QUESTIONS, scope=key, tenant_id=tenant, at=now, rows=rows)
    if data.questions_stale_before is not None:
        await tx.run(
            _PRUNE_QUESTIONS,
            scope=key,
            kept=[q.id for q in data.questions],
            stale_before=_utc(data.questions_stale_before),
            now=now,
        )
    if data.deleted_node_ids:
        await tx.run(_DELETE_NODES, scope=scope.key, ids=list(data.deleted_node_ids))
    return True


async def record_run(tx: AsyncManagedTransaction, scope: UserScope, run: SleepRunRecord) -> None:
    if run.status is SleepStatus.RUNNING:
        await tx.run(
            _CLOSE_ORPHANS,
            scope=scope.key,
            run=run.run_id,
            now=_utc(run.started_at),
            summary=orphan_summary(run.run_id),
        )
    props = {
        "depth": run.depth,
        "status": run.status.value,
        "summary": run.summary,
        "started_at": _utc(run.started_at),
        "finished_at": _utc(run.finished_at),
        "planned_operations": list(run.operations),
    }
    await tx.run(
        _RECORD_RUN, scope=scope.key, tenant_id=scope.tenant_id, run=run.run_id, props=props
    )


async def get_run(
    tx: AsyncManagedTransaction, scope: UserScope, run_id: str
) -> SleepRunRecord | None:
    record = await (await tx.run(_GET_RUN, scope=scope.key, run=run_id)).single()
    if record is None:
        return None
    raw = record["run"]
    native = {k: v.to_native() if hasattr(v, "to_native") else v for k, v in raw.items()}
    return SleepRunRecord(
        run_id=run_id,
        depth=native.get("depth") or "",
        status=SleepStatus(native.get("status") or SleepStatus.RUNNING.value),
        summary=native.get("summary") or "",
        started_at=native.get("started_at") or datetime(1970, 1, 1, tzinfo=UTC),
        finished_at=native.get("finished_at"),
        operations=tuple(native.get("operations") or ()),
    )


async def active_pattern_node_ids(tx: AsyncManagedTransaction, scope: UserScope) -> list[str]:
    record = await (await tx.run(_ACTIVE_PATTERN_NODES, scope=scope.key)).single()
    return sorted(record["ids"]) if record else []


async def items(tx: AsyncManagedTransaction, scope: UserScope, label: str) -> list[dict[str, Any]]:
    """Every stored item of one sleep label (SleepRun, SleepPattern, ScheduledTrigger,
    OpenLoopQuestion), for operators and tests."""
    result = await tx.run(_ITEMS[label], scope=scope.key)
    return [dict(r["item"]) async for r in result]


async def delete_all_batch(tx: AsyncManagedTransaction, scope: UserScope, batch: int) -> int:
    deleted = 0
    for query in _DELETE_ALL.values():
        record = await (await tx.run(query, scope=scope.key, batch=batch)).single()
        deleted += int(record["deleted"]) if record else 0
    return deleted
