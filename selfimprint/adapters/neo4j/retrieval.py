"""Retrieval candidates and their one-hop neighbourhood in one round trip (spec §3.4).

One statement: the user's decay-clock reading (`decay_clock.READING`), a pool of the nearest
memories, the best before similarity (`scoring.prior`) and the scheduled ones, the pool ranked by
the whole §3.4 score (`_RANK`), and the best `limit` expanded one hop (`_EXPAND`).

Two ways to find a user's most similar memories, chosen per query (docs/decisions.md, "Graph
store: vector search strategy"):
- exact: cosine over the user's own nodes, reached through the scope index. Perfect recall and
  isolation by construction; cost grows with the user's node count (~20 µs per node here).
- index: the shared HNSW vector index, over-fetched and then filtered to the user. Cost grows
  with the over-fetch, which is K × (all indexed nodes / the user's nodes): cheap when the user
  owns a large share of the index, hopeless when they own 1/1000 of it. Hence only users above
  `exact_scan_max_nodes` are in the index at all (their nodes carry :IndexedMemory).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from neo4j import AsyncManagedTransaction

from selfimprint.adapters.neo4j import decay_clock
from selfimprint.adapters.neo4j.records import (
    EDGE_PROJECTION,
    INDEXED_LABEL,
    Rows,
    UserScope,
    edge_from_record,
    node_from_record,
    node_projection,
    vector_index,
    vector_property,
)
from selfimprint.domain.decay import DEFAULT_DECAY, DecayConfig
from selfimprint.domain.models import Edge, Node
from selfimprint.domain.scoring import DEFAULT_SCORING, ScoringConfig
from selfimprint.ports import RetrievalQuery, RetrievalResult, RetrievedMemory


def active(var: str) -> str:
    """Cypher condition: not expired on the user's decay clock (`clock_now`, bound by
    decay_clock.READING), and not a refuted or archived hypothesis."""
    return (
        f"({var}.expires_at IS NULL OR {var}.expires_at > clock_now) AND "
        f"coalesce({var}.hypothesis_status, 'active') IN ['active', 'confirmed']"
    )


# The neighbour's scope is checked after the expansion (the WITH in between): written as a
# pattern property, the planner seeks every node of the user through the scope index and
# joins, so expanding 20 candidates of a 3,000-node user cost 250 ms instead of under 1 ms.
_EXPAND = f"""
CALL (n, clock_now) {{
  OPTIONAL MATCH (n)-[r]-(m)
  WITH r, m, clock_now WHERE m:Memory AND m.scope = $scope AND {active("m")}
  RETURN collect({{edge: {EDGE_PROJECTION}, node: {node_projection("m")}}}) AS hood
}}
RETURN {node_projection("n")} AS node, score, scheduled, similar_found, hood,
       clock.decay_clock_last_us AS clock_last_us, clock.decay_clock_pauses_us AS clock_pauses_us
"""

# --- the score of spec §3.4, in Cypher (domain.scoring.score; its numbers are parameters,
# `score_params`, and an integration test holds the two together) -------------------------------

# Effective weight from the expiry, which is on the decay clock: weight x c^(days decayed)
# equals threshold x c^-(days left until expiry), exactly, without the pauses themselves.
_EFFECTIVE_WEIGHT = """CASE WHEN n.expires_at IS NULL THEN n.weight
  ELSE $removal_threshold * n.decay_coefficient
       ^ (-(n.expires_at.epochMillis - clock_now.epochMillis) / $period_ms) END"""
_RECENCY = """2.0 ^ (-(CASE WHEN $now_ms > touched_ms THEN $now_ms - touched_ms ELSE 0 END)
  / $half_life_ms)"""
_MULTIPLIER = "CASE WHEN n.is_inference OR n:Hypothesis THEN $hypothesis_multiplier ELSE 1.0 END"


def _scored(carried: str, similarity: str, boost: str) -> str:
    """WITH clauses that add `total`: the §3.4 score of `n` given its calibrated `similarity`
    expression and priority `boost` expression; `carried` are the variables kept."""
    return f"""
