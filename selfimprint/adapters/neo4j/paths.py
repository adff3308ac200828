"""Typed-path questions the sleep phase asks (spec §3.2): causal chains, causes, what followed.

Edge direction follows the spec's wording: (A)-[:CAUSED_BY]->(B) "A happened because of B",
(A)-[:FOLLOWED_BY]->(B) "A came after B". Variable-length bounds cannot be Cypher parameters,
so patterns use the fixed ceiling MAX_PATH_LENGTH and the caller's bounds filter by parameter.
"""

from __future__ import annotations

from datetime import timedelta

from neo4j import AsyncManagedTransaction

from selfimprint.adapters.neo4j.records import node_from_record, node_projection
from selfimprint.domain.models import Node
from selfimprint.domain.users import UserScope
from selfimprint.ports import CauseStep

MAX_PATH_LENGTH = 10

_CHAINS = f"""
MATCH p = (a:Memory {{scope: $scope}})-[:CAUSED_BY*1..{MAX_PATH_LENGTH}]->(b:Memory)
WHERE length(p) >= $min_length AND length(p) <= $max_length
  AND all(x IN nodes(p) WHERE x.scope = $scope)
  AND NOT EXISTS {{ (:Memory {{scope: $scope}})-[:CAUSED_BY]->(a) }}
  AND (length(p) = $max_length OR NOT EXISTS {{ (b)-[:CAUSED_BY]->(:Memory) }})
RETURN [x IN nodes(p) | {node_projection("x")}] AS chain
ORDER BY length(p) DESC, a.id
LIMIT $limit
"""

_CAUSES = f"""
MATCH p = (x:Memory {{scope: $scope, id: $id}})-[:CAUSED_BY*1..{MAX_PATH_LENGTH}]->(c:Memory)
WHERE length(p) <= $max_depth AND all(y IN nodes(p) WHERE y.scope = $scope)
WITH c, min(length(p)) AS depth
RETURN {node_projection("c")} AS node, depth
ORDER BY depth, node.id
"""

_FOLLOWED = f"""
MATCH (x:Memory {{scope: $scope, id: $id}})
MATCH p = (a:Memory)-[:FOLLOWED_BY*1..{MAX_PATH_LENGTH}]->(x)
WHERE length(p) <= $max_depth AND all(y IN nodes(p) WHERE y.scope = $scope)
  AND x.created_at <= a.created_at <= x.created_at + $window
WITH DISTINCT a
RETURN {node_projection("a")} AS node
ORDER BY node.created_at, node.id
"""


def _check_bounds(*bounds: int) -> None:
    if not all(1 <= b <= MAX_PATH_LENGTH for b in bounds):
        raise ValueError(f"path lengths must lie in 1..{MAX_PATH_LENGTH}")


async def causal_chains(
    tx: AsyncManagedTransaction, scope: UserScope, min_length: int, max_length: int, limit: int
) -> list[list[Node]]:
    """Maximal caused_by chains with min_length..max_length edges: each starts at an effect
    that nothing points at and runs to a root cause (or to max_length)."""
    _check_bounds(min_length, max_length)
    result = await tx.run(
        _CHAINS, scope=scope.key, min_length=min_length, max_length=max_length, limit=limit
    )
    return [[node_from_record(n) for n in record["chain"]] async for record in result]


async def causes_of(
    tx: AsyncManagedTransaction, scope: UserScope, node_id: str, max_depth: int
) -> list[CauseStep]:
    _check_bounds(max_depth)
    result = await tx.run(_CAUSES, scope=scope.key, id=node_id, max_depth=max_depth)
    return [
        CauseStep(node=node_from_record(r["node"]), depth=int(r["depth"])) async for r in result
    ]


async def followed_within(
    tx: AsyncManagedTransaction,
    scope: UserScope,
    node_id: str,
    window: timedelta,
    max_depth: int,
) -> list[Node]:
    """Memories that came after `node_id` (followed_by chains of up to max_depth edges) and
    were created within `window` of it."""
    _check_bounds(max_depth)
    result = await tx.run(
        _FOLLOWED, scope=scope.key, id=node_id, window=window, max_depth=max_depth
    )
    return [node_from_record(r["node"]) async for r in result]
