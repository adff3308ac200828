"""Retrieval candidates and their one-hop neighbourhood in one round trip (spec §3.4).

One statement: the user's decay-clock reading (`decay_clock.READING`), with the query's search
terms their document frequencies among the user's memories (`_LEXICON`), a pool of the nearest
memories, the best before similarity (`scoring.prior`), the scheduled ones and the lexically best
(`_LEXICAL`), the pool ranked by the whole §3.4 score (`_RANK`, similarity mixed with lexical
relevance as `scoring.relevance`), and the best `limit` expanded one hop (`_EXPAND`).

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
    context_vector_index,
    context_vector_property,
    edge_from_record,
    node_from_record,
    node_projection,
    vector_index,
    vector_property,
)
from selfimprint.adapters.neo4j.search_terms import TERM_INDEX, term_queries
from selfimprint.domain.belief import DEFAULT_BELIEF, BeliefConfig
from selfimprint.domain.decay import DEFAULT_DECAY, DecayConfig
from selfimprint.domain.models import Edge, Node
from selfimprint.domain.recognition import MAD_TO_DEVIATION, SimilaritySpread
from selfimprint.domain.scoring import DEFAULT_SCORING, ScoringConfig
from selfimprint.domain.users import UserScope
from selfimprint.ports import RetrievalQuery, RetrievalResult, RetrievedMemory


def _alive(var: str) -> str:
    """Not expired on the user's decay clock (`clock_now`, bound by decay_clock.READING)."""
    return f"({var}.expires_at IS NULL OR {var}.expires_at > clock_now)"


def _standing(var: str) -> str:
    """Not a refuted or archived hypothesis."""
    return f"coalesce({var}.hypothesis_status, 'active') IN ['active', 'confirmed']"


def active(var: str) -> str:
    """Cypher condition: not expired on the user's decay clock, and not a refuted or archived
    hypothesis."""
    return f"{_alive(var)} AND {_standing(var)}"


def recalled(var: str) -> str:
    """Cypher condition of the nearest pools: active, or faded (expired, kept: issue 32) and
    recognised by the query (domain.recognition.recognised): its calibrated similarity (`score`,
    Neo4j's normalised cosine) at least `$recognition_min_similarity` and, with
    `$recognition_min_distinctiveness`, that many deviations above the query's `spread`
    (`_SPREAD`); of one of `$recognised_types` and not an emotional note of
    `$unrecognised_valences`."""
    recognised = (
        f"({var}.type IN $recognised_types AND NOT coalesce({var}.valence, '') IN "
        f"$unrecognised_valences AND ({_CALIBRATED}) >= $recognition_min_similarity "
        f"AND ($recognition_min_distinctiveness IS NULL OR (spread.size > 0 AND "
        f"(({_CALIBRATED}) - spread.centre) / CASE WHEN spread.deviation > "
        f"$recognition_min_deviation THEN spread.deviation ELSE $recognition_min_deviation END"
        f" >= $recognition_min_distinctiveness)))"
    )
    # A faded memory that holds its room in the context (`$faded_hold_room`) is read too; the
    # context tells the recognised ones apart.
    return f"({_alive(var)} OR $faded_hold_room OR {recognised}) AND {_standing(var)}"


# The neighbour's scope is checked after the expansion (the WITH in between): written as a
# pattern property, the planner seeks every node of the user through the scope index and
# joins, so expanding 20 candidates of a 3,000-node user cost 250 ms instead of under 1 ms.
_EXPAND = f"""
CALL (n, clock_now) {{
  OPTIONAL MATCH (n)-[r]-(m)
  WITH r, m, clock_now WHERE m:Memory AND m.scope = $scope AND {active("m")}
  RETURN collect({{edge: {EDGE_PROJECTION}, node: {node_projection("m")}}}) AS hood
}}
RETURN {node_projection("n")} AS node, score, lexical, scheduled, similar_found, hood, spread,
       clock.decay_clock_last_us AS clock_last_us, clock.decay_clock_pauses_us AS clock_pauses_us
"""