WITH {carried}, coalesce(n.last_reinforced_at, n.created_at).epochMillis AS touched_ms,
     {_EFFECTIVE_WEIGHT} AS eff
WITH {carried}, {_MULTIPLIER} * ($similarity_weight * ({similarity}) + $recency_weight * {_RECENCY}
     + $weight_weight * CASE WHEN eff > 1.0 THEN 1.0 ELSE eff END + ({boost})) AS total
"""


# Neo4j's cosine score is normalised, (1 + cos) / 2; calibrated like scoring.calibrated_similarity.
_CALIBRATED = """CASE WHEN 2.0 * score - 1.0 <= $similarity_floor THEN 0.0
  WHEN 2.0 * score - 1.0 >= 1.0 THEN 1.0
  ELSE (2.0 * score - 1.0 - $similarity_floor) / (1.0 - $similarity_floor) END"""

_BY_INDEX = f"""
CALL db.index.vector.queryNodes($index, $fetch, $embedding) YIELD node AS n, score
WHERE n.scope = $scope AND n.embedding_model = $model AND {active("n")}
WITH n, score ORDER BY score DESC LIMIT $nearest_limit
RETURN n, score, 'similar' AS kind
"""

_EXACT = f"""
MATCH (n:Memory {{scope: $scope}})
WHERE n.embedding_model = $model AND {active("n")}
WITH n, vector.similarity.cosine(n[$property], $embedding) AS score
WHERE score IS NOT NULL
WITH n, score ORDER BY score DESC LIMIT $nearest_limit
RETURN n, score, 'similar' AS kind
"""

# Active scheduled-trigger windows: a range seek on (scope, priority_until), then the window's
# start. The similarity is still computed (0 without a vector of the query's model), so that
# scoring treats these like any candidate plus the priority boost.
_SCHEDULED = f"""
MATCH (n:Memory)
USING INDEX n:Memory(scope, priority_until)
WHERE n.scope = $scope AND n.priority_until >= $now AND n.priority_from <= $now
  AND {active("n")}
WITH n, CASE WHEN n.embedding_model = $model
             THEN coalesce(vector.similarity.cosine(n[$property], $embedding), 0.0)
             ELSE 0.0 END AS score
ORDER BY n.priority_until, n.id LIMIT $scheduled_limit
RETURN n, score, 'scheduled' AS kind
"""

# The best `prior_limit` memories before similarity (`scoring.prior`: the score with
# similarity 0), whatever the query.
_PRIOR = f"""
MATCH (n:Memory {{scope: $scope}})
WHERE {active("n")}
{_scored("n, clock_now", "0.0", "0.0")}
ORDER BY total DESC, n.id LIMIT $prior_limit
WITH n, CASE WHEN n.embedding_model = $model
             THEN coalesce(vector.similarity.cosine(n[$property], $embedding), 0.0)
             ELSE 0.0 END AS score
