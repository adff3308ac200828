"""The retrieval port over a graph snapshot in memory: a returning user's first context is read
from their warm or cold SYNX object while the lifecycle brings the graph back into Neo4j.

Same rules as the Neo4j read path (adapters/neo4j/retrieval.py): active memories (not expired,
hypotheses active or confirmed), of the query's embedding model, and faded ones (expired, kept:
domain.fading) only among the nearest and only when the query recognises them
(`scoring.recognised`); a pool of the nearest (exact cosine) and the best before similarity,
the `limit` best of it by the §3.4 score, then their one-hop neighbourhood. Scheduled priority
windows are sleep results kept in Neo4j, not in the snapshot, so nothing is marked prioritised
here. The belief-confidence
factor of the score comes with each memory's belief (`Candidate.from_node`), as in Cypher.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from selfimprint.domain.decay import ActivityTimeline, is_expired
from selfimprint.domain.models import HypothesisStatus, Node
from selfimprint.domain.recognition import SimilaritySpread, recognised, unclipped_similarity
from selfimprint.domain.scoring import (
    Candidate,
    calibrated_similarity,
    prior,
    rank,
    score_weight,
)
from selfimprint.domain.terms import idf_weights, lexical_relevance, search_terms
from selfimprint.ports import GraphSnapshot, RetrievalQuery, RetrievalResult, RetrievedMemory

_LIVE_HYPOTHESES = frozenset({HypothesisStatus.ACTIVE, HypothesisStatus.CONFIRMED})


def standing_nodes(snapshot: GraphSnapshot) -> dict[str, Node]:
    """Every memory but refuted and archived hypotheses, faded ones included."""
    status = {h.node_id: h.status for h in snapshot.hypotheses}
    status |= dict.fromkeys(snapshot.refuted_ids, HypothesisStatus.REFUTED)
    return {
        n.id: n
        for n in snapshot.nodes
        if status.get(n.id, HypothesisStatus.ACTIVE) in _LIVE_HYPOTHESES
    }


def active_nodes(
    snapshot: GraphSnapshot, now: datetime, timeline: ActivityTimeline | None = None
) -> dict[str, Node]:
    return {
        i: n
        for i, n in standing_nodes(snapshot).items()
        if not is_expired(n, now, timeline=timeline)
    }


def retrieve_from_snapshot(
    snapshot: GraphSnapshot, query: RetrievalQuery, timeline: ActivityTimeline | None = None
) -> RetrievalResult:
    """`timeline`: the user's decay clock (kept on their profile in Neo4j, not in the
    snapshot); expiry is read on it and it travels on in the result."""
    standing = standing_nodes(snapshot)
    live = active_nodes(snapshot, query.now, timeline)
    pool = [
        n
        for n in standing.values()
        if n.embedding_model == query.embedding_model
        and n.embedding is not None
        and len(n.embedding) == len(query.embedding)
    ]
    if not pool:
        return RetrievalResult(candidates=(), neighbours=(), edges=())
    lexical = _lexical(snapshot.nodes, query.terms, query.scoring.context_term_share)
    matrix = np.asarray([_compared(n, query.in_context) for n in pool], dtype=np.float32)
    wanted = np.asarray(query.embedding, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1) * (float(np.linalg.norm(wanted)) or 1.0)
    cosines = (matrix @ wanted) / np.where(norms == 0, 1.0, norms)
    similarity = [calibrated_similarity(float(c), query.similarity_floor) for c in cosines]
    # The Neo4j read path's pool (the nearest, live or recognised; the best before similarity
    # and the lexically best, live only), ranked by the whole §3.4 score, the best `limit`
    # kept; ties by id, so two reads of one snapshot agree.
    alive = [i for i in range(len(pool)) if pool[i].id in live]
    # The recognition sample: the smallest ids, as the Neo4j statement reads them.
    sample = sorted(range(len(pool)), key=lambda i: pool[i].id)[: query.scoring.recognition_sample]
    spread = SimilaritySpread.of(
        unclipped_similarity(float(cosines[i]), query.similarity_floor) for i in sample
    )
    # A faded memory the query does not recognise is still read when it holds its room in the
    # context (`ScoringConfig.faded_hold_room`): the context tells the two apart.
    nearest = [
        i
        for i in range(len(pool))
        if pool[i].id in live
        or query.scoring.faded_hold_room
        or recognised(similarity[i], pool[i].type, query.scoring, pool[i].valence, spread)
    ]
    by_words = [
        i
        for i in range(len(pool))
        if pool[i].id not in live
        and query.scoring.recognition_min_lexical is not None
        and recognised(
            similarity[i],
            pool[i].type,
            query.scoring,
            pool[i].valence,
            spread,
            lexical.relevance(pool[i]),
        )
    ]
    order = sorted(nearest, key=lambda i: (-float(cosines[i]), pool[i].id))
    by_prior = sorted(
        alive,
        key=lambda i: (
            -prior(
                pool[i], query.now, timeline=timeline, config=query.scoring, beliefs=query.beliefs
            ),
            pool[i].id,
        ),
    )
    by_lexical = sorted(
        (i for i in alive + by_words if lexical.held(pool[i]) > 0.0),
        key=lambda i: (-lexical.held(pool[i]), pool[i].id),
    )
    pooled = list(
        dict.fromkeys(
            order[: query.nearest_limit]
            + by_prior[: query.prior_limit]
            + by_lexical[: query.lexical_limit]
        )
    )
    index_of = {pool[i].id: i for i in pooled}
    ranked = rank(
        (
            Candidate.from_node(
                pool[i],
                similarity=similarity[i],
                effective_weight=score_weight(
                    pool[i], query.now, timeline=timeline, config=query.scoring
                ),
                lexical=lexical.relevance(pool[i]),
            )
            for i in pooled
        ),
        query.now,
        query.scoring,
        top_k=query.limit,
        beliefs=query.beliefs,
    )
    top = sorted((index_of[r.id] for r in ranked), key=lambda i: (-float(cosines[i]), pool[i].id))
    chosen = {pool[i].id for i in top}
    candidates = tuple(
        RetrievedMemory(
            node=_without_vector(pool[i]),
            similarity=(1.0 + float(cosines[i])) / 2.0,
            lexical=lexical.relevance(pool[i]),
        )
        for i in top
    )
    edges = tuple(
        e
        for e in snapshot.edges
        if (e.source_id in chosen and e.target_id in live)
        or (e.target_id in chosen and e.source_id in live)
    )
    around = {e.source_id for e in edges} | {e.target_id for e in edges}
    neighbours = tuple(_without_vector(live[i]) for i in sorted(around - chosen))
    return RetrievalResult(
        candidates=candidates, neighbours=neighbours, edges=edges, timeline=timeline, spread=spread
    )


@dataclass(frozen=True)
class _Lexicon:
    """The query's terms weighed over the user's stored memories (expired ones not yet pruned
    included), as the Neo4j path does."""

    terms: tuple[str, ...]
    idf: dict[str, float]
    context_share: float = 0.0

    def held(self, node: Node) -> float:
        held = set(search_terms(node.content))
        return sum(self.idf.get(t, 0.0) if t in held else 0.0 for t in self.terms)

    def relevance(self, node: Node) -> float | None:
        if not self.idf:
            return None
        return lexical_relevance(
            self.terms,
            search_terms(node.content),
            self.idf,
            context_terms=node.context_terms,
            context_share=self.context_share,
        )


def _lexical(stored: Iterable[Node], terms: Iterable[str], context_share: float) -> _Lexicon:
    wanted = tuple(dict.fromkeys(terms))
    nodes = list(stored)
    if not wanted:
        return _Lexicon(wanted, {})
    frequency = Counter(t for n in nodes for t in set(wanted).intersection(search_terms(n.content)))
    return _Lexicon(wanted, idf_weights(frequency, len(nodes)), context_share)


def _compared(node: Node, in_context: bool) -> tuple[float, ...]:
    """The vector a query is compared with, as the Neo4j path does (retrieval.py, `_VECTOR`)."""
    if in_context and node.context_embedding is not None:
        return node.context_embedding
    return node.embedding or ()


def _without_vector(node: Node) -> Node:
    return node.model_copy(
        update={"embedding": None, "embedding_model": None, "context_embedding": None}
    )