# --- the score of spec §3.4, in Cypher (domain.scoring.score; its numbers are parameters,
# `score_params`, and an integration test holds the two together) -------------------------------

# The score's weight term (scoring.score_weight): the stored weight, or with
# `$decayed_weight_in_score` the effective weight from the expiry, which is on the decay clock:
# weight x c^(days decayed) equals threshold x c^-(days left until expiry), exactly, without the
# pauses themselves.
_EFFECTIVE_WEIGHT = """CASE WHEN NOT $decayed_weight_in_score OR n.expires_at IS NULL THEN n.weight
  ELSE $removal_threshold * n.decay_coefficient
       ^ (-(n.expires_at.epochMillis - clock_now.epochMillis) / $period_ms) END"""
_RECENCY = """2.0 ^ (-(CASE WHEN $now_ms > touched_ms THEN $now_ms - touched_ms ELSE 0 END)
  / $half_life_ms)"""
_MULTIPLIER = "CASE WHEN n.is_inference OR n:Hypothesis THEN $hypothesis_multiplier ELSE 1.0 END"

# The confidence factor (scoring.confidence_factor): 1.0 for hypotheses, for memories no
# evidence has moved and with a weight of 0; else 1 + weight x (effective confidence - that of
# an untouched twin), both dormancy-decayed on wall time (belief.effective_confidence) and
# capped by evidence kind. Only evidenced memories (the stored `evidenced` flag, records.node_row)
# evaluate the rest: reading the belief fields of every memory in the prior scan cost 25 ms at
# 10k memories (BENCHMARKS.md, "API").
_HALF_LIFE_MS = """CASE n.permanence WHEN 'stable' THEN $stable_half_life_ms
  WHEN 'situational' THEN $situational_half_life_ms ELSE $durable_half_life_ms END"""
_CAP = "CASE WHEN n.evidence_kind = 'interpretation' THEN $interpretation_cap ELSE 1.0 END"
_ANCHOR_MS = """coalesce(n.confidence_at,
  reduce(a = n.first_seen, t IN [n.confirmed_at, n.challenged_at]
    | CASE WHEN t IS NOT NULL AND t > a THEN t ELSE a END)).epochMillis"""


def _confidence_now(confidence: str, since_ms: str) -> str:
    """`confidence` decayed from `since_ms` to now, within the evidence kind's cap."""
    decayed = (
        f"({confidence}) * 2.0 ^ (-(CASE WHEN $now_ms > {since_ms} THEN $now_ms - {since_ms} "
        f"ELSE 0 END) / ({_HALF_LIFE_MS}))"
    )
    return f"CASE WHEN {decayed} > ({_CAP}) THEN ({_CAP}) ELSE {decayed} END"


_START = (
    "CASE WHEN n.evidence_kind = 'observed' THEN $observed_start_confidence "
    "ELSE $self_report_start_confidence END"
)
# A negative shift counts whole, a positive one `confidence_support_share` of itself; the
# one-element list comprehension evaluates the long shift expression once.
_CONFIDENCE_FACTOR = f"""CASE
  WHEN $confidence_weight > 0.0 AND n.evidenced = true AND NOT (n.is_inference OR n:Hypothesis)
  THEN 1.0 + $confidence_weight * [shift IN [
      ({_confidence_now("n.confidence", "(" + _ANCHOR_MS + ")")})
      - ({_confidence_now(_START, "n.first_seen.epochMillis")})]
    | CASE WHEN shift < 0.0 THEN shift ELSE $confidence_support_share * shift END][0]
  ELSE 1.0 END"""


