"""Forget a topic (spec §4.3): remove every memory that mentions it (case-insensitive text match)
or means it (embedding similarity to the topic above a threshold), with their edges, hypotheses
and tensions, in Neo4j and in the warm/cold SYNX objects (rewritten without them).

Matching is one pure function over nodes, used for both places, so a dry run in either tier
previews exactly what a real run removes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Annotated, Self

import numpy as np
from pydantic import BaseModel, Field, model_validator
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.payload_stage import PayloadRef, PayloadStages, Staging
from activities.tiers import PERMANENT, bad_data, with_heartbeats
from selfimprint.adapters.graph_archive import GraphArchive
from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.adapters.word_meaning import WordMeaning
from selfimprint.domain.forget_meaning import (
    DEFAULT_FORGET_MEANING,
    ForgetMeaningConfig,
    WordVector,
    about_by_meaning,
    meaning_words,
)
from selfimprint.domain.forget_topic import about_topic, replied_about_topic
from selfimprint.domain.models import Node
from selfimprint.domain.users import Tier
from selfimprint.logging import get_logger
from selfimprint.ports import (
    MAX_BATCH_IDS,
    Embedder,
    ForgottenMemory,
    GraphSnapshot,
    TopicSelector,
)

log = get_logger(__name__)

# multilingual-e5-small, query vs passage: related memories scored 0.845-0.91, unrelated <= 0.80
# in a probe (docs/tiers.md). Model-specific: bge-m3 needs a lower value (~0.6); the dry run is
# there to check.
DEFAULT_MIN_SIMILARITY = 0.84


class ForgetInput(BaseModel):
    tenant_id: str
    user_id: str
    # The words to forget, or (issue 37, what the API starts) where they are staged: the
    # history then holds a reference, never the topic. Exactly one of the two.
    topic: Annotated[str, Field(min_length=1, max_length=500)] | None = None
    topic_ref: PayloadRef | None = None
    dry_run: bool
    min_similarity: Annotated[float, Field(gt=0.0, le=1.0)] | None = DEFAULT_MIN_SIMILARITY
    # Queue of the embedding activity (the gpu worker's, where the embedder of the stored
    # vectors lives); None: the workflow's own queue. None for min_similarity: text match only.
    embed_task_queue: str | None = None
    # A real run tells the user's lifecycle when it is done, so that the lifecycle runs it again
    # after any graph operation that overlapped it; those replays do not tell it again.
    notify_lifecycle: bool = True

    @model_validator(mode="after")
    def _one_topic(self) -> Self:
        if (self.topic is None) == (self.topic_ref is None):
            raise ValueError("a forget names its topic or its topic's stage, not both or none")
        return self

    def shown(self) -> str:
        """The topic for an operator's screen: its words, or that they are staged."""
        return repr(self.topic) if self.topic is not None else "(topic staged)"


class TopicForgotten(BaseModel):
    """Signal to the lifecycle from a finished forget: what it removed, and since when it ran."""

    forget: ForgetInput
    started_at: datetime


class ForgetTopicReport(BaseModel):
    dry_run: bool
    memories: list[ForgottenMemory]  # removed, or on a dry run to be removed
    edges: int
    places: list[str]  # "neo4j" and/or the object keys that held matches
    derived: int = 0  # sleep results (patterns, triggers, questions) removed with them


# The topic's words, staged by the API for every activity of the forget and of its replay
# (issue 37: no topic text in the workflow's history). Run id: `topic_run_id(workflow id)`.
TOPIC_TEXT = "topic"


def topic_run_id(forget_workflow_id: str) -> str:
    """The stage run that holds a forget's topic: apart from the run's own stages (the vector),
    which its last step drops, since a replay of the forget reads the topic again."""
    return f"{forget_workflow_id}-topic"


class TopicText(BaseModel):
    text: Annotated[str, Field(min_length=1, max_length=500)]


class ForgetDerivedInput(BaseModel):
    tenant_id: str
    user_id: str
    memory_ids: list[str]
    # The messages that memories forgotten outside Neo4j (warm, cold, soft-reset archives)
    # came from: the message log is in Neo4j whatever the tier, and they lose their text.
    message_ids: list[str] = Field(default_factory=list)
    text: str | None = None  # None: read from `topic` (issue 37)
    dry_run: bool
    staged: PayloadRef | None = None  # the run's stages, dropped when done (the last step)
    topic: PayloadRef | None = None  # where the topic's words wait, when `text` is None


