"""Removing memories: expired ones (decay), a topic the user asked to forget, a whole graph.

Tensions name their two memories by id (they are not edges, so compaction's edge budget never
drops them); whoever deletes a memory deletes the tensions that name it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from neo4j import AsyncManagedTransaction

from selfimprint.adapters.neo4j import summaries
from selfimprint.adapters.neo4j.decay_clock import micros
from selfimprint.adapters.neo4j.records import CONTEXT_VECTOR_FIELDS, from_epoch_micros
from selfimprint.domain import deleted_memories
from selfimprint.domain.deleted_memories import (
    DEFAULT_DELETED_MEMORIES,
    DeletedMemory,
    DeletedMemoryConfig,
)
from selfimprint.domain.fading import FadingConfig
from selfimprint.domain.terms import search_terms
from selfimprint.domain.users import UserScope
from selfimprint.ports import ForgetReport, ForgottenMemory, TopicSelector

DELETE_BATCH = 5_000

_DELETE_NODES = """
UNWIND $ids AS id
MATCH (n:Memory {scope: $scope, id: id})
DETACH DELETE n
RETURN count(*) AS deleted
"""

_DELETE_TENSIONS_OF = """
MATCH (t:Tension {scope: $scope})
WHERE (t.node_a IN $ids OR t.node_b IN $ids)
  AND NOT ($keep_worded AND coalesce(t.a_said, '') <> '' AND coalesce(t.b_said, '') <> '')
DELETE t
"""

# A tension keeps both sides' words after decay removed them (issue 33): forgetting a topic
# removes the tensions whose words name it, as it removes the memories.
_DELETE_TENSIONS_SAYING = """
MATCH (t:Tension {scope: $scope})
WHERE toLower(coalesce(t.a_said, '')) CONTAINS toLower($text)
   OR toLower(coalesce(t.b_said, '')) CONTAINS toLower($text)
DELETE t
"""


# Hypotheses keep their evidence as memory ids: a deleted memory is no longer evidence.
_STRIP_EVIDENCE = """
MATCH (h:Memory:Hypothesis {scope: $scope})
WHERE any(e IN coalesce(h.hypothesis_supporting, []) + coalesce(h.hypothesis_contradicting, [])
          WHERE e IN $ids)
SET h.hypothesis_supporting = [e IN coalesce(h.hypothesis_supporting, []) WHERE NOT e IN $ids],
    h.hypothesis_contradicting = [e IN coalesce(h.hypothesis_contradicting, [])
                                  WHERE NOT e IN $ids],
    h.hypothesis_model_supported = [e IN coalesce(h.hypothesis_model_supported, [])
                                    WHERE NOT e IN $ids]