def _scored(carried: str, similarity: str, boost: str) -> str:
    """WITH clauses that add `total`: the §3.4 score of `n` given its calibrated `similarity`
    expression and priority `boost` expression, capped at 1 as `scoring.score` caps it (the
    domain's ties at 1.0 go by id); `carried` are the variables kept."""
    return f"""
WITH {carried}, coalesce(n.last_reinforced_at, n.created_at).epochMillis AS touched_ms,
     {_EFFECTIVE_WEIGHT} AS eff
WITH {carried}, {_MULTIPLIER} * ($similarity_weight * ({similarity}) + $recency_weight * {_RECENCY}
     + $weight_weight * CASE WHEN eff > 1.0 THEN 1.0 ELSE eff END + ({boost}))
     * {_CONFIDENCE_FACTOR} AS uncapped
WITH {carried}, CASE WHEN uncapped > 1.0 THEN 1.0 ELSE uncapped END AS total
"""


# The vector a query is compared with: the memory's reply-context vector where it has one and
# the query wants it (`$context_property`, RetrievalQuery.in_context), else its content's
# (`$context_property` is then `$property` itself). The index finds the nearest by content.
_VECTOR = "coalesce(n[$context_property], n[$property])"

# Neo4j's cosine score is normalised, (1 + cos) / 2; calibrated like scoring.calibrated_similarity.
_CALIBRATED = """CASE WHEN 2.0 * score - 1.0 <= $similarity_floor THEN 0.0
  WHEN 2.0 * score - 1.0 >= 1.0 THEN 1.0
  ELSE (2.0 * score - 1.0 - $similarity_floor) / (1.0 - $similarity_floor) END"""

# The query's similarity spread over the recognition sample (domain.recognition): the user's
# standing memories of the query's model with the smallest ids, at most `$recognition_sample`,
# faded ones included; calibrated, not clipped; median and scaled median absolute deviation
# (percentileCont interpolates as statistics.median does). One pass over the user's ids and at
# most `recognition_sample` cosines, whichever way the nearest are then found.
_SPREAD = f"""
CALL () {{
  MATCH (n:Memory {{scope: $scope}})
  WHERE n.embedding_model = $model AND {_standing("n")}
  WITH n ORDER BY n.id LIMIT $recognition_sample
  WITH vector.similarity.cosine({_VECTOR}, $embedding) AS score
  WHERE score IS NOT NULL
  WITH (2.0 * score - 1.0 - $similarity_floor) / (1.0 - $similarity_floor) AS s
  WITH collect(s) AS sims, percentileCont(s, 0.5) AS centre
  CALL (sims, centre) {{
    UNWIND sims AS s
    RETURN percentileCont(abs(s - centre), 0.5) AS mad
  }}
  RETURN {{centre: centre, deviation: $mad_to_deviation * mad, size: size(sims)}} AS spread
}}
"""

_BY_INDEX = f"""
CALL db.index.vector.queryNodes($index, $fetch, $embedding) YIELD node AS n, score
WHERE n.scope = $scope AND n.embedding_model = $model AND {recalled("n")}
WITH n, score ORDER BY score DESC LIMIT $nearest_limit
RETURN n, CASE WHEN $context_property = $property THEN score
  ELSE vector.similarity.cosine({_VECTOR}, $embedding) END AS score, 'similar' AS kind
"""

# In context, the nearest by reply context too, from its own index (migration 0047).
_BY_CONTEXT_INDEX = f"""
CALL db.index.vector.queryNodes($context_index, $fetch, $embedding) YIELD node AS n, score
WHERE n.scope = $scope AND n.embedding_model = $model AND {recalled("n")}
WITH n, score ORDER BY score DESC LIMIT $nearest_limit
RETURN n, score, 'similar' AS kind
"""

_EXACT = f"""
MATCH (n:Memory {{scope: $scope}})
WHERE n.embedding_model = $model
WITH n, clock_now, spread, vector.similarity.cosine({_VECTOR}, $embedding) AS score
WHERE score IS NOT NULL AND {recalled("n")}
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
             THEN coalesce(vector.similarity.cosine({_VECTOR}, $embedding), 0.0)
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
             THEN coalesce(vector.similarity.cosine({_VECTOR}, $embedding), 0.0)
             ELSE 0.0 END AS score
RETURN n, score, 'prior' AS kind
"""

# --- lexical relevance (domain.terms.lexical_relevance; numbers from domain.scoring) -----------