# The topic's vector, staged by embed_topic for forget_place (issue 35).
TOPIC_VECTOR = "topic_vector"


class EmbedTopicInput(BaseModel):
    text: str | None = None  # None: read from `topic` (issue 37)
    stage: PayloadRef | None = None  # stage the vector there instead of returning it
    topic: PayloadRef | None = None


class TopicVector(BaseModel):
    model: str
    vector: list[float]  # empty when staged
    staged: PayloadRef | None = None


class ForgetPlaceInput(BaseModel):
    """One place to forget in: Neo4j (tier hot), the tier's object, or another of the user's
    graph objects (`archive_key`: a soft-reset archive)."""

    tenant_id: str
    user_id: str
    tier: Tier
    archive_key: str | None = None
    text: str | None = None  # None: read from `topic` (issue 37)
    vector: TopicVector | None
    min_similarity: float | None
    dry_run: bool
    topic: PayloadRef | None = None


class PlaceReport(BaseModel):
    place: str
    memories: list[ForgottenMemory]
    edges: int
    derived: int = 0  # sleep results removed with the memories (the hot place only)
    # Archived places: the messages the forgotten memories came from (`ForgetDerivedInput`).
    sources: list[str] = Field(default_factory=list)


# --- pure -----------------------------------------------------------------------------------------


def topic_matches(
    nodes: Iterable[Node],
    text: str,
    vector: TopicVector | None,
    min_similarity: float | None,
    words: Mapping[str, WordVector] | None = None,
    meaning: ForgetMeaningConfig = DEFAULT_FORGET_MEANING,
) -> list[Node]:
    """Nodes about the topic by their words (`forget_topic.about_topic`: the text, or every
    stem of it; as the Neo4j store matches), or whose embedding (of the same model only) has
    cosine >= min_similarity to the topic, or (with `words`, the vectors of `meaning_words`
    of the topic and the nodes) about it by meaning (`forget_meaning.about_by_meaning`)."""
    query, model, threshold = None, "", 1.0
    if vector is not None and min_similarity is not None:
        query = np.asarray(vector.vector, dtype=np.float64)
        query /= np.linalg.norm(query) or 1.0
        model, threshold = vector.model, min_similarity
    found = []
    for node in nodes:
        if about_topic(node.content, text):
            found.append(node)
        elif query is not None and node.embedding and node.embedding_model == model:
            emb = np.asarray(node.embedding, dtype=np.float64)
            cosine = float(emb @ query) / (float(np.linalg.norm(emb)) or 1.0)
            if cosine >= threshold or (
                words is not None and about_by_meaning(text, node.content, cosine, words, meaning)
            ):
                found.append(node)
    return found


def words_to_embed(nodes: Iterable[Node], text: str) -> list[str]:
    """The words forget-by-meaning compares: the topic's and every node's (`meaning_words`)."""
    out = dict.fromkeys(meaning_words(text))
    for node in nodes:
        out.update(dict.fromkeys(meaning_words(node.content)))
    return list(out)


async def matching(
    nodes: Sequence[Node],
    text: str,
    vector: TopicVector | None,
    min_similarity: float | None,
    meaning: WordMeaning | None,
) -> list[Node]:
    """`topic_matches`, by meaning too where `meaning` has the vectors' model (the forget's
    places and the API's dry run both call this). The words are embedded off the loop."""
    if (
        meaning is None
        or vector is None
        or min_similarity is None  # text match only: the word rule rides on the vector one
        or vector.model != meaning.model_id
    ):
        return topic_matches(nodes, text, vector, min_similarity)
    words = await asyncio.to_thread(meaning.vectors, words_to_embed(nodes, text))
    return topic_matches(nodes, text, vector, min_similarity, words, meaning.config)


