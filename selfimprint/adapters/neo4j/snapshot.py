"""A user's whole graph out of Neo4j and back (the warm/cold tiers serialise the snapshot)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from neo4j import AsyncManagedTransaction

from selfimprint.adapters.neo4j import writes
from selfimprint.adapters.neo4j.forgetting import delete_graph_batch
from selfimprint.adapters.neo4j.records import (
    EDGE_PROJECTION,
    HYPOTHESIS_PROJECTION,
    TENSION_PROJECTION,
    TYPE_LABELS,
    Rows,
    chunked,
    edge_from_record,
    edge_row,
    hypothesis_from_record,
    node_from_record,
    node_projection,
    node_row,
    set_times,
    tension_from_record,
)
from selfimprint.domain.models import Edge, HypothesisStatus, Node
from selfimprint.domain.users import UserScope
from selfimprint.ports import GraphSnapshot

# A hypothesis has its lifecycle record (`hypothesis_created_at` and the rest); another memory
# the user marked wrong (PATCH wrong, a review's or a tension's answer) carries only
# `hypothesis_status` = refuted, which travels as `GraphSnapshot.refuted_ids`.
_NODES = f"""
MATCH (n:Memory {{scope: $scope}})
RETURN {node_projection("n", with_vectors=True)} AS node,
       CASE WHEN n.hypothesis_created_at IS NULL THEN null ELSE {HYPOTHESIS_PROJECTION} END AS hyp,
       n.hypothesis_created_at IS NULL AND n.hypothesis_status = $refuted AS refuted
ORDER BY n.id
"""

_SET_REFUTED = """
UNWIND $ids AS id
MATCH (n:Memory {scope: $scope, id: id})
SET n.hypothesis_status = $refuted
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
    node_rows = [
        r async for r in await tx.run(_NODES, scope=scope.key, refuted=HypothesisStatus.REFUTED)
    ]
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
        refuted_ids=tuple(r["node"]["id"] for r in node_rows if r["refuted"]),
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
    elements = await _create_nodes(tx, scope, snapshot.nodes)
    await _create_edges(tx, snapshot.edges, elements)
    await writes.set_hypotheses(tx, scope, snapshot.hypotheses)
    for chunk in chunked(snapshot.refuted_ids, writes.BATCH):
        await tx.run(
            _SET_REFUTED, scope=scope.key, ids=list(chunk), refuted=HypothesisStatus.REFUTED
        )
    await writes.upsert_tensions(tx, scope, snapshot.tensions)


# The graph was just emptied in this transaction, so nodes are CREATEd, not MERGEd, and edges
# find their ends by element id. Inside one transaction, a lookup by (scope, id) has to sift
# every node the transaction has created so far: MERGE made a 10,000-node import quadratic
# (1,000 nodes 1.7 s, 10,000 nodes 71 s). The uniqueness constraint is still checked at commit.
# Outside the vector index: a rehydrate stays quick, reads use the exact scan meanwhile, and
# the user's next write moves them into the index if they need it.
def _create_nodes_query(label: str) -> str:
    return f"""
UNWIND $rows AS row
CREATE (n:Memory:{label} {{scope: $scope, id: row.id, tenant_id: $tenant_id}})
SET n += row.props, n.sources = row.sources
{set_times("n")}
{writes.SET_VECTOR}
RETURN row.id AS id, elementId(n) AS element
"""


_CREATE_NODES = {node_type: _create_nodes_query(label) for node_type, label in TYPE_LABELS.items()}

_CREATE_EDGES = f"""
UNWIND $rows AS row
MATCH (a) WHERE elementId(a) = row.source
MATCH (b) WHERE elementId(b) = row.target
CREATE (a)-[r:$(row.type)]->(b)
SET r += row.props
{set_times("r")}
"""


async def _create_nodes(
    tx: AsyncManagedTransaction, scope: UserScope, nodes: Sequence[Node]
) -> dict[str, str]:
    """Create the nodes; returns memory id -> element id."""
    elements: dict[str, str] = {}
    for node_type, label_nodes in writes.by_type(nodes).items():
        for chunk in chunked(label_nodes, writes.BATCH):
            result = await tx.run(
                _CREATE_NODES[node_type],
                scope=scope.key,
                tenant_id=scope.tenant_id,
                rows=Rows(node_row(n) for n in chunk),
            )
            elements.update({r["id"]: r["element"] async for r in result})
    return elements


async def _create_edges(
    tx: AsyncManagedTransaction, edges: Sequence[Edge], elements: dict[str, str]
) -> None:
    missing = sorted({i for e in edges for i in (e.source_id, e.target_id)} - elements.keys())
    if missing:
        raise writes.MissingNodesError(missing)
    for chunk in chunked(edges, writes.BATCH):
        rows = Rows(
            {**edge_row(e), "source": elements[e.source_id], "target": elements[e.target_id]}
            for e in chunk
        )
        await tx.run(_CREATE_EDGES, rows=rows)


_COUNTS = """
CALL () {
  MATCH (n:Memory {scope: $scope})
  RETURN count(n) AS nodes, count(n.hypothesis_created_at) AS hypotheses
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