# The query's terms weighed among the user's memories, and the lexically best, read from the
# `memory_terms` full-text index (search_terms.term_queries) rather than a scan of every memory:
# scanning cost 60-80 ms at 10k memories (BENCHMARKS.md). Document frequencies count the user's
# stored memories (`documents`: the scope index's count), expired ones not yet pruned included,
# as the snapshot path does: statistics, not candidates. Lucene's own ranking (whose idf spans
# every user) only picks `lexical_fetch` candidates of this user; they are ranked again by this
# user's idf (`terms.idf_weights`) and the best `lexical_limit` kept.
# Issue 32's ablation switch `recognition_min_lexical` (off by default): a faded memory joins
# the lexical pool when the query recognises it by words and meaning together
# (domain.recognition.recognised with `lexical`): its lexical relevance (as `_LEXICAL_RELEVANCE`)
# at least `$recognition_min_lexical`, its similarity `$recognition_lexical_distinctiveness`
# deviations above the spread. The lexical pool then finds it again by id, standing only.
_WORDS_RELEVANCE = """CASE WHEN idf_total > 0.0
  THEN reduce(s = 0.0, d IN idf | s + CASE WHEN d.t IN coalesce(n.terms, []) THEN d.w
         WHEN d.t IN coalesce(n.context_terms, []) THEN $context_term_share * d.w ELSE 0.0 END)
       / idf_total ELSE 0.0 END"""
_WORDS_SIMILARITY = f"""[score IN [CASE WHEN n.embedding_model = $model
  THEN coalesce(vector.similarity.cosine({_VECTOR}, $embedding), 0.0) ELSE 0.0 END]
  | {_CALIBRATED}][0]"""
_BY_WORDS = f"""($recognition_min_lexical IS NOT NULL AND {_standing("n")}
  AND n.type IN $recognised_types AND NOT coalesce(n.valence, '') IN $unrecognised_valences
  AND spread.size > 0 AND ({_WORDS_RELEVANCE}) >= $recognition_min_lexical
  AND (({_WORDS_SIMILARITY}) - spread.centre) / CASE WHEN spread.deviation >
    $recognition_min_deviation THEN spread.deviation ELSE $recognition_min_deviation END
    >= $recognition_lexical_distinctiveness)"""

_LEXICON = f"""
CALL () {{
  MATCH (n:Memory {{scope: $scope}})
  RETURN count(n) AS documents
}}
CALL () {{
  UNWIND $term_queries AS tq
  CALL (tq) {{
    CALL db.index.fulltext.queryNodes('{TERM_INDEX}', tq.q) YIELD node
    RETURN count(node) AS df
  }}
  RETURN collect({{t: tq.t, df: df}}) AS dfs
}}
WITH clock, clock_now, spread,
     [d IN dfs WHERE d.df > 0 |
      {{t: d.t, w: log(1.0 + (documents - d.df + 0.5) / (d.df + 0.5))}}] AS idf
CALL (clock_now, idf, spread) {{
  CALL db.index.fulltext.queryNodes('{TERM_INDEX}', $any_term_query, {{limit: $lexical_fetch}})
    YIELD node AS n
  WITH n, clock_now, idf, spread, reduce(s = 0.0, d IN idf | s + d.w) AS idf_total
  WHERE n.scope = $scope AND ({active("n")} OR {_BY_WORDS})
  WITH n.id AS id,
       reduce(s = 0.0, d IN idf | s + CASE WHEN d.t IN n.terms THEN d.w ELSE 0.0 END) AS held
  ORDER BY held DESC, id LIMIT $lexical_limit
  RETURN collect(id) AS lexical_ids
}}
WITH clock, clock_now, spread, lexical_ids, idf, reduce(s = 0.0, d IN idf | s + d.w) AS idf_total
"""
# How many of Lucene's best the user's idf ranks again for the lexical pool: Lucene scores with
# every user's statistics and its length norm, so its order is near, not equal, to the user's.
LEXICAL_FETCH_FACTOR = 4