RETURN n, score, 'prior' AS kind
"""

# The pool, each memory once, ranked by the whole score; only the best `limit` are expanded.
_RANK = f"""
WITH clock, clock_now, collect({{n: n, score: score, kind: kind}}) AS pool
WITH clock, clock_now, pool, size([p IN pool WHERE p.kind = 'similar']) AS similar_found
UNWIND pool AS p
WITH clock, clock_now, similar_found, p.n AS n, max(p.score) AS score,
     'scheduled' IN collect(p.kind) AS scheduled
{
    _scored(
        "clock, clock_now, similar_found, n, score, scheduled",
        _CALIBRATED,
        "CASE WHEN scheduled THEN $scheduled_priority_boost ELSE 0.0 END",
    )
}
ORDER BY total DESC, n.id LIMIT $limit
"""


def score_params(
    similarity_floor: float,
    scoring: ScoringConfig = DEFAULT_SCORING,
    decay: DecayConfig = DEFAULT_DECAY,
) -> dict[str, float]:
    return {
        "similarity_floor": similarity_floor,
        "similarity_weight": scoring.similarity_weight,
        "hypothesis_multiplier": scoring.hypothesis_multiplier,
        "recency_weight": scoring.recency_weight,
        "weight_weight": scoring.effective_weight_weight,
        "half_life_ms": scoring.recency_half_life / timedelta(milliseconds=1),
        "scheduled_priority_boost": scoring.scheduled_priority_boost,
        "removal_threshold": decay.removal_threshold,
        "period_ms": decay.decay_period / timedelta(milliseconds=1),
    }


def _read_query(*parts: str) -> str:
    """The whole pool (nearest, best before similarity, scheduled), its ranking and the best
    ones' neighbourhood in one statement: each statement is a round trip, and on a shared
    2-core host the round trips, not Neo4j's own work, were most of a read's latency
    (docs/decisions.md, "Graph store")."""
    union = "\n  UNION ALL\n".join(parts)
    return f"{decay_clock.READING}CALL (clock_now) {{\n{union}\n}}\n{_RANK}{_EXPAND}"


BY_INDEX = _read_query(_BY_INDEX, _PRIOR, _SCHEDULED)
EXACT = _read_query(_EXACT, _PRIOR, _SCHEDULED)

_SIZES = f"""
CALL () {{ MATCH (n:{INDEXED_LABEL}) RETURN count(n) AS indexed_total }}
CALL () {{ MATCH (n:Memory {{scope: $scope}}) RETURN count(n) AS mine }}
CALL () {{ MATCH (n:{INDEXED_LABEL} {{scope: $scope}}) RETURN count(n) AS mine_indexed }}
RETURN indexed_total, mine, mine_indexed
"""


@dataclass(frozen=True)
class VectorSearchConfig:
    """Routing thresholds, from the measurements in docs/decisions.md."""

    # Up to this many memories an exact scan is as fast as the index and has perfect recall;
    # above it a user's nodes join the vector index.
    exact_scan_max_nodes: int = 2_000
    # The largest over-fetch worth asking the index for; beyond it, the exact scan wins.
    max_index_fetch: int = 1_000
    # Head-room for users whose vectors are not spread evenly through the index.
    overfetch_safety: float = 2.0
    # Graph sizes change slowly; routing may use a count this old.
    size_ttl_s: float = 60.0
    size_cache_entries: int = 10_000

    def wants_index(self, memories: int) -> bool:
        return memories > self.exact_scan_max_nodes


@dataclass(frozen=True)
class GraphSize:
    mine: int  # the user's memories
    mine_indexed: int  # ... of them in the vector index
    indexed_total: int  # everyone's memories in the vector index


def index_fetch(limit: int, size: GraphSize, config: VectorSearchConfig) -> int | None:
    """How many index hits to fetch so that ~`limit` survive the user filter; None = scan."""
    if not config.wants_index(size.mine_indexed):
        return None
    fetch = math.ceil(limit * config.overfetch_safety * size.indexed_total / size.mine_indexed)
    return max(fetch, limit) if fetch <= config.max_index_fetch else None


class GraphSizes:
    """Graph sizes per scope, cached briefly: routing needs an estimate, and counting on every
    read would cost as much as the exact scan it is meant to avoid."""

    def __init__(self, config: VectorSearchConfig) -> None:
        self._config = config
        self._cache: OrderedDict[str, tuple[float, GraphSize]] = OrderedDict()

    def cached(self, scope: UserScope) -> GraphSize | None:
        hit = self._cache.get(scope.key)
        if hit is not None and time.monotonic() - hit[0] < self._config.size_ttl_s:
            return hit[1]
        return None

    async def get(self, tx: AsyncManagedTransaction, scope: UserScope) -> GraphSize:
        hit = self.cached(scope)
        if hit is not None:
            return hit
        result = await tx.run(_SIZES, scope=scope.key)
        record = await result.single(strict=True)
        size = GraphSize(
            int(record["mine"]), int(record["mine_indexed"]), int(record["indexed_total"])
        )
        self._cache[scope.key] = (time.monotonic(), size)
        self._cache.move_to_end(scope.key)
        while len(self._cache) > self._config.size_cache_entries:
            self._cache.popitem(last=False)
        return size

    def grew(self, scope: UserScope, nodes: int, *, indexed: bool) -> None:
        """Count a write's nodes at once (updates counted as new: at worst a user joins the
        index a little early), so a user growing fast joins the index before the TTL is up."""
        hit = self._cache.get(scope.key)
        if hit is not None:
            at, size = hit
            size = GraphSize(
                size.mine + nodes,
                size.mine_indexed + nodes if indexed else size.mine_indexed,
                size.indexed_total + nodes if indexed else size.indexed_total,
            )
            self._cache[scope.key] = (at, size)

    def forget(self, scope: UserScope) -> None:
        self._cache.pop(scope.key, None)


async def retrieve(
    tx: AsyncManagedTransaction,
    scope: UserScope,
    query: RetrievalQuery,
    sizes: GraphSizes,
    config: VectorSearchConfig,
) -> RetrievalResult:
    dimension = len(query.embedding)
    nearest = query.nearest_limit
    params: dict[str, Any] = {
        "scope": scope.key,
        "model": query.embedding_model,
        "embedding": Rows(query.embedding),
        "now": query.now,
        "limit": query.limit,
        "nearest_limit": nearest,
        "prior_limit": query.prior_limit,
        "scheduled_limit": query.scheduled_limit,
        "property": vector_property(dimension),
        "now_ms": decay_clock.micros(query.now) // 1000,
        **decay_clock.reading_params(query.now),
        **score_params(query.similarity_floor),
    }
    size = await sizes.get(tx, scope)
    fetch = index_fetch(nearest, size, config)
    if fetch is None:
        result = await tx.run(EXACT, params)
        return _assemble([r async for r in result])
    result = await tx.run(BY_INDEX, params, index=vector_index(dimension), fetch=fetch)
    rows = [r async for r in result]
    # Too few of the nearest survived the user filter (the user's vectors cluster away from
    # the query's neighbourhood, or many are inactive): the exact scan is always right.
    if rows and rows[0]["similar_found"] < min(nearest, size.mine):
        result = await tx.run(EXACT, params)
        rows = [r async for r in result]
    return _assemble(rows)


def _assemble(rows: list[Any]) -> RetrievalResult:
    prioritised = {r["node"]["id"] for r in rows if r["scheduled"]}
    # A memory both similar and scheduled keeps its similar row (the later entry wins).
    by_id = {r["node"]["id"]: r for r in sorted(rows, key=lambda r: not r["scheduled"])}
    rows = sorted(by_id.values(), key=lambda r: (-r["score"], r["node"]["id"]))
    candidates = tuple(
        RetrievedMemory(
            node=node_from_record(r["node"]),
            similarity=float(r["score"]),
            prioritised=r["node"]["id"] in prioritised,
        )
        for r in rows
    )
    found = {c.node.id for c in candidates}
    neighbours: dict[str, Node] = {}
    edges: dict[tuple[str, str, str], Edge] = {}
    for row in rows:
        for item in row["hood"]:
            edge = edge_from_record(item["edge"])
            edges[(edge.source_id, edge.target_id, edge.type)] = edge
            other = item["node"]
            if other["id"] not in found and other["id"] not in neighbours:
                neighbours[other["id"]] = node_from_record(other)
    timeline = (
        decay_clock.timeline_from(rows[0]["clock_last_us"], rows[0]["clock_pauses_us"])
        if rows
        else None
    )
    return RetrievalResult(
        candidates=candidates,
        neighbours=tuple(neighbours.values()),
        edges=tuple(edges.values()),
        timeline=timeline,
    )
