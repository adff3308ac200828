"""A forget's dry run, answered by the API itself (issue 37): what "forget X" would remove,
from every place the user's graph is (Neo4j, the warm and cold objects, soft-reset archives),
without starting a workflow, so a topic the user only looked at never enters Temporal's
history. The real forget stays a workflow (durable, retried, replayed after overlapping graph
operations); both match with the same functions (`activities.forget.topic_matches`).

The real forget's answer shows the words of what went, but its workflow reports ids only, so
the words of a forgotten memory never enter Temporal's history either: the API looks first
(this preview) and names what the workflow removed from that look (`named`)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from activities.forget import (
    ForgetTopicReport,
    TopicVector,
    forgotten,
    matching,
    without_nodes,
)
from selfimprint.adapters.graph_archive import GraphArchive
from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.adapters.word_meaning import WordMeaning
from selfimprint.domain.models import Node
from selfimprint.domain.users import Tier, UserScope
from selfimprint.ports import Embedder, ForgottenMemory, GraphSnapshot
from selfimprint.service.embedding_lane import embed_off_loop


async def preview_forget(
    scope: UserScope,
    topic: str,
    min_similarity: float | None,
    *,
    graph: Neo4jGraphStore,
    archive: GraphArchive,
    embedder: Embedder,
    embed_threads: int,
    meaning: WordMeaning | None = None,
) -> ForgetTopicReport:
    """The memories a forget of `topic` would remove (by words, by meaning at `min_similarity`
    when given, and word by word with `meaning`), the edges that would go with them, where they
    are, and the sleep results citing them or naming the topic. Changes nothing."""
    vector = None
    if min_similarity is not None:
        (embedded,) = await embed_off_loop(embedder.embed_queries, [topic], embed_threads)
        vector = TopicVector(model=embedder.model_id, vector=embedded)
    store = graph.for_user(scope.tenant_id, scope.user_id)
    found: dict[str, ForgottenMemory] = {}
    places: list[str] = []
    edges = 0

    async def look(place: str, snapshot: GraphSnapshot) -> None:
        nonlocal edges
        matched: list[Node] = await matching(snapshot.nodes, topic, vector, min_similarity, meaning)
        if matched:
            places.append(place)
            edges += without_nodes(snapshot, {n.id for n in matched})[1]
            found.update((m.id, m) for m in forgotten(matched))

    if (await store.counts()).nodes:
        await look("neo4j", await store.export_graph(datetime.now(UTC)))
    for key in await asyncio.to_thread(_archived_keys, archive, scope):
        read = await asyncio.to_thread(archive.read_key, scope.tenant_id, scope.user_id, key)
        await look(key, read.snapshot)
    derived = await store.forget_derived(sorted(found), topic, dry_run=True)
    return ForgetTopicReport(
        dry_run=True,
        memories=sorted(found.values(), key=lambda m: m.id),
        edges=edges,
        places=places,
        derived=derived,
    )


def named(report: ForgetTopicReport, look: ForgetTopicReport) -> ForgetTopicReport:
    """The workflow's report (ids and types) with each memory's words from the API's look
    before it; a memory stored while the forget ran, which the look did not see, keeps None."""
    words = {m.id: m.content for m in look.memories}
    return report.model_copy(
        update={
            "memories": [
                m.model_copy(update={"content": words.get(m.id, m.content)})
                for m in report.memories
            ]
        }
    )


def _archived_keys(archive: GraphArchive, scope: UserScope) -> list[str]:
    """The user's graph objects in S3: the warm and cold tiers' (when present) and every
    soft-reset archive, as the forget workflow visits them."""
    keys = [
        archive.key(scope.tenant_id, scope.user_id, tier)
        for tier in (Tier.WARM, Tier.COLD)
        if archive.head(scope.tenant_id, scope.user_id, tier) is not None
    ]
    return keys + archive.reset_archives(scope.tenant_id, scope.user_id)