# A query without terms (the ingestion's duplicate check, a greeting) skips the scan.
_NO_LEXICON = "WITH clock, clock_now, spread, [] AS lexical_ids, [] AS idf, 0.0 AS idf_total\n"

# The lexically best, found again by id (the (scope, id) constraint's index).
_LEXICAL = f"""
MATCH (n:Memory {{scope: $scope}})
WHERE n.id IN lexical_ids AND {_standing("n")}
WITH n, CASE WHEN n.embedding_model = $model
             THEN coalesce(vector.similarity.cosine({_VECTOR}, $embedding), 0.0)
             ELSE 0.0 END AS score
RETURN n, score, 'lexical' AS kind
"""

_LEXICAL_RELEVANCE = """CASE WHEN idf_total > 0.0
  THEN reduce(s = 0.0, d IN idf | s + CASE WHEN d.t IN coalesce(n.terms, []) THEN d.w
         WHEN d.t IN coalesce(n.context_terms, []) THEN $context_term_share * d.w ELSE 0.0 END)
       / idf_total END"""
_RELEVANCE = f"""CASE WHEN lexical IS NULL THEN {_CALIBRATED}
  ELSE (1.0 - $lexical_share) * ({_CALIBRATED}) + $lexical_share * lexical END"""

# The pool, each memory once, ranked by the whole score; only the best `limit` are expanded.
_RANK = f"""
WITH clock, clock_now, spread, idf, idf_total, collect({{n: n, score: score, kind: kind}}) AS pool
WITH clock, clock_now, spread, idf, idf_total, pool,
     size([p IN pool WHERE p.kind = 'similar']) AS similar_found
UNWIND pool AS p
WITH clock, clock_now, spread, idf, idf_total, similar_found, p.n AS n, max(p.score) AS score,
     'scheduled' IN collect(p.kind) AS scheduled
WITH clock, clock_now, spread, similar_found, n, score, scheduled, {_LEXICAL_RELEVANCE} AS lexical
{
    _scored(
        "clock, clock_now, spread, similar_found, n, score, scheduled, lexical",
        _RELEVANCE,
        "CASE WHEN scheduled THEN $scheduled_priority_boost ELSE 0.0 END",
    )
}
ORDER BY total DESC, n.id LIMIT $limit
"""


def score_params(
    similarity_floor: float,
    scoring: ScoringConfig = DEFAULT_SCORING,
    decay: DecayConfig = DEFAULT_DECAY,
    beliefs: BeliefConfig = DEFAULT_BELIEF,
) -> dict[str, float | bool | list[str] | None]:
    return {
        "confidence_weight": scoring.confidence_weight,
        "confidence_support_share": scoring.confidence_support_share,
        "observed_start_confidence": scoring.observed_start_confidence,
        "self_report_start_confidence": scoring.self_report_start_confidence,
        "stable_half_life_ms": beliefs.stable_half_life / timedelta(milliseconds=1),
        "durable_half_life_ms": beliefs.durable_half_life / timedelta(milliseconds=1),
        "situational_half_life_ms": beliefs.situational_half_life / timedelta(milliseconds=1),
        "interpretation_cap": beliefs.interpretation_cap,
        "similarity_floor": similarity_floor,
        "similarity_weight": scoring.similarity_weight,
        "lexical_share": scoring.lexical_share,
        "context_term_share": scoring.context_term_share,
        "hypothesis_multiplier": scoring.hypothesis_multiplier,
        "recency_weight": scoring.recency_weight,
        "weight_weight": scoring.effective_weight_weight,
        "half_life_ms": scoring.recency_half_life / timedelta(milliseconds=1),
        "scheduled_priority_boost": scoring.scheduled_priority_boost,
        "decayed_weight_in_score": scoring.decayed_weight_in_score,
        "recognition_min_similarity": scoring.recognition_min_similarity,
        "recognition_min_distinctiveness": scoring.recognition_min_distinctiveness,
        "recognition_min_deviation": scoring.recognition_min_deviation,
        "recognition_sample": scoring.recognition_sample,
        "recognition_min_lexical": scoring.recognition_min_lexical,
        "recognition_lexical_distinctiveness": scoring.recognition_lexical_distinctiveness,
        "mad_to_deviation": MAD_TO_DEVIATION,
        "recognised_types": [t.value for t in scoring.recognised_types],
        "unrecognised_valences": [v.value for v in scoring.unrecognised_valences],
        "faded_hold_room": scoring.faded_hold_room,
        "removal_threshold": decay.removal_threshold,
        "period_ms": decay.decay_period / timedelta(milliseconds=1),
    }


