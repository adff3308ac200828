"""A user's whole graph out of Neo4j and back (the warm/cold tiers serialise the snapshot)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from neo4j import AsyncManagedTransaction

from selfimprint.adapters.neo4j import writes
from selfimprint.adapters.neo4j.forgetting import delete_graph_batch
from selfimprint.adapters.neo4j.records import (
    EDGE_PROJECTION,
    HYPOTHESIS_PROJECTION,
    TENSION_PROJECTION,
    UserScope,
    edge_from_record,
    hypothesis_from_record,
    node_from_record,
    node_projection,
    tension_from_record,
)
from selfimprint.ports import GraphSnapshot

_NODES = f"""
MATCH (n:Memory {{scope: $scope}})
RETURN {node_projection("n", with_vectors=True)} AS node,
       CASE WHEN n.hypothesis_status IS NULL THEN null ELSE {HYPOTHESIS_PROJECTION} END AS hyp
ORDER BY n.id
"""

_EDGES = f"""
MATCH (a:Memory {{scope: $scope}})-[r]->(:Memory {{scope: $scope}})
RETURN {EDGE_PROJECTION} AS edge
ORDER BY edge.source_id, edge.target_id, edge.type
"""

_TENSIONS = f"""
MATCH (t:Tension {{scope: $scope}})
RETURN {TENSION_PROJECTION} AS tension
ORDER BY tension.id
"""


async def export_graph(
    tx: AsyncManagedTransaction, scope: UserScope, now: datetime
) -> GraphSnapshot:
    """Read in one transaction, so the snapshot is consistent."""
    node_rows = [r async for r in await tx.run(_NODES, scope=scope.key)]
    edge_rows = [r async for r in await tx.run(_EDGES, scope=scope.key)]
    tension_rows = [r async for r in await tx.run(_TENSIONS, scope=scope.key)]
    return GraphSnapshot(
        user_id=scope.user_id,
        exported_at=now,
        nodes=tuple(node_from_record(r["node"]) for r in node_rows),
        edges=tuple(edge_from_record(r["edge"]) for r in edge_rows),
        hypotheses=tuple(
            hypothesis_from_record(r["node"]["id"], r["hyp"]) for r in node_rows if r["hyp"]
        ),
        tensions=tuple(tension_from_record(r["tension"]) for r in tension_rows),
    )


async def import_graph(
    tx: AsyncManagedTransaction, scope: UserScope, snapshot: GraphSnapshot
) -> None:
    """Replace the user's graph with the snapshot, all in the caller's one transaction: a
    failure anywhere leaves the previous graph untouched, and a retry gives the same graph."""
    if snapshot.user_id != scope.user_id:
        raise writes.ScopeViolationError(
            f"snapshot of user {snapshot.user_id!r} cannot be imported for {scope.user_id!r}"
        )
    writes.check_scope(scope, snapshot.nodes)
    while any(await delete_graph_batch(tx, scope)):
        pass
    # Outside the vector index: a rehydrate stays one quick transaction, reads use the exact
    # scan meanwhile, and the user's next write moves them into the index if they need it.
    await writes.upsert_nodes(tx, scope, snapshot.nodes, indexed=False)
    await writes.upsert_edges(tx, scope, snapshot.edges)
    await writes.set_hypotheses(tx, scope, snapshot.hypotheses)
    await writes.upsert_tensions(tx, scope, snapshot.tensions)


_COUNTS = """
CALL () {
  MATCH (n:Memory {scope: $scope})
  RETURN count(n) AS nodes, count(n.hypothesis_status) AS hypotheses
}
CALL () { MATCH (:Memory {scope: $scope})-[r]->(:Memory {scope: $scope}) RETURN count(r) AS edges }
CALL () { MATCH (t:Tension {scope: $scope}) RETURN count(t) AS tensions }
RETURN nodes, edges, hypotheses, tensions
"""


@dataclass(frozen=True)
class GraphCounts:
    nodes: int
    edges: int
    hypotheses: int
    tensions: int


async def count_graph(tx: AsyncManagedTransaction, scope: UserScope) -> GraphCounts:
    """What a snapshot of the user would hold, counted without reading it (tier checks)."""
    record = await (await tx.run(_COUNTS, scope=scope.key)).single(strict=True)
    return GraphCounts(
        int(record["nodes"]), int(record["edges"]), int(record["hypotheses"]),
        int(record["tensions"]),
    )  # fmt: skip
