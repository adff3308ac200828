"""Ingestion activities: load a batch of stored messages, extract memories with the LLM and embed
them (gpu queue), and apply the domain's ingestion plan to the user's graph (cpu queue).

The batch travels between them by reference (issue 35): `stage_batch` stages it in Neo4j and
returns its id, `extract_staged` records its extraction (vectors included) there, and
`apply_staged` applies what is staged; the workflow's history holds ids and counts only. The
by-value activities (`load_batch`, `extract`, `apply_extraction`) stay for workflows whose
history scheduled them before.

Every write is idempotent: node ids are derived from the messages they came from, reinforcement
and down-weighting are conditional on the weight the plan read, so a retried activity leaves the
same graph.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping
from datetime import UTC, datetime
from enum import StrEnum

from prometheus_client import Counter
from pydantic import BaseModel, Field
from temporalio import activity
from temporalio.exceptions import ApplicationError

from selfimprint.adapters.contradiction_reader import contradiction_reader_for
from selfimprint.adapters.llm import LLMAnswerInvalidError
from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.adapters.neo4j.ingestion_stage import IngestionStages
from selfimprint.adapters.neo4j.message_log import ExtractionState, MessageLogs
from selfimprint.adapters.type_reader import type_reader_for
from selfimprint.domain.belief import DEFAULT_BELIEF, BeliefConfig
from selfimprint.domain.ingestion.config import DEFAULT_INGESTION, IngestionConfig
from selfimprint.domain.ingestion.extraction import Extraction, RecentMemory
from selfimprint.domain.ingestion.plan import RejectionReason
from selfimprint.domain.ingestion.planner import plan_ingestion
from selfimprint.domain.language import detect_language
from selfimprint.domain.lifecycle import EXTRACTION_BATCH, MODEL_FREE_EXTRACTION_BATCH
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.reply_context import context_of, contextual_passage, replied_to
from selfimprint.domain.structured.changes import change_head_for
from selfimprint.domain.structured.extractor import (
    DEFAULT_STRUCTURED,
    StructuredConfig,
    structured_extraction,
    texts_to_compare,
    texts_to_embed,
)
from selfimprint.domain.structured.refinement import refine
from selfimprint.domain.terms import search_terms
from selfimprint.domain.users import UserScope
from selfimprint.domain.verbatim_extraction import (
    DEFAULT_VERBATIM,
    VerbatimConfig,
    keep_the_users_words,
    verbatim_extraction,
)
from selfimprint.logging import get_logger
from selfimprint.ports import LLM, Contradiction, Embedder, Reinforcement, RetrievalQuery
from selfimprint.prompts.extraction import ExtractionAnswer, extraction_messages
from selfimprint.prompts.refinement import RefinementAnswer, refinement_messages

log = get_logger(__name__)

# Candidates dropped because the user's words do not support them, by extraction mode. In the
# process's default registry: served wherever the process serves /metrics.
EXTRACTION_FALLBACKS = Counter(
    "selfimprint_extraction_model_fallbacks_total",
    "Batches that the model failed past their attempt budget (refine/llm extraction) and that "
    "were extracted without it: by the structured reader, or verbatim where it has no head",
    ["mode", "fallback"],
)
# Attempts a batch gives the model server (refine/llm) before it is extracted without it: the
# activity's retries are 2 and 4 s apart, so an outage costs a batch ~10 s, not the outage's
# length; the next batch asks the model again, so extraction picks it up when it returns.
MODEL_ATTEMPTS = 3

UNGROUNDED = Counter(
    "selfimprint_ingestion_ungrounded_total",
    "Extracted memory candidates dropped by the grounding guard (not supported by the cited "
    "user messages).",
    ["mode"],
)

# How many of the user's recent memories the extractor sees (to link and to spot contradictions).
RECENT_MEMORIES = 12
# ... and how many older memories sharing the batch's search terms join them, per message of
# the batch (a batch of 12 looks for three times as many as one of 4, whose share it was).
RELATED_MEMORIES_PER_MESSAGE = 2
ALSO_PENDING = 100
# The error type `pending_messages` raises for a user with no profile (erased, or being erased):
# the lifecycle ends instead of living on for nobody (a late signal-with-start can start one).
USER_GONE = "UserGone"
# A batch that cannot be extracted or applied, ever (workflows.options makes it final): the
# lifecycle marks its messages failed.
BAD_BATCH = "BadBatchError"
# Existing memories compared with each candidate for reinforcement.
NEAREST_PER_CANDIDATE = 3
EXTRACTION_MAX_TOKENS = 800
# Corrections are short: a model that agrees with the draft answers "{}".
REFINEMENT_MAX_TOKENS = 400


class PendingInput(BaseModel):
    tenant_id: str
    user_id: str


class LoadBatchInput(BaseModel):
    tenant_id: str
    user_id: str
    message_ids: list[str]
    # The workflow's clock: what the batch is planned at (None: a worker of an older release
    # scheduled it; the activity's own clock then).
    now: datetime | None = None


class ExtractionBatch(BaseModel):
    tenant_id: str
    user_id: str
    messages: list[Message]
    recent: list[RecentMemory] = Field(default_factory=list)
    language: str
    now: datetime
    # Other messages pending in the log (oldest first, at most ALSO_PENDING): the workflow
    # queues those it was never told about.
    also_pending: list[str] = Field(default_factory=list)
    # User message id -> the text of the message it replied to (domain.reply_context); empty
    # in batches of an older release, whose memories then have no reply context.
    replies: dict[str, str] = Field(default_factory=dict)


class ExtractInput(BaseModel):
    batch: ExtractionBatch


class ExtractionMode(StrEnum):
    LLM = "llm"
    # Typed memories from the user's words without a large model (domain.structured).
    STRUCTURED = "structured"
    # The structured draft, corrected and completed by the model (production, vLLM).
    REFINE = "refine"
    VERBATIM = "verbatim"  # the LLM's answer was unusable: one memory per user message


def _attempt() -> int:
    """This activity's attempt (1 outside a worker, as in unit tests)."""
    return activity.info().attempt if activity.in_activity() else 1


