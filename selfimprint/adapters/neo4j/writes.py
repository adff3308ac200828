"""Idempotent writes: batched node/edge upserts, reinforcement, contradictions, hypotheses.

Every statement MERGEs on (scope, id) and SETs absolute values (sources are united as a set), so
a managed transaction that the driver retries, or an activity that Temporal retries, leaves the
same graph as a single successful run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from neo4j import AsyncManagedTransaction

from selfimprint.adapters.neo4j.records import (
    INDEXED_LABEL,
    TYPE_LABELS,
    Rows,
    belief_properties,
    chunked,
    edge_row,
    hypothesis_row,
    node_row,
    set_times,
    split_times,
    tension_row,
    utc,
)
from selfimprint.domain.models import Belief, Edge, Hypothesis, Node, NodeType, Tension
from selfimprint.domain.users import UserScope
from selfimprint.ports import Downweight, Reinforcement

BATCH = 1_000


class ScopeViolationError(ValueError):
    """A node of another user was handed to a store bound to this one."""


class MissingNodesError(LookupError):
    def __init__(self, node_ids: Sequence[str]) -> None:
        super().__init__(f"unknown memory ids in this user's graph: {sorted(node_ids)[:20]}")
        self.node_ids = tuple(node_ids)


# Stores `row.embedding` as float32 (half a float64 list) under `row.vector_property`, and the
# reply-context vector likewise; rows without a vector pass through. Every node write path ends
# with it.
SET_VECTOR = """WITH n, row
CALL (n, row) {
  WITH n, row WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, row.vector_property, row.embedding)
}
CALL (n, row) {
  WITH n, row WHERE row.context_embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, row.context_vector_property, row.context_embedding)
}"""


def _upsert_nodes_query(label: str, indexed: bool) -> str:
    # One query per type label: a static label is set twice as fast as `SET n:$(row.label)`.
    others = ":".join(other for other in TYPE_LABELS.values() if other != label)
    labels = f"{label}:{INDEXED_LABEL}" if indexed else label
    return f"""
UNWIND $rows AS row
MERGE (n:Memory {{scope: $scope, id: row.id}})
  ON CREATE SET n.tenant_id = $tenant_id, n.sources = []
SET n += row.props, n:{labels}
{set_times("n")}
REMOVE n:{others}
SET n.sources = n.sources + [s IN row.sources WHERE NOT s IN n.sources]
{SET_VECTOR}
"""


_UPSERT_NODES = {
    (node_type, indexed): _upsert_nodes_query(label, indexed)
    for node_type, label in TYPE_LABELS.items()
    for indexed in (False, True)
}

# Into the vector index: a user whose graph has outgrown the exact scan. Batched, one
# transaction per batch, so a 10,000-node user is not one long HNSW-inserting transaction.
_INDEX_USER_BATCH = f"""
MATCH (n:Memory {{scope: $scope}}) WHERE NOT n:{INDEXED_LABEL}
WITH n LIMIT $batch
SET n:{INDEXED_LABEL}
RETURN count(n) AS indexed
"""

_MISSING_NODES = """
UNWIND $ids AS id
OPTIONAL MATCH (n:Memory {scope: $scope, id: id})
WITH id WHERE n IS NULL
RETURN collect(id) AS missing
"""

_UPSERT_EDGES = f"""
UNWIND $rows AS row
MATCH (a:Memory {{scope: $scope, id: row.source_id}})
MATCH (b:Memory {{scope: $scope, id: row.target_id}})
MERGE (a)-[r:$(row.type)]->(b)
SET r += row.props
{set_times("r")}
"""


def check_scope(scope: UserScope, nodes: Sequence[Node]) -> None:
    strangers = sorted({n.user_id for n in nodes if n.user_id != scope.user_id})
    if strangers:
        raise ScopeViolationError(
            f"store bound to user {scope.user_id!r} was given nodes of {strangers[:5]}"
        )


async def missing_ids(tx: AsyncManagedTransaction, scope: UserScope, ids: set[str]) -> list[str]:
    missing: list[str] = []
    for chunk in chunked(sorted(ids), BATCH):
        result = await tx.run(_MISSING_NODES, scope=scope.key, ids=list(chunk))
        missing += (await result.single(strict=True))["missing"]
    return missing


async def _require_nodes(tx: AsyncManagedTransaction, scope: UserScope, ids: set[str]) -> None:
    missing = await missing_ids(tx, scope, ids)
    if missing:
        raise MissingNodesError(missing)


def by_type(nodes: Sequence[Node]) -> dict[NodeType, list[Node]]:
    """One UNWIND per type label: queries set static labels (see _upsert_nodes_query)."""
    grouped: dict[NodeType, list[Node]] = {}
    for node in nodes:
        grouped.setdefault(node.type, []).append(node)
    return grouped


async def upsert_nodes(
    tx: AsyncManagedTransaction, scope: UserScope, nodes: Sequence[Node], *, indexed: bool
) -> None:
    """`indexed`: the user is served by the vector index, so new nodes join it at once."""
    for node_type, typed in by_type(nodes).items():
        for chunk in chunked(typed, BATCH):
            await tx.run(
                _UPSERT_NODES[(node_type, indexed)],
                scope=scope.key,
                tenant_id=scope.tenant_id,
                rows=Rows(node_row(n) for n in chunk),
            )


async def index_user_batch(tx: AsyncManagedTransaction, scope: UserScope) -> int:
    """Label up to BATCH of the user's not-yet-indexed nodes; returns how many."""
    result = await tx.run(_INDEX_USER_BATCH, scope=scope.key, batch=BATCH)
    return int((await result.single(strict=True))["indexed"])


