"""Which of a user's nodes say the same thing, and what one merged node keeps (spec §3.9).

Nodes of one user, type, valence and embedding model that restate each other (the test of
`selfimprint.domain.restatement`, by which ingestion reinforces) fold into one survivor: a pinned
one first, else the heaviest. It keeps its id and content and takes the union of their sources
and belief evidence, the slowest decay, the strongest permanence and the highest confidence
(issue 33: a merge must not lose what any member had learned).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict

from selfimprint.domain.decay import (
    ActivityTimeline,
    expires_at,
    node_coefficient,
    node_effective_weight,
)
from selfimprint.domain.models import (
    MAX_EVIDENCE_IDS,
    MAX_SOURCES,
    Belief,
    EvidenceKind,
    Node,
    NodeType,
    Permanence,
)
from selfimprint.domain.restatement import DEFAULT_RESTATEMENT, RestatementConfig, restates


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SimilarPair(NamedTuple):
    """A similarity the store already knows (e.g. from its vector index), to skip the O(n²) scan."""

    first_id: str
    second_id: str
    similarity: float


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
    # Issue 33: the union of the members' belief evidence (newest last, capped as the model
    # caps it), the strongest permanence, observed if any member was, and the moment of the
    # kept (highest) confidence.
    permanence: Permanence
    evidence_kind: EvidenceKind
    confidence_at: datetime | None
    observed_for: tuple[str, ...]
    observed_against: tuple[str, ...]
    self_report_for: tuple[str, ...]
    self_report_against: tuple[str, ...]
    # Still current unless every member was said before the latest end (decision "What is true
    # now"): a duplicate said after a change is the current value again.
    valid_until: datetime | None

    def node_update(self) -> dict[str, object]:
        """The survivor's node fields this merge sets."""
        return {name: getattr(self, name) for name in NODE_FIELDS}

    def belief_update(self) -> dict[str, object]:
        """The survivor's belief fields this merge sets."""
        return {name: getattr(self, name) for name in BELIEF_FIELDS}


# What a merge decides of the survivor: node fields, then belief fields (the store flattens
# both into the node's properties under these names).
NODE_FIELDS = (
    "weight", "weight_at", "expires_at", "importance", "decay_coefficient", "significant",
    "is_inference", "created_at", "last_reinforced_at", "sources", "valid_until",
)  # fmt: skip
BELIEF_FIELDS = tuple(Belief.model_fields)


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


# Strongest first: a merge keeps the permanence that lasts longest.
_PERMANENCE_ORDER = (Permanence.STABLE, Permanence.DURABLE, Permanence.SITUATIONAL)


def _union(lists: Iterable[Sequence[str]]) -> tuple[str, ...]:
    merged: dict[str, None] = {}
    for ids in lists:
        merged.update(dict.fromkeys(ids))
    return tuple(merged)[-MAX_EVIDENCE_IDS:]


def _valid_until(group: Sequence[Node]) -> datetime | None:
    ends = [n.valid_until for n in group if n.valid_until is not None]
    if not ends or max(ends) < max(n.created_at for n in group):
        return None
    return max(ends)


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
    believed = max(group, key=lambda n: (n.belief.confidence, n is survivor))
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
        permanence=min((n.belief.permanence for n in group), key=_PERMANENCE_ORDER.index),
        evidence_kind=(
            EvidenceKind.OBSERVED
            if any(n.belief.evidence_kind is EvidenceKind.OBSERVED for n in group)
            else EvidenceKind.SELF_REPORT
        ),
        confidence_at=believed.belief.evidence_anchor(),
        observed_for=_union(n.belief.observed_for for n in group),
        observed_against=_union(n.belief.observed_against for n in group),
        self_report_for=_union(n.belief.self_report_for for n in group),
        self_report_against=_union(n.belief.self_report_against for n in group),
        valid_until=_valid_until(group),
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
