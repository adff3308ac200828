"""Executing a `domain.compaction.CompactionPlan` (spec §3.9). The rules that make the plan are
pure domain code; this module carries it out in one transaction, in the order the plan's
docstring prescribes, so a pass is all-or-nothing and a retried pass finds its work done
(deleted things are simply not matched again; survivor updates and rewrites set absolute values).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from neo4j import AsyncManagedTransaction

from selfimprint.adapters.neo4j import writes
from selfimprint.adapters.neo4j.forgetting import delete_nodes
from selfimprint.adapters.neo4j.records import REL_TYPES, storable
from selfimprint.domain.compaction.duplicates import NodeMerge
from selfimprint.domain.compaction.edges import EdgeKey
from selfimprint.domain.compaction.plan import CompactionPlan
from selfimprint.domain.models import Edge
from selfimprint.domain.users import UserScope
from selfimprint.ports import CompactionOutcome

_UPDATE_SURVIVORS = """
UNWIND $rows AS row
MATCH (s:Memory {scope: $scope, id: row.survivor_id})
SET s += row.props
"""

_DELETE_EDGES = """
UNWIND $rows AS row
MATCH (a:Memory {scope: $scope, id: row.source_id})-[r]->(b:Memory {scope: $scope, id: row.target_id})
WHERE type(r) = row.type
DELETE r
RETURN count(*) AS deleted
"""  # noqa: E501

# Tensions and hypothesis evidence name memories by id; they follow a merged id to its survivor.
_REPOINT_TENSIONS = """
UNWIND $merges AS merge
MATCH (t:Tension {scope: $scope})
WHERE t.node_a IN merge.merged_ids OR t.node_b IN merge.merged_ids
SET t.node_a = CASE WHEN t.node_a IN merge.merged_ids THEN merge.survivor_id ELSE t.node_a END,
    t.node_b = CASE WHEN t.node_b IN merge.merged_ids THEN merge.survivor_id ELSE t.node_b END
WITH t WHERE t.node_a = t.node_b
DELETE t
"""

_REPOINT_EVIDENCE = """
UNWIND $merges AS merge
MATCH (h:Memory:Hypothesis {scope: $scope})
WHERE any(e IN coalesce(h.hypothesis_supporting, []) + coalesce(h.hypothesis_contradicting, [])
          WHERE e IN merge.merged_ids)
WITH h, merge,
     [e IN h.hypothesis_supporting |
        CASE WHEN e IN merge.merged_ids THEN merge.survivor_id ELSE e END] AS supporting,
     [e IN h.hypothesis_contradicting |
        CASE WHEN e IN merge.merged_ids THEN merge.survivor_id ELSE e END] AS contradicting,
     [e IN coalesce(h.hypothesis_model_supported, []) |
        CASE WHEN e IN merge.merged_ids THEN merge.survivor_id ELSE e END] AS model_supported
SET h.hypothesis_supporting = reduce(acc = [], e IN supporting |
                                     CASE WHEN e IN acc THEN acc ELSE acc + e END),
    h.hypothesis_contradicting = reduce(acc = [], e IN contradicting |
                                        CASE WHEN e IN acc THEN acc ELSE acc + e END),
    h.hypothesis_model_supported = reduce(acc = [], e IN model_supported |
                                          CASE WHEN e IN acc THEN acc ELSE acc + e END)
"""


def _survivor_row(merge: NodeMerge) -> dict[str, Any]:
    # The node's and its belief's fields, flattened as the store keeps them (records.py).
    props = {k: storable(v) for k, v in (merge.node_update() | merge.belief_update()).items()}
    return {"survivor_id": merge.survivor_id, "props": props}


def _key_rows(keys: Iterable[EdgeKey]) -> list[dict[str, str]]:
    return [
        {"source_id": k.source_id, "target_id": k.target_id, "type": REL_TYPES[k.type]}
        for k in keys
    ]


async def _delete_edges(
    tx: AsyncManagedTransaction, scope: UserScope, keys: list[dict[str, str]]
) -> int:
    if not keys:
        return 0
    result = await tx.run(_DELETE_EDGES, scope=scope.key, rows=keys)
    return int((await result.single(strict=True))["deleted"])


async def apply_plan(
    tx: AsyncManagedTransaction, scope: UserScope, plan: CompactionPlan
) -> CompactionOutcome:
    merges = [{"survivor_id": m.survivor_id, "merged_ids": list(m.merged_ids)} for m in plan.merges]
    if merges:
        await tx.run(
            _UPDATE_SURVIVORS, scope=scope.key, rows=[_survivor_row(m) for m in plan.merges]
        )
        await tx.run(_REPOINT_TENSIONS, scope=scope.key, merges=merges)
        await tx.run(_REPOINT_EVIDENCE, scope=scope.key, merges=merges)
    edges_deleted = await _delete_edges(tx, scope, _key_rows(r.key for r in plan.removed_edges))
    rewrites = plan.rewritten_edges
    await _delete_edges(tx, scope, _key_rows(k for r in rewrites for k in r.replaces))
    # A rewrite onto a node this retried pass already deleted would fail: skip those.
    gone = set(await writes.missing_ids(tx, scope, {i for r in rewrites for i in _ends(r.edge)}))
    await writes.upsert_edges(
        tx, scope, [r.edge for r in rewrites if not set(_ends(r.edge)) & gone]
    )
    doomed = [i for m in plan.merges for i in m.merged_ids] + [
        r.node_id for r in plan.removed_nodes
    ]
    deleted = await delete_nodes(tx, scope, doomed, keep_worded_tensions=True)
    return CompactionOutcome(
        edges_deleted=edges_deleted,
        nodes_merged=len(plan.merges),
        edges_rewritten=len(rewrites),
        nodes_deleted=deleted,
    )


def _ends(edge: Edge) -> tuple[str, str]:
    return edge.source_id, edge.target_id