def _read_query(nearest: str, *, lexical: bool) -> str:
    """The whole pool (nearest, best before similarity, scheduled, and with the query's terms
    the lexically best), its ranking and the best ones' neighbourhood in one statement: each
    statement is a round trip, and on a shared 2-core host the round trips, not Neo4j's own
    work, were most of a read's latency (docs/decisions.md, "Graph store")."""
    parts = (nearest, _PRIOR, _SCHEDULED, *((_LEXICAL,) if lexical else ()))
    union = "\n  UNION ALL\n".join(parts)
    lexicon = _LEXICON if lexical else _NO_LEXICON
    return (
        f"{decay_clock.READING}{_SPREAD}{lexicon}"
        f"CALL (clock_now, lexical_ids, spread) {{\n{union}\n}}\n{_RANK}{_EXPAND}"
    )


BY_INDEX = _read_query(_BY_INDEX, lexical=False)
EXACT = _read_query(_EXACT, lexical=False)
BY_INDEX_LEXICAL = _read_query(_BY_INDEX, lexical=True)
EXACT_LEXICAL = _read_query(_EXACT, lexical=True)
_BOTH_INDEXES = f"{_BY_INDEX}\n  UNION ALL\n{_BY_CONTEXT_INDEX}"
BY_INDEXES = _read_query(_BOTH_INDEXES, lexical=False)
BY_INDEXES_LEXICAL = _read_query(_BOTH_INDEXES, lexical=True)

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
        "terms": list(query.terms),
        "lexical_limit": query.lexical_limit,
        "lexical_fetch": LEXICAL_FETCH_FACTOR * max(query.lexical_limit, 1),
        **term_queries(scope.key, query.terms),
        "property": vector_property(dimension),
        "context_property": (
            context_vector_property(dimension) if query.in_context else vector_property(dimension)
        ),
        "now_ms": decay_clock.micros(query.now) // 1000,
        **decay_clock.reading_params(query.now),
        **score_params(query.similarity_floor, query.scoring, beliefs=query.beliefs),
    }
    lexical = bool(query.terms)
    exact = EXACT_LEXICAL if lexical else EXACT
    if query.in_context:
        by_index = BY_INDEXES_LEXICAL if lexical else BY_INDEXES
        params["context_index"] = context_vector_index(dimension)
    else:
        by_index = BY_INDEX_LEXICAL if lexical else BY_INDEX
    size = await sizes.get(tx, scope)
    fetch = index_fetch(nearest, size, config)
    if fetch is None:
        result = await tx.run(exact, params)
        return _assemble([r async for r in result])
    result = await tx.run(by_index, params, index=vector_index(dimension), fetch=fetch)
    rows = [r async for r in result]
    # Too few of the nearest survived the user filter (the user's vectors cluster away from
    # the query's neighbourhood, or many are inactive): the exact scan is always right.
    if rows and rows[0]["similar_found"] < min(nearest, size.mine):
        result = await tx.run(exact, params)
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
            lexical=None if r["lexical"] is None else float(r["lexical"]),
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
        spread=_spread(rows[0]["spread"]) if rows else None,
    )


def _spread(row: dict[str, Any] | None) -> SimilaritySpread | None:
    if not row or not row["size"]:
        return None
    return SimilaritySpread(
        centre=float(row["centre"]), deviation=float(row["deviation"]), size=int(row["size"])
    )