class ExtractedBatch(BaseModel):
    answer: Extraction
    mode: ExtractionMode = ExtractionMode.LLM
    llm_error: str | None = None
    embeddings: dict[str, list[float]]
    embedding_model: str
    # Candidate ref -> the vector of its content read after the message it replied to
    # (domain.reply_context.contextual_passage), for candidates whose source has one.
    context_embeddings: dict[str, list[float]] = Field(default_factory=dict)
    # How many messages this extractor takes in its next batch (the lifecycle's next Extract);
    # an older release's answer reads 4.
    batch_size: int = Field(default=EXTRACTION_BATCH, ge=1)


class ApplyInput(BaseModel):
    batch: ExtractionBatch
    extracted: ExtractedBatch


class ApplyOutcome(BaseModel):
    mode: ExtractionMode
    created: int
    reinforced: int
    edges: int
    contradictions: int
    rejected: int
    # Of the rejected, candidates the user's words do not support (domain.grounding).
    ungrounded: int = 0


class StagedBatch(BaseModel):
    """A batch staged for extraction, as the workflow sees it: its id and message ids."""

    batch_id: str
    message_ids: list[str]  # empty: nothing to extract (all done, or the user is gone)
    also_pending: list[str] = Field(default_factory=list)  # as ExtractionBatch.also_pending


class StageRef(BaseModel):
    tenant_id: str
    user_id: str
    batch_id: str

    @property
    def scope(self) -> UserScope:
        return UserScope(self.tenant_id, self.user_id)


class ExtractionSummary(BaseModel):
    """What the workflow needs of a staged extraction; the answer and vectors stay staged."""

    mode: ExtractionMode
    candidates: int
    batch_size: int = Field(ge=1)  # as ExtractedBatch.batch_size


def batch_id(message_ids: list[str]) -> str:
    """A batch's id, from its messages: a retried load stages the same batch under it."""
    return hashlib.sha256("\n".join(message_ids).encode()).hexdigest()[:32]


def unstaged(what: str, ref: StageRef) -> ApplicationError:
    return ApplicationError(
        f"batch {ref.batch_id} has no staged {what} (erased, or abandoned)",
        type=BAD_BATCH,
        non_retryable=True,
    )


class MarkFailedInput(BaseModel):
    tenant_id: str
    user_id: str
    message_ids: list[str]
    reason: str


