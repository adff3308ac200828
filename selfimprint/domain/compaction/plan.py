"""One compaction pass over one user's graph (spec §3.9), as a plan the graph store executes.

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
   e.g. every verbatim memory) is not edge soup; decay alone decides when it goes. Nor is a
   hypothesis: its evidence is held by id in its record, not as edges, and its lifecycle decides
   its fate (refuted ones are deleted; archived ones are kept for history, spec §3.5.2, issue 33).

Isolation is checked last, after the budget, so that running the plan's result through
`plan_compaction` again (same clock, same mode) finds nothing to do.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from selfimprint.domain.compaction.config import CompactionConfig, CompactionLimits
from selfimprint.domain.compaction.duplicates import NodeMerge, SimilarPair, plan_merges
from selfimprint.domain.compaction.edges import (
    DecayClock,
    EdgeKey,
    decay_anchor,
    decay_clock_days,
    edge_confidence,
    wall_clock_days,
)
from selfimprint.domain.compaction.entropy import EntropyMetrics, entropy_metrics, is_aggressive
from selfimprint.domain.decay import ActivityTimeline
from selfimprint.domain.models import Edge, Node, NodeType


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EdgeRemovalReason(StrEnum):
    DANGLING = "dangling"  # an endpoint is not in the graph
    DECAYED = "decayed"
    SELF_LOOP_AFTER_MERGE = "self_loop_after_merge"
    OVER_BUDGET = "over_budget"


class NodeRemovalReason(StrEnum):
    ISOLATED = "isolated"


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
            decay_anchor(edge),
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
                "last_reinforced_at": decay_anchor(base),
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
        return (-effective(edge), edge.is_inferred, -decay_anchor(edge).timestamp(), key)

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
        if node.type is NodeType.HYPOTHESIS:
            continue  # connected by its evidence ids; its lifecycle decides (module docs)
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
                update=merge.node_update()
                | {"belief": node.belief.model_copy(update=merge.belief_update())}
            )
        result_nodes.append(node)
    deleted = {r.key for r in plan.removed_edges} | {
        key for rewrite in plan.rewritten_edges for key in rewrite.replaces
    }
    result_edges = [e for e in edges if EdgeKey.of(e) not in deleted]
    result_edges += [rewrite.edge for rewrite in plan.rewritten_edges]
    return tuple(result_nodes), tuple(result_edges)