async def upsert_edges(
    tx: AsyncManagedTransaction, scope: UserScope, edges: Sequence[Edge]
) -> None:
    """Edges only ever join two nodes of the same scope; an unknown endpoint fails the whole
    transaction instead of silently dropping the edge."""
    await _require_nodes(tx, scope, {i for e in edges for i in (e.source_id, e.target_id)})
    for chunk in chunked(edges, BATCH):
        await tx.run(_UPSERT_EDGES, scope=scope.key, rows=Rows(edge_row(e) for e in chunk))


# A belief is written whole (absolute values, its evidence ids included), so a retry writes
# the same node: `$belief` is `belief_row`, empty maps when the change carries no belief.
_SET_BELIEF = """SET n += $belief.props
WITH n, $belief AS row
""" + set_times("n")

_REINFORCE = f"""
MATCH (n:Memory {{scope: $scope, id: $id}})
WITH n, n.weight_at = $weight_at AS already
WHERE already OR $expected_weight_at IS NULL OR n.weight_at = $expected_weight_at
SET n.weight = $weight, n.weight_at = $weight_at, n.last_reinforced_at = $last_reinforced_at,
    n.expires_at = $expires_at, n.reinforcement_day = $day,
    n.reinforcements_applied = $applied, n.reinforcements_ignored = $ignored,
    n.sources = n.sources + [s IN $source_ids WHERE NOT s IN n.sources]
{_SET_BELIEF}
RETURN count(n) AS written
"""

_DOWNWEIGHT = f"""
MATCH (n:Memory {{scope: $scope, id: $id}})
WHERE n.weight_at = $weight_at OR n.weight_at = $expected_weight_at
SET n.weight = $weight, n.weight_at = $weight_at, n.expires_at = $expires_at,
    n.valid_until = CASE WHEN $valid_until IS NULL THEN n.valid_until
                         WHEN n.valid_until IS NULL OR n.valid_until > $valid_until
                         THEN $valid_until ELSE n.valid_until END
{_SET_BELIEF}
RETURN count(n) AS written
"""


def belief_row(belief: Belief | None) -> dict[str, dict[str, Any]]:
    """The belief's stored properties (flat on the node, as `records.node_row` writes them):
    plain values in `props` (a None clears), instants in `times`."""
    if belief is None:
        return {"props": {}, "times": {}}
    props, times = split_times(belief_properties(belief))
    return {"props": props, "times": times}


async def downweight(tx: AsyncManagedTransaction, scope: UserScope, change: Downweight) -> bool:
    """Conditional like `reinforce`: a retry that already landed counts as written."""
    result = await tx.run(
        _DOWNWEIGHT,
        scope=scope.key,
        id=change.node_id,
        weight=change.weight,
        weight_at=utc(change.weight_at),
        expires_at=utc(change.expires_at),
        expected_weight_at=utc(change.expected_weight_at),
        belief=belief_row(change.belief),
        valid_until=utc(change.valid_until) if change.valid_until is not None else None,
    )
    record = await result.single(strict=True)
    return bool(record["written"])


async def reinforce(tx: AsyncManagedTransaction, scope: UserScope, change: Reinforcement) -> bool:
    """True when written. False when the node is gone or changed since the caller read it; a
    retry of a write that already landed (same weight_at) counts as written."""
    result = await tx.run(
        _REINFORCE,
        scope=scope.key,
        id=change.node_id,
        weight=change.weight,
        weight_at=utc(change.weight_at),
        last_reinforced_at=utc(change.last_reinforced_at),
        expires_at=utc(change.expires_at),
        day=change.tally.day,
        applied=change.tally.applied,
        ignored=change.tally.ignored,
        source_ids=list(change.source_ids),
        expected_weight_at=utc(change.expected_weight_at),
        belief=belief_row(change.belief),
    )
    record = await result.single(strict=True)
    return bool(record["written"])


_UPSERT_TENSIONS = """
UNWIND $rows AS row
MERGE (t:Tension {scope: $scope, id: row.id})
SET t += row.props
"""


async def upsert_tensions(
    tx: AsyncManagedTransaction, scope: UserScope, tensions: Sequence[Tension]
) -> None:
    # A tension that keeps its words may outlive a side (Tension.a_said); one without them
    # needs both.
    await _require_nodes(
        tx,
        scope,
        {i for t in tensions if not t.keeps_its_words for i in (t.node_a, t.node_b)},
    )
    for chunk in chunked(tensions, BATCH):
        await tx.run(_UPSERT_TENSIONS, scope=scope.key, rows=[tension_row(t) for t in chunk])


_SET_HYPOTHESES = """
UNWIND $rows AS row
MATCH (n:Memory:Hypothesis {scope: $scope, id: row.id})
SET n += row.props
RETURN count(n) AS written
"""


async def set_hypotheses(
    tx: AsyncManagedTransaction, scope: UserScope, hypotheses: Sequence[Hypothesis]
) -> None:
    ids = {h.node_id for h in hypotheses}
    await _require_nodes(tx, scope, ids)
    for chunk in chunked(hypotheses, BATCH):
        await tx.run(_SET_HYPOTHESES, scope=scope.key, rows=[hypothesis_row(h) for h in chunk])