class IngestionActivities:
    """Graph and message-log side (cpu queue)."""

    def __init__(
        self,
        graph: Neo4jGraphStore,
        message_logs: MessageLogs,
        config: IngestionConfig = DEFAULT_INGESTION,
        beliefs: BeliefConfig = DEFAULT_BELIEF,
    ) -> None:
        self._graph = graph
        self._logs = message_logs
        self._config = config  # Settings.tuning_file, "ingestion"
        self._beliefs = beliefs  # ... "beliefs": how restatements and contradictions move them

    @activity.defn(name="ingestion.pending_messages")
    async def pending_messages(self, data: PendingInput) -> list[str]:
        message_log = self._logs.for_user(UserScope(data.tenant_id, data.user_id))
        if not await message_log.user_active():
            raise ApplicationError(
                f"user {data.user_id!r} has no profile (erased, or being erased)",
                type=USER_GONE,
                non_retryable=True,
            )
        return await message_log.pending()

    @activity.defn(name="ingestion.load_batch")
    async def load_batch(self, data: LoadBatchInput) -> ExtractionBatch:
        return await self._load(data)

    @activity.defn(name="ingestion.stage_batch")
    async def stage_batch(self, data: LoadBatchInput) -> StagedBatch:
        """Load the batch and stage it for `extract_staged` and `apply_staged`."""
        batch = await self._load(data)
        ids = [m.id for m in batch.messages]
        staged = StagedBatch(
            batch_id=batch_id(ids), message_ids=ids, also_pending=batch.also_pending
        )
        # Only this batch is staged: the other pending ids go to the workflow.
        batch = batch.model_copy(update={"also_pending": []})
        stage = self._logs.stage(UserScope(data.tenant_id, data.user_id))
        if not ids or not await stage.open(staged.batch_id, batch.model_dump_json()):
            staged.message_ids = []  # nothing left to extract, or the profile is gone
        return staged

    async def _load(self, data: LoadBatchInput) -> ExtractionBatch:
        scope = UserScope(data.tenant_id, data.user_id)
        message_log = self._logs.for_user(scope)
        pending = await message_log.pending(limit=100_000)
        pending_ids, requested = set(pending), set(data.message_ids)
        messages = [m for m in await message_log.get(data.message_ids) if m.id in pending_ids]
        also_pending = [i for i in pending if i not in requested][:ALSO_PENDING]
        store = self._graph.for_user(data.tenant_id, data.user_id)
        recent_nodes = await store.recent(RECENT_MEMORIES)
        user_text = " ".join(m.text for m in messages if m.role is Role.USER)
        # Older memories about what the batch speaks of (the employer a "quit" names), so that
        # the extractor can link to them and see a contradiction, however long ago they were.
        shown = {n.id for n in recent_nodes}
        recent_nodes += [
            n
            for n in await store.sharing_terms(
                search_terms(user_text), RELATED_MEMORIES_PER_MESSAGE * len(messages)
            )
            if n.id not in shown
        ]
        preceding = await message_log.preceding(messages[0]) if messages else None
        return ExtractionBatch(
            tenant_id=data.tenant_id,
            user_id=data.user_id,
            messages=messages,
            replies=replied_to(messages, preceding, self._config.reply_context_chars),
            recent=[RecentMemory.from_node(n) for n in recent_nodes],
            language=detect_language(user_text or " ".join(m.text for m in messages)),
            now=data.now or datetime.now(UTC),
            also_pending=also_pending,
        )

    @activity.defn(name="ingestion.apply_extraction")
    async def apply_extraction(self, data: ApplyInput) -> ApplyOutcome:
        return await self._apply(data.batch, data.extracted)

    @activity.defn(name="ingestion.apply_staged")
    async def apply_staged(self, ref: StageRef) -> ApplyOutcome:
        """Apply the staged batch and its extraction. The claim stops a late extract attempt
        from replacing the extraction under a retry; a retry after the batch was applied
        returns the recorded outcome."""
        stage = self._logs.stage(ref.scope)
        staged = await stage.claim(ref.batch_id)
        if staged is not None and staged.outcome is not None:
            return ApplyOutcome.model_validate_json(staged.outcome)
        if staged is None or staged.batch is None or staged.extracted is None:
            raise unstaged("extraction", ref)
        outcome = await self._apply(
            ExtractionBatch.model_validate_json(staged.batch),
            ExtractedBatch.model_validate_json(staged.extracted),
        )
        await stage.finish(ref.batch_id, outcome.model_dump_json())
        return outcome

    async def _apply(self, batch: ExtractionBatch, extracted: ExtractedBatch) -> ApplyOutcome:
        store = self._graph.for_user(batch.tenant_id, batch.user_id)
        # The decay clock first (spec §3.8.1): the user was active when they wrote, and every
        # weight below is computed on the clock that includes this batch.
        timeline = await store.record_activity(
            [min(m.sent_at, batch.now) for m in batch.messages if m.role is Role.USER]
        )
        nearest = {}
        for ref, vector in extracted.embeddings.items():
            found = await store.retrieve(
                RetrievalQuery(
                    embedding=tuple(vector),
                    embedding_model=extracted.embedding_model,
                    now=batch.now,
                    limit=NEAREST_PER_CANDIDATE,
                    nearest_limit=NEAREST_PER_CANDIDATE,
                    prior_limit=0,  # the duplicate check wants the nearest only
                    scheduled_limit=0,
                )
            )
            # The duplicate rule is stated in raw cosine (spec §3.9).
            nearest[ref] = [(c.node, c.cosine) for c in found.candidates]
        recent = await store.get_nodes([r.id for r in batch.recent])
        tallies = await store.reinforcement_tallies(
            sorted({n.id for found in nearest.values() for n, _ in found}),
            batch.now.astimezone(UTC).date(),
        )
        plan = plan_ingestion(
            extracted.answer,
            batch.messages,
            user_id=batch.user_id,
            now=batch.now,
            embeddings=extracted.embeddings,
            embedding_model=extracted.embedding_model,
            context_embeddings=extracted.context_embeddings,
            replies=batch.replies,
            nearest=nearest,
            recent=recent,
            tallies=tallies,
            timeline=timeline,
            config=self._config,
            beliefs=self._beliefs,
        )
        limited = [r.node.id for r in plan.reinforcements if r.result.rate_limited]
        if limited:
            # Spec §6: past 10 a day, mentions are ignored and the memory is flagged for review.
            log.warning("ingestion.reinforcement_rate_limited", user_id=batch.user_id, ids=limited)
        await store.upsert(plan.nodes)
        for r in plan.reinforcements:
            if not r.added_sources:
                # The memory already cites these messages: an earlier attempt of this activity
                # applied the batch. Reinforcing again would count one mention twice.
                continue
            await store.reinforce(
                Reinforcement(
                    node_id=r.node.id,
                    weight=r.node.weight,
                    weight_at=r.node.weight_at,
                    last_reinforced_at=r.node.last_reinforced_at or batch.now,
                    expires_at=r.node.expires_at,
                    tally=r.result.tally,
                    source_ids=r.added_sources,
                    expected_weight_at=r.expected_weight_at,
                    belief=r.node.belief,
                )
            )
        await store.upsert((), plan.edges)
        for c in plan.contradictions:
            await store.record_contradiction(Contradiction(edge=c.edge, tension=c.tension))
        for d in plan.downweights:
            await store.downweight(d)
        await self._logs.for_user(UserScope(batch.tenant_id, batch.user_id)).set_state(
            [m.id for m in batch.messages], ExtractionState.EXTRACTED
        )
        ungrounded = [r for r in plan.rejected if r.reason is RejectionReason.UNGROUNDED]
        if ungrounded:
            UNGROUNDED.labels(mode=extracted.mode.value).inc(len(ungrounded))
            # Refs and reasons only: the content is the extractor's words about the user.
            log.warning(
                "ingestion.ungrounded_dropped",
                user_id=batch.user_id,
                mode=extracted.mode.value,
                dropped={r.ref: r.detail for r in ungrounded},
            )
        outcome = ApplyOutcome(
            mode=extracted.mode,
            created=len(plan.nodes),
            reinforced=len(plan.reinforcements),
            edges=len(plan.edges),
            contradictions=len(plan.contradictions),
            rejected=len(plan.rejected),
            ungrounded=len(ungrounded),
        )
        log.info("ingestion.applied", user_id=batch.user_id, **outcome.model_dump())
        return outcome

    @activity.defn(name="ingestion.mark_failed")
    async def mark_failed(self, data: MarkFailedInput) -> None:
        log.warning("ingestion.failed", user_id=data.user_id, reason=data.reason)
        scope = UserScope(data.tenant_id, data.user_id)
        await self._logs.for_user(scope).set_state(data.message_ids, ExtractionState.FAILED)
        await self._logs.stage(scope).discard(batch_id(data.message_ids))


