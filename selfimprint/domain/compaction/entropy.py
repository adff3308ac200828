"""How tangled a user's graph is (spec §3.9): average shortest path, clustering and the share of
inferred edges, folded into one score that decides whether compaction turns aggressive (and,
with user feedback, whether a soft reset is due)."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from selfimprint.domain.models import Edge, Node


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EntropyConfig(_Frozen):
    """How the three §3.9 chaos measures fold into one score. The spec names the measures and
    says "a threshold" without numbers; everything here is our default."""

    # Average shortest path at which the path component saturates.
    path_length_scale: Annotated[float, Field(gt=0.0)] = 8.0
    # Inferred-to-observed ratio at which that component saturates (2 inferred per observed).
    inferred_ratio_scale: Annotated[float, Field(gt=0.0)] = 2.0
    # Inferred edges are the clearest sign of "edge soup", so they weigh most.
    path_weight: Annotated[float, Field(ge=0.0)] = 0.25
    clustering_weight: Annotated[float, Field(ge=0.0)] = 0.25
    inferred_weight: Annotated[float, Field(ge=0.0)] = 0.5
    # Score above which compaction turns aggressive.
    aggressive_threshold: Annotated[float, Field(ge=0.0, le=1.0)] = 0.6
    # Metrics of tiny graphs are noise; never turn aggressive below this many nodes.
    min_nodes: Annotated[int, Field(ge=0)] = 20
    # Shortest paths are computed from at most this many BFS sources (evenly spread by id).
    max_bfs_sources: Annotated[int, Field(ge=1)] = 256

    @model_validator(mode="after")
    def _some_weight(self) -> EntropyConfig:
        if self.path_weight + self.clustering_weight + self.inferred_weight <= 0:
            raise ValueError("at least one entropy weight must be positive")
        return self


class EntropyMetrics(_Frozen):
    node_count: int
    edge_count: int
    avg_shortest_path: float
    clustering_coefficient: float
    inferred_edges: int
    observed_edges: int
    inferred_to_observed: float
    score: float


def _adjacency(node_ids: Iterable[str], edges: Iterable[Edge]) -> dict[str, set[str]]:
    adjacency: dict[str, set[str]] = {node_id: set() for node_id in node_ids}
    for edge in edges:
        if edge.source_id in adjacency and edge.target_id in adjacency:
            adjacency[edge.source_id].add(edge.target_id)
            adjacency[edge.target_id].add(edge.source_id)
    return adjacency


def _average_clustering(adjacency: Mapping[str, set[str]]) -> float:
    if not adjacency:
        return 0.0
    local = []
    for neighbours in adjacency.values():
        degree = len(neighbours)
        if degree < 2:
            continue  # contributes 0, as in the usual definition
        ordered = sorted(neighbours)
        links = sum(1 for i, a in enumerate(ordered) for b in ordered[i + 1 :] if b in adjacency[a])
        local.append(2.0 * links / (degree * (degree - 1)))
    # fsum: the result must not depend on the order the nodes came in.
    return math.fsum(local) / len(adjacency)


def _average_shortest_path(adjacency: Mapping[str, set[str]], max_sources: int) -> float:
    """Mean distance over reachable ordered pairs; pairs in different components are skipped."""
    ids = sorted(adjacency)
    if len(ids) > max_sources:
        step = len(ids) / max_sources
        ids = [ids[int(i * step)] for i in range(max_sources)]
    total = pairs = 0
    for source in ids:
        distance = {source: 0}
        queue = deque([source])
        while queue:
            current = queue.popleft()
            for neighbour in adjacency[current]:
                if neighbour not in distance:
                    distance[neighbour] = distance[current] + 1
                    queue.append(neighbour)
        total += sum(distance.values())
        pairs += len(distance) - 1
    return total / pairs if pairs else 0.0


def entropy_metrics(
    nodes: Sequence[Node], edges: Sequence[Edge], config: EntropyConfig | None = None
) -> EntropyMetrics:
    """The §3.9 chaos measures on the undirected view of the graph, folded into one score.

    Pure Python, meant for one user's graph (hundreds to a few thousand nodes). The ratio of
    inferred to observed edges uses a floor of one observed edge, so a graph of only inferred
    edges reports their count instead of infinity.
    """
    config = config or EntropyConfig()
    adjacency = _adjacency((n.id for n in nodes), edges)
    inferred = sum(1 for e in edges if e.is_inferred)
    observed = len(edges) - inferred
    ratio = inferred / max(observed, 1)
    path = _average_shortest_path(adjacency, config.max_bfs_sources)
    clustering = _average_clustering(adjacency)
    weights = config.path_weight + config.clustering_weight + config.inferred_weight
    score = (
        config.path_weight * min(1.0, path / config.path_length_scale)
        + config.clustering_weight * (1.0 - clustering)
        + config.inferred_weight * min(1.0, ratio / config.inferred_ratio_scale)
    ) / weights
    return EntropyMetrics(
        node_count=len(nodes),
        edge_count=len(edges),
        avg_shortest_path=path,
        clustering_coefficient=clustering,
        inferred_edges=inferred,
        observed_edges=observed,
        inferred_to_observed=ratio,
        score=score,
    )


def is_aggressive(metrics: EntropyMetrics, config: EntropyConfig | None = None) -> bool:
    config = config or EntropyConfig()
    return metrics.node_count >= config.min_nodes and metrics.score > config.aggressive_threshold
