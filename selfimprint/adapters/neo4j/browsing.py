"""What a user (through the app) sees of their memory: lists with filters, one memory with the
edges that explain it, the most recent memories, and the status a correction sets."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from neo4j import AsyncManagedTransaction

from selfimprint.adapters.neo4j.records import (
    EDGE_PROJECTION,
    edge_from_record,
    node_from_record,
    node_projection,
    utc,
)
from selfimprint.adapters.neo4j.search_terms import TERM_INDEX, any_term_query
from selfimprint.domain.models import Edge, HypothesisStatus, Node, NodeType
from selfimprint.domain.users import UserScope

# Statuses that take a memory out of retrieval; a user's "this is wrong" sets `refuted` on any
# memory, the hypothesis lifecycle sets the others.
ARCHIVED = [
    HypothesisStatus.REFUTED.value,
    HypothesisStatus.ARCHIVED_UNRESOLVED.value,
    HypothesisStatus.ARCHIVED_STUCK.value,
]

_RECENT = f"""
MATCH (n:Memory {{scope: $scope}})
WHERE n.type <> 'hypothesis' AND NOT coalesce(n.hypothesis_status, 'active') IN $archived
RETURN {node_projection("n")} AS node
ORDER BY coalesce(n.last_reinforced_at, n.created_at) DESC, n.id
LIMIT $limit
"""

# The memories that share the most search terms with a text (ties: the most recent first),
# among the `fetch` that the `memory_terms` full-text index ranks best for the user (Lucene's
# score follows the same shared terms, so the few it ranks lower are rarely the best here).
_SHARING_TERMS = f"""
CALL db.index.fulltext.queryNodes('{TERM_INDEX}', $any_term_query, {{limit: $fetch}})
  YIELD node AS n
WITH n WHERE n.scope = $scope AND n.type <> 'hypothesis'
  AND NOT coalesce(n.hypothesis_status, 'active') IN $archived
WITH n, size([t IN coalesce(n.terms, []) WHERE t IN $terms]) AS shared
WHERE shared > 0
RETURN {node_projection("n")} AS node
ORDER BY shared DESC, coalesce(n.last_reinforced_at, n.created_at) DESC, n.id
LIMIT $limit
"""
# How many of Lucene's best are read again for `sharing_terms`, per memory asked for.
SHARING_FETCH_FACTOR = 4

_LIST = f"""
MATCH (n:Memory {{scope: $scope}})
WHERE ($type IS NULL OR n.type = $type)
  AND ($status IS NULL OR coalesce(n.hypothesis_status, 'active') = $status)
  AND ($archived IS NULL OR (coalesce(n.hypothesis_status, 'active') IN $archived_set) = $archived)
RETURN {node_projection("n")} AS node, coalesce(n.hypothesis_status, 'active') AS status
ORDER BY n.created_at DESC, n.id
SKIP $offset LIMIT $limit
"""

_EDGES_OF = f"""
MATCH (n:Memory {{scope: $scope, id: $id}})-[r]-(m:Memory {{scope: $scope}})
RETURN {EDGE_PROJECTION} AS edge
ORDER BY edge.source_id, edge.target_id, edge.type
"""

_STATUS_OF = """
MATCH (n:Memory {scope: $scope, id: $id})
RETURN coalesce(n.hypothesis_status, 'active') AS status
"""

# A later recall is kept: two contexts racing leave the newer moment.
_MARK_RECALLED = """
MATCH (n:Memory {scope: $scope})
WHERE n.id IN $ids AND (n.recalled_at IS NULL OR n.recalled_at < $at)
SET n.recalled_at = $at
"""


async def mark_recalled(
    tx: AsyncManagedTransaction, scope: UserScope, node_ids: Sequence[str], at: datetime
) -> None:
    await tx.run(_MARK_RECALLED, scope=scope.key, ids=list(node_ids), at=utc(at))


_SET_STATUS = """
MATCH (n:Memory {scope: $scope, id: $id})
SET n.hypothesis_status = $status
RETURN count(n) AS written
"""


async def recent(tx: AsyncManagedTransaction, scope: UserScope, limit: int) -> list[Node]:
    result = await tx.run(_RECENT, scope=scope.key, limit=limit, archived=ARCHIVED)
    return [node_from_record(r["node"]) async for r in result]


async def sharing_terms(
    tx: AsyncManagedTransaction, scope: UserScope, terms: Sequence[str], limit: int
) -> list[Node]:
    result = await tx.run(
        _SHARING_TERMS,
        scope=scope.key,
        terms=list(terms),
        limit=limit,
        fetch=SHARING_FETCH_FACTOR * max(limit, 1),
        archived=ARCHIVED,
        any_term_query=any_term_query(scope.key, terms),
    )
    return [node_from_record(r["node"]) async for r in result]


async def list_memories(
    tx: AsyncManagedTransaction,
    scope: UserScope,
    *,
    type_: NodeType | None,
    status: HypothesisStatus | None,
    archived: bool | None,
    offset: int,
    limit: int,
) -> list[tuple[Node, HypothesisStatus]]:
    result = await tx.run(
        _LIST,
        scope=scope.key,
        type=type_.value if type_ else None,
        status=status.value if status else None,
        archived=archived,
        archived_set=ARCHIVED,
        offset=offset,
        limit=limit,
    )
    return [(node_from_record(r["node"]), HypothesisStatus(r["status"])) async for r in result]


async def edges_of(tx: AsyncManagedTransaction, scope: UserScope, node_id: str) -> list[Edge]:
    result = await tx.run(_EDGES_OF, scope=scope.key, id=node_id)
    return [edge_from_record(r["edge"]) async for r in result]


async def status_of(
    tx: AsyncManagedTransaction, scope: UserScope, node_ids: Sequence[str]
) -> HypothesisStatus | None:
    (node_id,) = node_ids
    record = await (await tx.run(_STATUS_OF, scope=scope.key, id=node_id)).single()
    return None if record is None else HypothesisStatus(record["status"])


async def set_status(
    tx: AsyncManagedTransaction, scope: UserScope, node_id: str, status: HypothesisStatus
) -> bool:
    record = await (
        await tx.run(_SET_STATUS, scope=scope.key, id=node_id, status=status.value)
    ).single(strict=True)
    return bool(record["written"])