"""


async def delete_nodes(
    tx: AsyncManagedTransaction,
    scope: UserScope,
    ids: Sequence[str],
    *,
    keep_worded_tensions: bool = False,
) -> int:
    """Delete memories with the tensions that name them. `keep_worded_tensions`: the product
    removes them (decay, compaction), not the user, so a tension that keeps both sides' words
    stays on the record (`Tension.keeps_its_words`, issue 33)."""
    if not ids:
        return 0
    await tx.run(
        _DELETE_TENSIONS_OF, scope=scope.key, ids=list(ids), keep_worded=keep_worded_tensions
    )
    await tx.run(_STRIP_EVIDENCE, scope=scope.key, ids=list(ids))
    result = await tx.run(_DELETE_NODES, scope=scope.key, ids=list(ids))
    record = await result.single(strict=True)
    return int(record["deleted"])


# One memory the user deleted ("delete this one memory"): its id is remembered on the user's
# profile, so that nothing re-creates it: node ids are derived from their messages, and a
# retried extraction of the same messages would write the same id again (the store's upserts
# skip remembered ids). Only ids (hashes, no content) and when each was deleted, as two parallel
# lists (`deleted_memory_ids`, `deleted_memory_at_us`: epoch microseconds); erasure deletes them
# with the profile. How long an id stays is the domain's rule (`domain.deleted_memories.kept`),
# applied here whenever one is added: the lists never hold more than its `max_ids`.
#
# The first SET takes the profile's write lock before the lists are read, so two concurrent
# deletes of one user cannot both read the lists and each drop the other's id.
_LOCK_DELETED = """
MATCH (p:UserProfile {scope: $scope})
SET p.deleted_memory_lock = true
WITH p
RETURN coalesce(p.deleted_memory_ids, []) AS ids, coalesce(p.deleted_memory_at_us, []) AS at_us
"""

_STORE_DELETED = """
MATCH (p:UserProfile {scope: $scope})
SET p.deleted_memory_ids = $ids, p.deleted_memory_at_us = $at_us
REMOVE p.deleted_memory_lock
"""

_DELETED_AMONG = """
OPTIONAL MATCH (p:UserProfile {scope: $scope})
RETURN [i IN $ids WHERE i IN coalesce(p.deleted_memory_ids, [])] AS deleted
"""


async def deleted_among(
    tx: AsyncManagedTransaction, scope: UserScope, ids: Sequence[str]
) -> set[str]:
    """Those of `ids` that the user deleted one by one (`delete_memory`) and that are still
    remembered (`domain.deleted_memories`)."""
    if not ids:
        return set()
    result = await tx.run(_DELETED_AMONG, scope=scope.key, ids=sorted(set(ids)))
    return set((await result.single(strict=True))["deleted"])


async def remember_deleted(
    tx: AsyncManagedTransaction,
    scope: UserScope,
    ids: Sequence[str],
    now: datetime,
    config: DeletedMemoryConfig = DEFAULT_DELETED_MEMORIES,
) -> list[str]:
    """Add `ids` (deleted at `now`) to the profile's remembered deletions and apply the
    retention rule to the whole list; returns the ids kept, oldest first. An id stored before
    times were (no entry in `deleted_memory_at_us`) counts as deleted at `now`: it is kept a
    full retention from the first time the rule sees it. No profile: nothing is written."""
    record = await (await tx.run(_LOCK_DELETED, scope=scope.key)).single()
    if record is None:
        return []
    stored_ids: list[str] = list(record["ids"])
    stored_at: list[int] = list(record["at_us"])
    entries = [
        DeletedMemory(
            id=memory_id,
            deleted_at=from_epoch_micros(stored_at[k]) if k < len(stored_at) else now,
        )
        for k, memory_id in enumerate(stored_ids)
    ]
    entries += [DeletedMemory(id=memory_id, deleted_at=now) for memory_id in ids]
    remembered = deleted_memories.kept(entries, now, config)
    await tx.run(
        _STORE_DELETED,
        scope=scope.key,
        ids=[e.id for e in remembered],
        at_us=[micros(e.deleted_at) for e in remembered],
    )
    return [e.id for e in remembered]


# Issue 37, forget means forgotten in the message log too: the raw messages a removed memory
# cites (its `sources`) and, for a topic, every message of the user whose text contains it
# (case-insensitive, as memories are matched) lose their text. The whole message goes, not its
# forgotten sentences: a message is rarely about two things, a sentence split would guess, and
# the memories that survive keep their own words. Its id and content hash stay, so a client's
# retried post of the same message stays a duplicate (not a new message to extract again), and
# a message still pending is marked extracted: nothing is left to extract from it.
_CITED = """
CALL () {
  MATCH (n:Memory {scope: $scope}) WHERE n.id IN $ids
  UNWIND coalesce(n.sources, []) AS source
  RETURN collect(DISTINCT source) + $sources AS cited
}
"""
_REDACTED = """
SET m.text = null, m.redacted_at = datetime(),
    m.extraction_state = CASE WHEN m.extraction_state = 'pending' THEN 'extracted'
                              ELSE m.extraction_state END
RETURN count(m) AS redacted
"""
# The cited messages by a seek on the (scope, id) constraint; a topic reads every message of
# the user, as the forget's memory match does.
_REDACT_CITED = (
    _CITED
    + """UNWIND cited AS id
MATCH (m:RawMessage {scope: $scope, id: id})
WHERE m.text IS NOT NULL"""
    + _REDACTED
)
_REDACT_TOPIC = (
    _CITED
    + """MATCH (m:RawMessage {scope: $scope})