def without_nodes(
    snapshot: GraphSnapshot, ids: set[str], text: str | None = None
) -> tuple[GraphSnapshot, int]:
    """The snapshot minus those memories, their edges, hypotheses and tensions (also those whose
    kept words name `text`), and their ids in other hypotheses' evidence; and how many edges
    went."""
    needle = text.lower() if text else None
    edges = tuple(e for e in snapshot.edges if e.source_id not in ids and e.target_id not in ids)
    hypotheses = tuple(
        h.model_copy(
            update={
                "supporting": tuple(i for i in h.supporting if i not in ids),
                "contradicting": tuple(i for i in h.contradicting if i not in ids),
            }
        )
        for h in snapshot.hypotheses
        if h.node_id not in ids
    )
    pruned = snapshot.model_copy(
        update={
            "nodes": tuple(n for n in snapshot.nodes if n.id not in ids),
            "edges": edges,
            "hypotheses": hypotheses,
            "tensions": tuple(
                t
                for t in snapshot.tensions
                if t.node_a not in ids
                and t.node_b not in ids
                and not (needle and needle in f"{t.a_said}\n{t.b_said}".lower())
            ),
        }
    )
    return pruned, len(snapshot.edges) - len(edges)


def without_reply_contexts(snapshot: GraphSnapshot, text: str) -> tuple[GraphSnapshot, int]:
    """The snapshot with the reply contexts about the topic dropped from the memories that
    stay (`forget_topic.replied_about_topic`), as the Neo4j store drops them; and how many."""
    dropped = 0
    nodes = []
    for node in snapshot.nodes:
        if node.context_terms and replied_about_topic(node.context_terms, text):
            node = node.model_copy(update={"context_terms": (), "context_embedding": None})
            dropped += 1
        nodes.append(node)
    if not dropped:
        return snapshot, 0
    return snapshot.model_copy(update={"nodes": tuple(nodes)}), dropped


def forgotten(nodes: Sequence[Node], *, words: bool = True) -> list[ForgottenMemory]:
    """The memories a forget takes, by id; `words`: with their content (a preview, the API's
    answer), not in what a workflow step returns (issue 37)."""
    return [
        ForgottenMemory(id=n.id, type=n.type, content=n.content if words else None)
        for n in sorted(nodes, key=lambda n: n.id)
    ]


# --- activities -----------------------------------------------------------------------------------


async def topic_text(staging: Staging, text: str | None, topic: PayloadRef | None) -> str:
    """The topic's words: given (histories from before issue 37), or read from its stage."""
    if text is not None:
        return text
    if topic is None:
        raise ApplicationError(
            "a forget step got neither the topic nor its stage", non_retryable=True
        )
    return (await staging.read(topic, TOPIC_TEXT, TopicText)).text


class ForgetEmbeddingActivities:
    """Embeds the topic with the embedder that made the stored vectors (gpu worker)."""

    def __init__(self, embedder: Embedder, stages: PayloadStages | None = None) -> None:
        self._embedder = embedder
        self._staging = Staging(stages)

    @activity.defn(name="forget.embed_topic")
    async def embed_topic(self, data: EmbedTopicInput) -> TopicVector:
        text = await topic_text(self._staging, data.text, data.topic)
        rows = await asyncio.to_thread(self._embedder.embed_queries, [text])
        vector = TopicVector(model=self._embedder.model_id, vector=rows[0])
        if data.stage is None:
            return vector
        await self._staging.write(data.stage, TOPIC_VECTOR, vector)
        return TopicVector(model=vector.model, vector=[], staged=data.stage)