class ExtractionActivities:
    """Model side (gpu queue): one LLM call and one embedding call per batch."""

    def __init__(
        self,
        llm: LLM,
        embedder: Embedder,
        *,
        mode: ExtractionMode = ExtractionMode.LLM,
        verbatim: VerbatimConfig = DEFAULT_VERBATIM,
        structured: StructuredConfig = DEFAULT_STRUCTURED,
        model_attempts: int = MODEL_ATTEMPTS,
        stages: IngestionStages | None = None,
    ) -> None:
        self._llm = llm
        self._stages = stages  # where `extract_staged` reads and writes (None: by value only)
        self._model_attempts = model_attempts
        self._embedder = embedder
        self._mode = mode
        self._verbatim = verbatim
        self._structured = structured
        self._head = type_reader_for(embedder.model_id, structured.head_share)
        self._changes = change_head_for(embedder.model_id)
        self._pairs = (
            contradiction_reader_for(embedder.model_id) if structured.pair_reader else None
        )
        # A language model's prompt must fit its context; without one, batches can be larger.
        model_free = mode in (ExtractionMode.STRUCTURED, ExtractionMode.VERBATIM)
        self.batch_size = MODEL_FREE_EXTRACTION_BATCH if model_free else EXTRACTION_BATCH
        if mode is ExtractionMode.STRUCTURED and self._head is None:
            raise ValueError(
                f"structured extraction has no classifier head for {embedder.model_id!r}: "
                "train one with scripts/train_extraction_head.py, or choose another extraction"
            )

    @activity.defn(name="ingestion.extract")
    async def extract(self, data: ExtractInput) -> ExtractedBatch:
        batch = data.batch
        prompt = extraction_messages(batch.messages, batch.recent, batch.language, batch.now)
        mode, error = ExtractionMode.LLM, None
        answer: Extraction
        if self._mode is ExtractionMode.VERBATIM:
            answer = verbatim_extraction(batch.messages, self._verbatim)
            return await self._embedded(answer, self._mode, None, batch.replies)
        if self._mode is ExtractionMode.STRUCTURED:
            draft, vectors = await self._structured_pass(batch)
            return await self._embedded(draft, self._mode, None, batch.replies, known=vectors)
        if self._mode is ExtractionMode.REFINE:
            return await self._refined(batch)
        try:
            answer = await self._llm.complete_json(
                prompt, ExtractionAnswer, max_tokens=EXTRACTION_MAX_TOKENS
            )
        except LLMAnswerInvalidError as exc:
            answer = verbatim_extraction(batch.messages, self._verbatim)
            return await self._unusable(batch, answer, exc)
        except Exception as exc:
            if _attempt() < self._model_attempts:
                raise  # Temporal retries: the server may be back in a moment
            return await self._without_model(batch, exc)
        answer, kept = keep_the_users_words(
            answer, batch.messages, known=[r.content for r in batch.recent], config=self._verbatim
        )
        if kept:
            # The model proposed what the messages do not say: those messages are kept verbatim.
            log.warning("ingestion.verbatim_kept", user_id=batch.user_id, message_ids=list(kept))
        return await self._embedded(answer, mode, error, batch.replies)

    @activity.defn(name="ingestion.extract_staged")
    async def extract_staged(self, ref: StageRef) -> ExtractionSummary:
        """`extract` of the staged batch, its answer and vectors recorded beside it."""
        if self._stages is None:
            # A deployment error (retried: the work resumes once the worker is fixed).
            raise RuntimeError("this worker has no ingestion stage: build it with `stages`")
        stage = self._stages.for_user(ref.scope)
        staged = await stage.batch(ref.batch_id)
        if staged is None:
            raise unstaged("batch", ref)
        extracted = await self.extract(
            ExtractInput(batch=ExtractionBatch.model_validate_json(staged))
        )
        # Refused only when an apply has claimed the stage: this attempt came late, and the
        # workflow has moved on with an earlier attempt's extraction.
        await stage.record_extraction(ref.batch_id, extracted.model_dump_json())
        return ExtractionSummary(
            mode=extracted.mode,
            candidates=len(extracted.answer.candidates),
            batch_size=extracted.batch_size,
        )

    async def _unusable(
        self, batch: ExtractionBatch, words: Extraction, exc: LLMAnswerInvalidError
    ) -> ExtractedBatch:
        """Retrying a deterministic (temperature 0) call would give the same answer; keep the
        user's own words instead of remembering nothing."""
        error = str(exc)[:500]
        log.warning("ingestion.verbatim_fallback", user_id=batch.user_id, error=error)
        return await self._embedded(words, ExtractionMode.VERBATIM, error, batch.replies)

    async def _without_model(self, batch: ExtractionBatch, exc: Exception) -> ExtractedBatch:
        """The model failed the batch's whole attempt budget: extract it without the model,
        typed by the structured reader when this process has its head, else verbatim."""
        error = f"model unavailable after {self._model_attempts} attempts: {exc}"[:500]
        if self._head is not None:
            draft, vectors = await self._structured_pass(batch)
            fallback = ExtractionMode.STRUCTURED
        else:
            draft, vectors = verbatim_extraction(batch.messages, self._verbatim), {}
            fallback = ExtractionMode.VERBATIM
        EXTRACTION_FALLBACKS.labels(self._mode.value, fallback.value).inc()
        log.warning(
            "ingestion.model_fallback",
            user_id=batch.user_id,
            mode=self._mode.value,
            fallback=fallback.value,
            error=error,
        )
        return await self._embedded(draft, fallback, error, batch.replies, known=vectors)

    async def _refined(self, batch: ExtractionBatch) -> ExtractedBatch:
        draft, vectors = await self._structured_pass(batch)
        prompt = refinement_messages(batch.messages, batch.recent, draft, batch.language, batch.now)
        try:
            corrections = await self._llm.complete_json(
                prompt, RefinementAnswer, max_tokens=REFINEMENT_MAX_TOKENS
            )
        except LLMAnswerInvalidError as exc:
            # The draft is the user's words, typed: keep it rather than a verbatim copy.
            error = str(exc)[:500]
            log.warning("ingestion.refinement_unusable", user_id=batch.user_id, error=error)
            return await self._embedded(
                draft, ExtractionMode.REFINE, error, batch.replies, known=vectors
            )
        except Exception as exc:
            if _attempt() < self._model_attempts:
                raise
            return await self._without_model(batch, exc)
        answer = refine(draft, corrections)
        return await self._embedded(
            answer, ExtractionMode.REFINE, None, batch.replies, known=vectors
        )

    async def _structured_pass(
        self, batch: ExtractionBatch
    ) -> tuple[Extraction, dict[str, list[float]]]:
        texts = texts_to_embed(batch.messages, batch.recent, self._structured)
        vectors = await self._vectors(texts)
        # The older memories a change the head reads may contradict: known only now.
        compared = texts_to_compare(
            batch.messages, batch.recent, vectors, self._changes, self._structured
        )
        vectors |= await self._vectors(compared)
        # Reading the cues, dates and people is CPU work (~ms per message): off the event loop.
        answer = await asyncio.to_thread(
            structured_extraction,
            batch.messages,
            batch.recent,
            vectors,
            self._head,
            similarity_floor=self._embedder.similarity_floor,
            config=self._structured,
            replies=batch.replies,
            changes=self._changes,
            pairs=self._pairs,
        )
        return answer, vectors

    async def _vectors(self, texts: list[str]) -> dict[str, list[float]]:
        if not texts:
            return {}
        rows = await asyncio.to_thread(self._embedder.embed_passages, texts)
        return dict(zip(texts, rows, strict=True))

    async def _embedded(
        self,
        answer: Extraction,
        mode: ExtractionMode,
        error: str | None,
        replies: Mapping[str, str],
        known: dict[str, list[float]] | None = None,
    ) -> ExtractedBatch:
        """The answer with a passage vector per candidate (`known`: vectors already computed,
        by text), and one of it read in its reply context where its message replied to one."""
        known = dict(known or {})
        passages = {}
        for c in answer.candidates:
            context = context_of(c.source_message_ids, replies)
            if context is not None:
                passages[c.ref] = contextual_passage(context, c.content)
        wanted = [c.content for c in answer.candidates] + list(passages.values())
        missing = [t for t in wanted if t not in known]
        known.update(await self._vectors(list(dict.fromkeys(missing))))
        return ExtractedBatch(
            answer=answer,
            mode=mode,
            llm_error=error,
            embeddings={c.ref: known[c.content] for c in answer.candidates},
            embedding_model=self._embedder.model_id,
            context_embeddings={ref: known[text] for ref, text in passages.items()},
            batch_size=self.batch_size,
        )