WHERE m.text IS NOT NULL AND (m.id IN cited OR toLower(m.text) CONTAINS toLower($text))"""
    + _REDACTED
)


async def redact_messages(
    tx: AsyncManagedTransaction,
    scope: UserScope,
    memory_ids: Sequence[str],
    text: str | None,
    sources: Sequence[str] = (),
) -> int:
    """Drop the text of the raw messages behind memories about to be removed, and with `text`
    of every message saying it (`_REDACT_CITED`, `_REDACT_TOPIC`); run before the memories are
    deleted (their sources are read from them). `sources`: messages of memories that are not in
    Neo4j (forgotten in an archive). Returns how many messages lost their text."""
    statement = _REDACT_CITED if text is None else _REDACT_TOPIC
    result = await tx.run(
        statement, scope=scope.key, ids=list(memory_ids), text=text, sources=list(sources)
    )
    return int((await result.single(strict=True))["redacted"])


async def delete_memory(
    tx: AsyncManagedTransaction,
    scope: UserScope,
    memory_id: str,
    now: datetime,
    config: DeletedMemoryConfig = DEFAULT_DELETED_MEMORIES,
) -> bool:
    """Delete one memory with its edges, the tensions that name it, its place in hypotheses'
    evidence, the sleep results that cite it, its place in session reviews and monthly
    summaries (rewritten without it) and the text of the messages it came from
    (`redact_messages`); remember its id (`remember_deleted`). False when the scope has no such
    memory (deleted before, or never there): nothing is written (the redaction reads the
    memory's sources, so it finds nothing either)."""
    await redact_messages(tx, scope, [memory_id], None)
    if not await delete_nodes(tx, scope, [memory_id]):
        return False
    await _derived(tx, scope, {memory_id}, None, delete=True)
    await remember_deleted(tx, scope, [memory_id], now, config)
    return True


# The sweeper (domain.fading.deleted_when_faded): faded (expired) memories are kept, except
# noise (superseded negative emotional notes, listed types) and, past the per-user bound, the
# longest faded. A range seek
# on (scope, expires_at): rows read = expired nodes, whatever the graph's size. The hint stops
# the planner from preferring the plain scope index (a scan of the whole graph).
_EXPIRED = """
MATCH (n:Memory)
USING INDEX n:Memory(scope, expires_at)
WHERE n.scope = $scope AND n.expires_at <= $now AND NOT n.is_pinned
"""
_EXPIRED_NOISE = (
    _EXPIRED
    + """AND (n.type IN $noise_types
     OR (n.type = 'emotional_note' AND n.valence IN $noise_valences
         AND (n.valid_until IS NOT NULL OR NOT $noise_only_when_superseded)))
WITH n LIMIT $batch
RETURN collect(n.id) AS ids
"""
)
# The newest `max_faded` stay; the batch is taken from the rest, longest faded first.
_FADED_PAST_BOUND = (
    _EXPIRED
    + """WITH n ORDER BY n.expires_at DESC, n.id SKIP $max_faded
WITH n ORDER BY n.expires_at, n.id LIMIT $batch
RETURN collect(n.id) AS ids
"""
)


async def prune_expired_batch(
    tx: AsyncManagedTransaction,
    scope: UserScope,
    now: datetime,
    fading: FadingConfig,
    batch: int = DELETE_BATCH,
) -> list[str]:
    """One bounded batch of faded memories to delete (noise first, then past the bound); the
    store loops until a batch comes back short. Idempotent: a retried batch finds the nodes
    already gone and deletes nothing twice."""
    noise = [t.value for t in fading.deleted_when_faded]
    result = await tx.run(
        _EXPIRED_NOISE,
        scope=scope.key,
        now=now,
        noise_types=noise,
        noise_valences=[v.value for v in fading.noise_valences],
        noise_only_when_superseded=fading.noise_only_when_superseded,
        batch=batch,
    )
    ids: list[str] = (await result.single(strict=True))["ids"]
    if len(ids) < batch:
        result = await tx.run(
            _FADED_PAST_BOUND,
            scope=scope.key,
            now=now,
            max_faded=fading.max_faded,
            batch=batch - len(ids),
        )
        ids += (await result.single(strict=True))["ids"]
    await delete_nodes(tx, scope, ids, keep_worded_tensions=True)
    return ids


async def expired_scan_db_hits(
    tx: AsyncManagedTransaction, scope: UserScope, now: datetime, batch: int = DELETE_BATCH
) -> int:
    """Diagnostics (benchmarks): database hits of the expired-node selection, from PROFILE."""
    query = "PROFILE " + _EXPIRED + "WITH n LIMIT $batch RETURN collect(n.id) AS ids"
    result = await tx.run(query, scope=scope.key, now=now, batch=batch)
    summary = await result.consume()

    def hits(plan: dict[str, object]) -> int:
        children = plan.get("children") or []
        assert isinstance(children, list)
        own = plan.get("dbHits", 0)
        return int(own if isinstance(own, int) else 0) + sum(hits(c) for c in children)

    return hits(summary.profile or {})


# A memory is about the topic (domain.forget_topic.about_topic, over the stored terms): its
# content contains the topic's text (case-insensitive), or its search terms hold every search
# term of the topic (issue 37).
_TOPIC = """
MATCH (n:Memory {scope: $scope})
WHERE n.id IN $ids OR ($text IS NOT NULL AND toLower(n.content) CONTAINS toLower($text))
   OR (size($topic_terms) > 0 AND all(t IN $topic_terms WHERE t IN coalesce(n.terms, [])))
OPTIONAL MATCH (n)-[r]-()
WITH n, count(r) AS degree
RETURN n.id AS id, n.type AS type, n.content AS content, degree
ORDER BY id
"""


# A memory that stays but replied to a message about the topic (its reply context's terms hold
# every term of the topic) loses its reply context: the terms and the vector computed with that
# message (domain.reply_context). Its own words, terms and vector stay.
_DROP_REPLY_CONTEXT = f"""
MATCH (n:Memory {{scope: $scope}})
WHERE size($topic_terms) > 0 AND all(t IN $topic_terms WHERE t IN coalesce(n.context_terms, []))
REMOVE n.context_terms, {", ".join(f"n.{f}" for f in CONTEXT_VECTOR_FIELDS)}
RETURN count(n) AS dropped
"""


async def forget_topic(
    tx: AsyncManagedTransaction, scope: UserScope, topic: TopicSelector, *, dry_run: bool
) -> ForgetReport:
    topic_terms = list(search_terms(topic.text)) if topic.text else []
    result = await tx.run(
        _TOPIC, scope=scope.key, ids=list(topic.node_ids), text=topic.text, topic_terms=topic_terms
    )
    rows = [r async for r in result]
    memories = tuple(
        ForgottenMemory(id=r["id"], type=r["type"], content=r["content"]) for r in rows
    )
    ids = {m.id for m in memories}
    # An edge between two forgotten memories is counted from both ends.
    edges = sum(int(r["degree"]) for r in rows) - await _edges_within(tx, scope, ids)
    derived = await _derived(tx, scope, ids, topic.text, delete=not dry_run)
    if not dry_run:
        await redact_messages(tx, scope, sorted(ids), topic.text)
        await delete_nodes(tx, scope, sorted(ids))
        await tx.run(_DROP_REPLY_CONTEXT, scope=scope.key, topic_terms=topic_terms)
    return ForgetReport(dry_run=dry_run, memories=memories, edges=edges, derived=derived)


# What the sleep phase derived from memories: patterns (their key names the topic), scheduled
# triggers and open-loop questions. Forgetting a topic must not leave "mentions Google 4 times"
# behind, so each goes when it cites a forgotten memory or names the topic itself.
_DERIVED = """
CALL () {
  MATCH (x:SleepPattern {scope: $scope}) RETURN x
  UNION
  MATCH (x:ScheduledTrigger {scope: $scope}) RETURN x
  UNION
  MATCH (x:OpenLoopQuestion {scope: $scope}) RETURN x
}
WITH x
WHERE (any(id IN coalesce(x.node_ids, []) WHERE id IN $ids)
       OR x.node_id IN $ids
       OR ($text IS NOT NULL AND any(field IN [x.key, x.description, x.content, x.question]
                                     WHERE toLower(field) CONTAINS toLower($text))))
"""
# A dry run is a read transaction: a query that merely contains a write clause is refused there.
_COUNT_DERIVED = _DERIVED + "RETURN count(x) AS derived"
_DELETE_DERIVED = _DERIVED + "DETACH DELETE x RETURN count(*) AS derived"

# A session review holds ids only (`memory_ids` with the parallel `sides`; once answered,
# `answered_ids` with the parallel `verdicts`): a removed memory leaves the review, the other
# beliefs stay and can still be answered; a review left with none goes.
_REVIEWS_CITING = """
MATCH (r:BeliefReview {scope: $scope})
WHERE any(id IN r.memory_ids WHERE id IN $ids)
"""
_COUNT_REVIEWS = _REVIEWS_CITING + "RETURN count(r) AS reviews"
# Both kept lists are read from the review as it was, before either is set.
_STRIP_REVIEWS = (
    _REVIEWS_CITING
    + """
WITH r, [k IN range(0, size(r.memory_ids) - 1) WHERE NOT r.memory_ids[k] IN $ids] AS kept,
     [k IN range(0, size(coalesce(r.answered_ids, [])) - 1)
      WHERE NOT r.answered_ids[k] IN $ids] AS answered
WITH r, [k IN kept | r.memory_ids[k]] AS memory_ids, [k IN kept | r.sides[k]] AS sides,
     CASE WHEN r.answered_ids IS NULL THEN null ELSE [k IN answered | r.answered_ids[k]] END
       AS answered_ids,
     CASE WHEN r.verdicts IS NULL THEN null ELSE [k IN answered | r.verdicts[k]] END AS verdicts
SET r.memory_ids = memory_ids, r.sides = sides, r.answered_ids = answered_ids,
    r.verdicts = verdicts
RETURN count(r) AS reviews
"""
)
_DELETE_EMPTY_REVIEWS = """
MATCH (r:BeliefReview {scope: $scope})
WHERE size(r.memory_ids) = 0
DETACH DELETE r
"""


async def forget_derived(
    tx: AsyncManagedTransaction,
    scope: UserScope,
    ids: Sequence[str],
    text: str | None,
    *,
    dry_run: bool,
    message_ids: Sequence[str] = (),
) -> int:
    """Only what was derived from these memories or names the topic (sleep results, reviews,
    monthly summaries): for memories that are not in Neo4j (a warm or cold graph, a soft-reset
    archive) while those are. Tensions whose kept words name the topic go too (not counted:
    they are not derived results)."""
    if text is not None and not dry_run:
        await tx.run(_DELETE_TENSIONS_SAYING, scope=scope.key, text=text)
        # The message log is in Neo4j whatever the tier: what says the topic loses its text,
        # and a memory that replied to it its reply context (issue 37).
        await redact_messages(tx, scope, list(ids), text, message_ids)
        await tx.run(_DROP_REPLY_CONTEXT, scope=scope.key, topic_terms=list(search_terms(text)))
    return await _derived(tx, scope, set(ids), text, delete=not dry_run)


async def _derived(
    tx: AsyncManagedTransaction, scope: UserScope, ids: set[str], text: str | None, *, delete: bool
) -> int:
    """Sleep results deleted, reviews and monthly summaries rewritten without the memories (or
    counted, when not `delete`), all in the caller's transaction."""
    query = _DELETE_DERIVED if delete else _COUNT_DERIVED
    result = await tx.run(query, scope=scope.key, ids=sorted(ids), text=text)
    derived = int((await result.single(strict=True))["derived"])
    result = await tx.run(
        _STRIP_REVIEWS if delete else _COUNT_REVIEWS, scope=scope.key, ids=sorted(ids)
    )
    derived += int((await result.single(strict=True))["reviews"])
    if delete:
        await tx.run(_DELETE_EMPTY_REVIEWS, scope=scope.key)
    return derived + await summaries.without_memories(tx, scope, ids, text, write=delete)


_EDGES_WITHIN = """
MATCH (a:Memory {scope: $scope})-[r]->(b:Memory {scope: $scope})
WHERE a.id IN $ids AND b.id IN $ids
RETURN count(r) AS within
"""


async def _edges_within(tx: AsyncManagedTransaction, scope: UserScope, ids: set[str]) -> int:
    if len(ids) < 2:
        return 0
    result = await tx.run(_EDGES_WITHIN, scope=scope.key, ids=sorted(ids))
    return int((await result.single(strict=True))["within"])


_DELETE_GRAPH_BATCH = """
CALL () {
  MATCH (n:Memory {scope: $scope}) WITH n LIMIT $batch DETACH DELETE n RETURN count(*) AS memories
}
CALL () {
  MATCH (t:Tension {scope: $scope}) WITH t LIMIT $batch DELETE t RETURN count(*) AS tensions
}
CALL () {
  MATCH (r:BeliefReview {scope: $scope}) WITH r LIMIT $batch DELETE r RETURN count(*) AS reviews
}
RETURN memories, tensions, reviews
"""


async def delete_graph_batch(
    tx: AsyncManagedTransaction, scope: UserScope, batch: int = DELETE_BATCH
) -> tuple[int, int]:
    """Bounded so a large graph never needs one huge transaction; repeat until (0, 0)."""
    result = await tx.run(_DELETE_GRAPH_BATCH, scope=scope.key, batch=batch)
    record = await result.single(strict=True)
    # Session reviews (ids only) count with the tensions: the caller repeats until both are 0.
    return int(record["memories"]), int(record["tensions"]) + int(record["reviews"])