class ForgetActivities:
    """cpu queue."""

    def __init__(
        self,
        graph: Neo4jGraphStore,
        archive: GraphArchive,
        stages: PayloadStages | None = None,
        meaning: WordMeaning | None = None,
    ) -> None:
        self._graph = graph
        self._archive = archive
        self._staging = Staging(stages)
        self._meaning = meaning  # forget by meaning, word by word; None: words and vectors only

    @activity.defn(name="forget.forget_place")
    async def forget_place(self, data: ForgetPlaceInput) -> PlaceReport:
        if data.vector is not None and data.vector.staged is not None:
            vector = await self._staging.read(data.vector.staged, TOPIC_VECTOR, TopicVector)
            data = data.model_copy(update={"vector": vector})
        if data.text is None:
            text = await topic_text(self._staging, data.text, data.topic)
            data = data.model_copy(update={"text": text})
        if data.tier is Tier.HOT and data.archive_key is None:
            return await self._forget_hot(data)
        return await self._forget_archived(data)

    async def _forget_hot(self, data: ForgetPlaceInput) -> PlaceReport:
        store = self._graph.for_user(data.tenant_id, data.user_id)
        graph = await with_heartbeats(store.export_graph(datetime.now(UTC)))
        matched = await with_heartbeats(
            matching(graph.nodes, data.text or "", data.vector, data.min_similarity, self._meaning)
        )
        if not matched:
            return PlaceReport(place="neo4j", memories=[], edges=0)
        ids = sorted(n.id for n in matched)
        _, edges = without_nodes(graph, set(ids))
        derived = 0
        if not data.dry_run:
            # The store deletes by id in one transaction per batch (DETACH: edges go too).
            for start in range(0, len(ids), MAX_BATCH_IDS):
                batch = tuple(ids[start : start + MAX_BATCH_IDS])
                report = await store.forget_topic(TopicSelector(node_ids=batch), dry_run=False)
                derived += report.derived
        log.info("forget.hot", user_id=data.user_id, memories=len(ids), dry_run=data.dry_run)
        return PlaceReport(
            place="neo4j", memories=forgotten(matched, words=False), edges=edges, derived=derived
        )

    async def _forget_archived(self, data: ForgetPlaceInput) -> PlaceReport:
        key = data.archive_key or self._archive.key(data.tenant_id, data.user_id, data.tier)
        try:
            read = await with_heartbeats(
                asyncio.to_thread(self._archive.read_key, data.tenant_id, data.user_id, key)
            )
        except PERMANENT as exc:
            raise bad_data(exc) from exc
        matched = await with_heartbeats(
            matching(
                read.snapshot.nodes,
                data.text or "",
                data.vector,
                data.min_similarity,
                self._meaning,
            )
        )
        pruned, edges = without_nodes(read.snapshot, {n.id for n in matched}, data.text)
        pruned, replies = without_reply_contexts(pruned, data.text or "")
        if not matched and not replies and pruned.tensions == read.snapshot.tensions:
            return PlaceReport(place=key, memories=[], edges=0)
        if not data.dry_run:
            # One PUT replaces the object atomically: a crash leaves the old or the new file.
            await with_heartbeats(asyncio.to_thread(self._rewrite, data, key, pruned))
        log.info(
            "forget.archived",
            key=key,
            memories=len(matched),
            reply_contexts=replies,
            dry_run=data.dry_run,
        )
        sources = sorted({s for n in matched for s in n.sources})
        return PlaceReport(
            place=key, memories=forgotten(matched, words=False), edges=edges, sources=sources
        )

    @activity.defn(name="forget.forget_derived")
    async def forget_derived(self, data: ForgetDerivedInput) -> int:
        """Sleep results live in Neo4j whatever the tier: the ones citing a forgotten memory or
        naming the topic go too (the hot place removes those of hot memories already)."""
        store = self._graph.for_user(data.tenant_id, data.user_id)
        text = await topic_text(self._staging, data.text, data.topic)
        derived = await store.forget_derived(
            data.memory_ids, text, dry_run=data.dry_run, message_ids=data.message_ids
        )
        log.info("forget.derived", user_id=data.user_id, derived=derived, dry_run=data.dry_run)
        if data.staged is not None:
            await self._staging.drop_run(data.staged)
        return derived

    @activity.defn(name="forget.drop_topic")
    async def drop_topic(self, topic: PayloadRef) -> None:
        """The topic's words leave Neo4j once no replay of the forget can need them."""
        await self._staging.drop_run(topic)
        log.info("forget.topic_dropped", user_id=topic.user_id)

    def _rewrite(self, data: ForgetPlaceInput, key: str, pruned: GraphSnapshot) -> None:
        written = self._archive.rewrite(data.tenant_id, data.user_id, key, pruned)
        back = self._archive.read_key(data.tenant_id, data.user_id, key)
        if not back.matches(written):
            raise ApplicationError(f"rewritten {written.key} does not read back as written")
        # In a versioned bucket the old version would still hold the topic.
        self._archive.purge_old_versions_of(key)
