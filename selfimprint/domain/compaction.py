"""Weekly graph compaction (spec §3.9) as plans the graph store executes.

Every function here is pure: it reads a user's nodes and edges and returns what to delete, merge
and rewrite. The store applies a `CompactionPlan` in one transaction; `apply_compaction` is the
same rules in memory, used by tests and by anyone who wants to preview a plan.

Steps, in order (spec §3.9):

1. edge confidence decays while an edge is not reinforced; edges below the removal threshold go;
2. nodes of one type that restate each other (`selfimprint.domain.restatement`, the test
   ingestion reinforces by) merge into the highest-weight one, which inherits the union of
   their edges and sources;
3. no node keeps more than the edge budget; the lowest-confidence edges go first;
4. nodes left without edges go, unless pinned (or new, see `isolated_grace_days`). "Left
   without" is read literally: a node that lost its last edge in this pass, or an inference
   that nothing connected. An observed memory that never had an edge (the user's own words,
   e.g. every verbatim memory) is not edge soup; decay alone decides when it goes.

Isolation is checked last, after the budget, so that running the plan's result through
`plan_compaction` again (same clock, same mode) finds nothing to do.

Edges have no id in the model, so an edge is addressed by (source, target, type): `EdgeKey`.
Edge confidence is stored as of its last reinforcement and decayed lazily, like node weight
(DESIGN.md §4), so compaction never writes a decayed confidence back; it only removes.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Annotated, NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from selfimprint.domain.decay import (
    ActivityTimeline,
    decay_days,
    expires_at,
    node_coefficient,
    node_effective_weight,
)
from selfimprint.domain.models import MAX_SOURCES, Edge, EdgeType, Node, NodeType
from selfimprint.domain.restatement import DEFAULT_RESTATEMENT, RestatementConfig, restates

# Days of decay between two instants. The default is wall-clock days; the lifecycle passes its
# decay clock so that edge confidence, like node weight, stops decaying while the user is away
# (spec §3.8.1).
DecayClock = Callable[[datetime, datetime], float]

_SECONDS_PER_DAY = 86_400.0


def wall_clock_days(start: datetime, end: datetime) -> float:
    return max(0.0, (end - start).total_seconds() / _SECONDS_PER_DAY)


def decay_clock_days(timeline: ActivityTimeline) -> DecayClock:
    """Days on the user's decay clock: edges, like nodes, keep their confidence while the user
    is away (spec §3.8.1)."""
    return lambda start, end: decay_days(start, end, timeline)


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CompactionLimits(_Frozen):
    edge_removal_threshold: Annotated[float, Field(ge=0.0, le=1.0)]
    edge_budget: Annotated[int, Field(ge=1)]


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


class CompactionConfig(_Frozen):
    # §3.9: edges below 0.1 are removed; 20 edges per node.
    normal: CompactionLimits = CompactionLimits(edge_removal_threshold=0.1, edge_budget=20)
    # §3.9 says compaction "gets aggressive" past the entropy threshold, without numbers:
    # twice the removal threshold, a tighter budget. Never a looser duplicate test: whether two
    # memories say the same thing does not depend on how tangled the graph is.
    aggressive: CompactionLimits = CompactionLimits(edge_removal_threshold=0.2, edge_budget=12)
    # §3.9: near-duplicates of one type merge; "near" is the restatement test ingestion uses
    # to reinforce (cosine > 0.92 alone merged different statements, docs/benchmarks-locomo.md).
    restatement: RestatementConfig = DEFAULT_RESTATEMENT
    # §3.9: confidence "decays over time when an edge isn't reinforced", rate not given.
    # Per day: an inferred edge starting at 0.5 reaches 0.1 after ~80 idle days, an observed
    # edge at 0.95 after ~220.
    observed_edge_decay_per_day: Annotated[float, Field(gt=0.0, le=1.0)] = 0.99
    inferred_edge_decay_per_day: Annotated[float, Field(gt=0.0, le=1.0)] = 0.98
    # Spec silent: a node created or reinforced within one weekly cycle (§3.9 runs weekly) is
    # not removed for being isolated; the sleep phase has not had a chance to connect it yet.
    isolated_grace_days: Annotated[float, Field(ge=0.0)] = 7.0
    # §3.9 entropy measures and the aggressive threshold (see EntropyConfig).
    entropy: EntropyConfig = EntropyConfig()
    # §3.9 soft reset: keep pinned facts and the last 30 days.
    soft_reset_window_days: Annotated[float, Field(gt=0.0)] = 30.0
    # Spec: soft reset needs entropy "plus user feedback"; levels are ours.
    soft_reset_entropy_threshold: Annotated[float, Field(ge=0.0, le=1.0)] = 0.8
    soft_reset_min_feedback: Annotated[int, Field(ge=1)] = 1


class EdgeKey(NamedTuple):
    source_id: str
    target_id: str
    type: EdgeType

    @classmethod
    def of(cls, edge: Edge) -> EdgeKey:
        return cls(edge.source_id, edge.target_id, edge.type)


class SimilarPair(NamedTuple):
    """A similarity the store already knows (e.g. from its vector index), to skip the O(n²) scan."""

    first_id: str
    second_id: str
    similarity: float


class EdgeRemovalReason(StrEnum):
    DANGLING = "dangling"  # an endpoint is not in the graph
    DECAYED = "decayed"
    SELF_LOOP_AFTER_MERGE = "self_loop_after_merge"
    OVER_BUDGET = "over_budget"


class NodeRemovalReason(StrEnum):
    ISOLATED = "isolated"


class NodeMerge(_Frozen):
    """Fold `merged_ids` into `survivor_id`; the survivor keeps its id and content."""

    survivor_id: str
    merged_ids: tuple[str, ...]
    weight: float
    weight_at: datetime
    # On the user's decay clock (domain.decay): re-stamped for the merged weight, so a survivor
    # that had expired but absorbed a fresh re-mention lives on.
    expires_at: datetime | None
    importance: float
    decay_coefficient: float
    significant: bool
    is_inference: bool
    created_at: datetime
    last_reinforced_at: datetime | None
    sources: tuple[str, ...]
    confidence: float
    first_seen: datetime
    confirmed_at: datetime | None
    challenged_at: datetime | None


class EdgeRemoval(_Frozen):
    key: EdgeKey
    reason: EdgeRemovalReason


class EdgeRewrite(_Frozen):
    """Delete every edge under `replaces`, then write `edge` (re-pointed and/or combined)."""

    replaces: tuple[EdgeKey, ...]
    edge: Edge


class NodeRemoval(_Frozen):
    node_id: str
    reason: NodeRemovalReason


class EntropyMetrics(_Frozen):
    node_count: int
    edge_count: int
    avg_shortest_path: float
    clustering_coefficient: float
    inferred_edges: int
    observed_edges: int
    inferred_to_observed: float
    score: float


class CompactionPlan(_Frozen):
    """What one pass changes. A store applies it in this order, in one transaction: update each
    survivor from its merge; delete `removed_edges`; for each rewrite delete `replaces` and write
    `edge`; delete merged and removed nodes. A rewrite may write a key that `removed_edges` also
    names (an edge re-pointed onto a decayed one), which is why removals come first."""

    aggressive: bool
    limits: CompactionLimits
    entropy: EntropyMetrics
    merges: tuple[NodeMerge, ...] = ()
    removed_edges: tuple[EdgeRemoval, ...] = ()
    rewritten_edges: tuple[EdgeRewrite, ...] = ()
    removed_nodes: tuple[NodeRemoval, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.merges or self.removed_edges or self.rewritten_edges or self.removed_nodes)


class SoftResetPlan(_Frozen):
    cutoff: datetime
    keep_node_ids: tuple[str, ...]
    archive_node_ids: tuple[str, ...]
    archive_edges: tuple[EdgeKey, ...]


# --- edge confidence ----------------------------------------------------------------------


def _anchor(edge: Edge) -> datetime:
    return edge.last_reinforced_at or edge.created_at


def edge_confidence(
    edge: Edge,
    now: datetime,
    config: CompactionConfig | None = None,
    *,
    elapsed_days: DecayClock = wall_clock_days,
) -> float:
    """Confidence after the decay since the edge was last reinforced (or created)."""
    config = config or CompactionConfig()
    rate = (
        config.inferred_edge_decay_per_day
        if edge.is_inferred
        else config.observed_edge_decay_per_day
    )
    days = max(0.0, elapsed_days(_anchor(edge), now))
    return float(edge.confidence * rate**days)


# --- duplicates ---------------------------------------------------------------------------

# Rows of the similarity matrix computed at once: 1,024 x 10k float64 is 80 MB at most.
_SIMILARITY_BLOCK = 1024

Weigh = Callable[[Node], float]


def _stored_weight(node: Node) -> float:
    return node.weight


def _dedup_group(node: Node) -> tuple[str, NodeType, str | None, str | None]:
    # Vectors of two embedding models are never compared (DESIGN.md §3); opposite feelings
    # about one thing embed close and are not duplicates (as in ingestion).
    return node.user_id, node.type, node.embedding_model, node.valence


def _survivor_order(weigh: Weigh) -> Callable[[Node], tuple[bool, float, datetime, str]]:
    # Pinned first so a pinned node is never folded into another; then the highest (effective)
    # weight (spec §3.9); then the oldest, then the id, for a deterministic choice.
    return lambda node: (not node.is_pinned, -weigh(node), node.created_at, node.id)


def similar_pairs(nodes: Sequence[Node], threshold: float) -> list[SimilarPair]:
    """Every pair of one dedup group (user, type, embedding model) with cosine >= threshold.

    Vectorised: the group's unit vectors are multiplied block by block (numpy releases the
    GIL, so a caller may run this in a thread). ~10k nodes take well under a second.
    """
    groups: dict[tuple[str, NodeType, str | None, str | None], list[Node]] = defaultdict(list)
    for node in nodes:
        if node.embedding is not None:
            groups[_dedup_group(node)].append(node)
    pairs: list[SimilarPair] = []
    for members in groups.values():
        if len(members) < 2:
            continue
        if len({len(n.embedding or ()) for n in members}) != 1:
            raise ValueError(
                f"nodes of embedding model {members[0].embedding_model!r} differ in dimension"
            )
        matrix = np.asarray([n.embedding for n in members], dtype=np.float64)
        norms = np.linalg.norm(matrix, axis=1)
        keep = norms > 0.0
        ids = [n.id for n, k in zip(members, keep, strict=True) if k]
        unit = matrix[keep] / norms[keep, None]
        for start in range(0, len(ids), _SIMILARITY_BLOCK):
            block = unit[start : start + _SIMILARITY_BLOCK] @ unit.T
            rows, cols = np.nonzero(block >= threshold)
            for row, col in zip(rows.tolist(), cols.tolist(), strict=True):
                first = start + row
                if col > first:
                    pairs.append(SimilarPair(ids[first], ids[col], float(block[row, col])))
    return pairs


def _similar_neighbours(
    nodes: Sequence[Node], restatement: RestatementConfig, pairs: Iterable[SimilarPair] | None
) -> dict[str, set[str]]:
    by_id = {n.id: n for n in nodes}
    neighbours: dict[str, set[str]] = defaultdict(set)
    # The loosest floor pre-filters the scan; the restatement test then decides each pair.
    scanned = similar_pairs(nodes, restatement.lowest_cosine_floor()) if pairs is None else pairs
    for first, second, similarity in scanned:
        a, b = by_id.get(first), by_id.get(second)
        if not (a and b and a.id != b.id and _dedup_group(a) == _dedup_group(b)):
            continue
        if restates(
            a.content, b.content, similarity, embedding_model=a.embedding_model, config=restatement
        ):
            neighbours[a.id].add(b.id)
            neighbours[b.id].add(a.id)
    return neighbours


def _merge(
    survivor: Node,
    absorbed: Sequence[Node],
    weigh: Weigh,
    now: datetime | None,
    timeline: ActivityTimeline | None,
) -> NodeMerge:
    group = [survivor, *absorbed]
    heaviest = min(group, key=lambda n: (-weigh(n), n.id))
    sources: dict[str, None] = {}
    for node in group:
        sources.update(dict.fromkeys(node.sources))
    created = min(n.created_at for n in group)
    # A duplicate that arrived later is the memory being mentioned again: the merged node was
    # last touched at the latest creation or reinforcement in the group.
    touched = max(t for n in group for t in (n.created_at, n.last_reinforced_at) if t is not None)
    confirmed = [n.belief.confirmed_at for n in group if n.belief.confirmed_at is not None]
    challenged = [n.belief.challenged_at for n in group if n.belief.challenged_at is not None]
    # The slowest decay in the group: a significant event stays significant once merged.
    coefficient = max(n.decay_coefficient for n in group)
    if now is None:
        weight, weight_at = heaviest.weight, heaviest.weight_at
    else:
        # The heaviest member's weight as it is now, re-based to now: the merged memory must
        # not inherit a dead twin's stale weight or expiry (nor resurrect decayed weight).
        weight_at = max(now, *(n.weight_at for n in group))
        weight = weigh(heaviest)
    expiry = expires_at(
        weight,
        weight_at,
        node_coefficient(survivor.model_copy(update={"decay_coefficient": coefficient})),
        timeline=timeline,
    )
    return NodeMerge(
        survivor_id=survivor.id,
        merged_ids=tuple(n.id for n in absorbed),
        weight=weight,
        weight_at=weight_at,
        expires_at=expiry,
        importance=max(n.importance for n in group),
        decay_coefficient=coefficient,
        significant=any(n.significant for n in group),
        # One observed duplicate makes the merged memory observed.
        is_inference=all(n.is_inference for n in group),
        created_at=created,
        last_reinforced_at=touched if touched > created else None,
        # Survivor's sources first; the model caps how many a node may carry.
        sources=tuple(sources)[:MAX_SOURCES],
        confidence=max(n.belief.confidence for n in group),
        first_seen=min(n.belief.first_seen for n in group),
        confirmed_at=max(confirmed, default=None),
        challenged_at=max(challenged, default=None),
    )


def plan_merges(
    nodes: Sequence[Node],
    restatement: RestatementConfig = DEFAULT_RESTATEMENT,
    similar_pairs: Iterable[SimilarPair] | None = None,
    *,
    now: datetime | None = None,
    timeline: ActivityTimeline | None = None,
) -> tuple[NodeMerge, ...]:
    """Merge groups of same-type nodes that restate each other (`restatement.restates`).

    Greedy in survivor order: each node not yet taken becomes a survivor and absorbs every
    untaken, unpinned node similar to it. Every absorbed node is therefore similar to its own
    survivor (no chaining A~B~C), pinned nodes are never absorbed, and no two survivors left
    behind are similar unless both are pinned, which makes a second pass a no-op.

    With `now`, weights are effective weights at `now` on the user's decay clock (`timeline`)
    and the merged weight is re-based there; without it, stored weights (previews, old tests).
    """
    weights = (
        {n.id: node_effective_weight(n, now, timeline=timeline) for n in nodes}
        if now is not None
        else None
    )
    weigh: Weigh = _stored_weight if weights is None else (lambda n: weights[n.id])
    order = _survivor_order(weigh)
    neighbours = _similar_neighbours(nodes, restatement, similar_pairs)
    by_id = {n.id: n for n in nodes}
    taken: set[str] = set()
    merges = []
    for node in sorted(nodes, key=order):
        if node.id in taken:
            continue
        taken.add(node.id)
        absorbed = sorted(
            (
                by_id[other]
                for other in neighbours.get(node.id, ())
                if other not in taken and not by_id[other].is_pinned
            ),
            key=order,
        )
        if absorbed:
            taken.update(n.id for n in absorbed)
            merges.append(_merge(node, absorbed, weigh, now, timeline))
    return tuple(merges)


# --- entropy ------------------------------------------------------------------------------


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


# --- the plan -----------------------------------------------------------------------------


def plan_compaction(
    nodes: Sequence[Node],
    edges: Sequence[Edge],
    now: datetime,
    config: CompactionConfig | None = None,
    *,
    aggressive: bool | None = None,
    similar_pairs: Iterable[SimilarPair] | None = None,
    elapsed_days: DecayClock | None = None,
    timeline: ActivityTimeline | None = None,
) -> CompactionPlan:
    """Plan one compaction pass over one user's graph.

    `aggressive=None` lets the entropy of the input decide; pass a bool to force a mode.
    `similar_pairs` replaces the pairwise embedding scan with similarities the caller has.
    `timeline`: the user's decay clock; edge confidence and node weights decay on it (and
    `elapsed_days`, when given, overrides it for edges).
    """
    config = config or CompactionConfig()
    if elapsed_days is None:
        elapsed_days = wall_clock_days if timeline is None else decay_clock_days(timeline)
    by_id = {n.id: n for n in nodes}
    if len(by_id) != len(nodes):
        raise ValueError("node ids must be unique")
    metrics = entropy_metrics(nodes, edges, config.entropy)
    if aggressive is None:
        aggressive = is_aggressive(metrics, config.entropy)
    limits = config.aggressive if aggressive else config.normal

    def effective(edge: Edge) -> float:
        return edge_confidence(edge, now, config, elapsed_days=elapsed_days)

    def rank(edge: Edge) -> tuple[float, bool, datetime, datetime, float]:
        # A total order, so that which parallel edge wins never depends on input order.
        return (
            effective(edge),
            not edge.is_inferred,
            _anchor(edge),
            edge.created_at,
            edge.confidence,
        )

    def combine(group: Sequence[Edge]) -> Edge:
        # Parallel edges become the best of them, dated from the earliest creation; its decay
        # anchor is pinned so its confidence stays what it was. The whole group is reduced at
        # once: folding pairs would let the order of the input pick the winner.
        if len(group) == 1:
            return group[0]
        base = max(group, key=rank)
        return base.model_copy(
            update={
                "created_at": min(e.created_at for e in group),
                "last_reinforced_at": _anchor(base),
            }
        )

    removals: dict[EdgeKey, EdgeRemovalReason] = {}
    parallel: dict[EdgeKey, list[Edge]] = defaultdict(list)
    for edge in edges:
        key = EdgeKey.of(edge)
        if edge.source_id not in by_id or edge.target_id not in by_id:
            removals[key] = EdgeRemovalReason.DANGLING
        else:
            parallel[key].append(edge)
    original = {key: group[0] for key, group in parallel.items() if len(group) == 1}
    live = {key: combine(group) for key, group in parallel.items()}
    origin: dict[EdgeKey, set[EdgeKey]] = {key: {key} for key in live}

    # 1. decay
    for key, edge in list(live.items()):
        if effective(edge) < limits.edge_removal_threshold:
            removals[key] = EdgeRemovalReason.DECAYED
            del live[key]

    # 2. duplicates: re-point every edge of an absorbed node to its survivor
    merges = plan_merges(nodes, config.restatement, similar_pairs, now=now, timeline=timeline)
    survivor_of = {merged: m.survivor_id for m in merges for merged in m.merged_ids}
    landing: dict[EdgeKey, list[Edge]] = defaultdict(list)
    repointed_origin: dict[EdgeKey, set[EdgeKey]] = defaultdict(set)
    for key, edge in live.items():
        source = survivor_of.get(edge.source_id, edge.source_id)
        target = survivor_of.get(edge.target_id, edge.target_id)
        if source == target:
            for old in origin[key]:
                removals[old] = EdgeRemovalReason.SELF_LOOP_AFTER_MERGE
            continue
        moved = (
            edge
            if (source, target) == (edge.source_id, edge.target_id)
            else edge.model_copy(update={"source_id": source, "target_id": target})
        )
        landing[EdgeKey.of(moved)].append(moved)
        repointed_origin[EdgeKey.of(moved)] |= origin[key]
    repointed = {key: combine(group) for key, group in landing.items()}

    # 3. edge budget: keep edges in priority order while both endpoints have room, so an edge
    # is dropped only when an endpoint already holds `edge_budget` better ones.
    def priority(key: EdgeKey) -> tuple[float, bool, float, EdgeKey]:
        edge = repointed[key]
        return (-effective(edge), edge.is_inferred, -_anchor(edge).timestamp(), key)

    degree: Counter[str] = Counter()
    kept: dict[EdgeKey, Edge] = {}
    for key in sorted(repointed, key=priority):
        if (
            degree[key.source_id] < limits.edge_budget
            and degree[key.target_id] < limits.edge_budget
        ):
            kept[key] = repointed[key]
            degree[key.source_id] += 1
            degree[key.target_id] += 1
        else:
            for old in repointed_origin[key]:
                removals[old] = EdgeRemovalReason.OVER_BUDGET

    # 4. isolated nodes, judged on the final edge set
    merge_of = {m.survivor_id: m for m in merges}
    grace = timedelta(days=config.isolated_grace_days)
    removed_nodes = []
    linked = {i for e in edges for i in (e.source_id, e.target_id)}
    linked |= {survivor_of.get(i, i) for i in linked}
    for node in sorted(nodes, key=lambda n: n.id):
        if node.id in survivor_of or node.is_pinned or degree[node.id] > 0:
            continue
        if node.id not in linked and not node.is_inference:
            continue  # never had an edge: the user's own words, not edge soup (module docs)
        merge = merge_of.get(node.id)
        # Judge a survivor by what it will be after the merge, as the next pass will.
        last_touched = (
            (merge.last_reinforced_at or merge.created_at)
            if merge is not None
            else (node.last_reinforced_at or node.created_at)
        )
        if last_touched + grace > now:
            continue
        removed_nodes.append(NodeRemoval(node_id=node.id, reason=NodeRemovalReason.ISOLATED))

    rewrites = tuple(
        EdgeRewrite(replaces=tuple(sorted(repointed_origin[key])), edge=edge)
        for key, edge in sorted(kept.items())
        if repointed_origin[key] != {key} or edge != original.get(key)
    )
    return CompactionPlan(
        aggressive=aggressive,
        limits=limits,
        entropy=metrics,
        merges=merges,
        removed_edges=tuple(
            EdgeRemoval(key=key, reason=reason) for key, reason in sorted(removals.items())
        ),
        rewritten_edges=rewrites,
        removed_nodes=tuple(removed_nodes),
    )


def apply_compaction(
    nodes: Sequence[Node], edges: Sequence[Edge], plan: CompactionPlan
) -> tuple[tuple[Node, ...], tuple[Edge, ...]]:
    """The graph after `plan`, computed in memory: what the store must end up holding."""
    merges = {m.survivor_id: m for m in plan.merges}
    gone = {n.node_id for n in plan.removed_nodes} | {i for m in plan.merges for i in m.merged_ids}
    result_nodes = []
    for node in nodes:
        if node.id in gone:
            continue
        merge = merges.get(node.id)
        if merge is not None:
            node = node.model_copy(
                update={
                    "weight": merge.weight,
                    "weight_at": merge.weight_at,
                    "expires_at": merge.expires_at,
                    "importance": merge.importance,
                    "decay_coefficient": merge.decay_coefficient,
                    "significant": merge.significant,
                    "is_inference": merge.is_inference,
                    "created_at": merge.created_at,
                    "last_reinforced_at": merge.last_reinforced_at,
                    "sources": merge.sources,
                    "belief": node.belief.model_copy(
                        update={
                            "confidence": merge.confidence,
                            "first_seen": merge.first_seen,
                            "confirmed_at": merge.confirmed_at,
                            "challenged_at": merge.challenged_at,
                        }
                    ),
                }
            )
        result_nodes.append(node)
    deleted = {r.key for r in plan.removed_edges} | {
        key for rewrite in plan.rewritten_edges for key in rewrite.replaces
    }
    result_edges = [e for e in edges if EdgeKey.of(e) not in deleted]
    result_edges += [rewrite.edge for rewrite in plan.rewritten_edges]
    return tuple(result_nodes), tuple(result_edges)


# --- soft reset ---------------------------------------------------------------------------


def should_soft_reset(
    metrics: EntropyMetrics, feedback_signals: int, config: CompactionConfig | None = None
) -> bool:
    """Spec §3.9: only when entropy is high *and* the user said the system lost them."""
    config = config or CompactionConfig()
    return (
        metrics.score >= config.soft_reset_entropy_threshold
        and feedback_signals >= config.soft_reset_min_feedback
    )


def plan_soft_reset(
    nodes: Sequence[Node],
    edges: Sequence[Edge],
    now: datetime,
    config: CompactionConfig | None = None,
) -> SoftResetPlan:
    """Keep pinned nodes and anything created or reinforced in the window; archive the rest."""
    config = config or CompactionConfig()
    cutoff = now - timedelta(days=config.soft_reset_window_days)
    keep = {
        n.id
        for n in nodes
        if n.is_pinned or max(n.created_at, n.last_reinforced_at or n.created_at) >= cutoff
    }
    return SoftResetPlan(
        cutoff=cutoff,
        keep_node_ids=tuple(sorted(keep)),
        archive_node_ids=tuple(sorted(n.id for n in nodes if n.id not in keep)),
        archive_edges=tuple(
            sorted(
                {EdgeKey.of(e) for e in edges if e.source_id not in keep or e.target_id not in keep}
            )
        ),
    )
