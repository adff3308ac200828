"""The read path (DESIGN §5): embed the message, retrieve candidates with their one-hop
neighbourhood in one round trip, rank, and assemble a context within the token budget. Not
through Temporal: this is on the latency-critical path before every reply.

The extractive context is always produced; prose mode asks the LLM to rewrite it and falls back to
the extractive one (saying why) when the LLM is down, slow, or over budget.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Protocol

from selfimprint.config import Settings
from selfimprint.domain.context import AssembledContext, assemble_context, prose_context
from selfimprint.domain.language import detect_language
from selfimprint.domain.pending_messages import (
    NO_PENDING,
    PendingBlock,
    PendingMessage,
    pending_block,
)
from selfimprint.domain.scoring import Candidate, calibrated_similarity, rank, score_weight
from selfimprint.domain.session_review import review_prompt
from selfimprint.domain.terms import search_terms
from selfimprint.domain.tuning import DomainTuning
from selfimprint.domain.users import UserScope
from selfimprint.logging import get_logger
from selfimprint.ports import (
    LLM,
    ContextPrompts,
    Embedder,
    GraphStore,
    RetrievalQuery,
    RetrievalResult,
)
from selfimprint.prompts.context_summary import ProseSummary, context_summary_messages
from selfimprint.service.embedding_lane import embed_off_loop

log = get_logger(__name__)

PROSE_TIMEOUT_S = 20.0
PROSE_MAX_TOKENS = 600


class ReadResources(Protocol):
    """What the read path uses of a process's resources (the API's `Resources`)."""

    @property
    def settings(self) -> Settings: ...
    @property
    def graph(self) -> GraphStore: ...
    @property
    def embedder(self) -> Embedder: ...
    @property
    def llm(self) -> LLM: ...
    @property
    def clock(self) -> Callable[[], datetime]: ...
    @property
    def tuning(self) -> DomainTuning: ...


class ContextMode(StrEnum):
    FAST = "fast"
    PROSE = "prose"


# Where candidates come from: the user's Neo4j graph, or a snapshot read from warm/cold storage.
Retrieve = Callable[[RetrievalQuery], Awaitable[RetrievalResult]]


@dataclass
class ContextOutcome:
    context: AssembledContext
    mode: ContextMode
    fallback_reason: str | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    # The user's messages not yet extracted that the context shows (read your writes).
    pending: PendingBlock = NO_PENDING


async def build_context(
    resources: ReadResources,
    scope: UserScope,
    message: str,
    budget_tokens: int,
    mode: ContextMode,
    retrieve: Retrieve | None = None,
    *,
    pending: Sequence[PendingMessage] = (),
) -> ContextOutcome:
    """The context for `message`; `pending`: the user's messages not yet extracted, shown
    verbatim in a section of their own within the budget (issue 36)."""
    timings: dict[str, float] = {}
    started = time.perf_counter()
    now = resources.clock()
    language = detect_language(message)
    # The open session review and the prepared questions live in Neo4j with the hot graph: asked
    # beside embedding and retrieval, so they add one round trip's latency only if it is slower.
    prompts = (
        asyncio.create_task(_prompts(resources, scope, now, timings)) if retrieve is None else None
    )
    try:
        found = await _retrieve(resources, scope, message, now, timings, retrieve)
        asked = await prompts if prompts is not None else ContextPrompts()
    finally:
        if prompts is not None and not prompts.done():
            prompts.cancel()

    mark = time.perf_counter()
    nodes = [c.node for c in found.candidates]
    floor = resources.embedder.similarity_floor
    ranked = rank(
        (
            Candidate.from_node(
                c.node,
                similarity=calibrated_similarity(c.cosine, floor),
                effective_weight=score_weight(
                    c.node, now, timeline=found.timeline, config=resources.tuning.scoring
                ),
                prioritised=c.prioritised,
                lexical=c.lexical,
            )
            for c in found.candidates
        ),
        now,
        resources.tuning.scoring,
        beliefs=resources.tuning.beliefs,
    )
    review = (
        review_prompt(asked.review, asked.review_nodes, now, resources.tuning.beliefs)
        if asked.review
        else None
    )
    block = pending_block(
        pending,
        language=language,
        budget_tokens=budget_tokens,
        current_message=message,
        config=resources.tuning.context,
    )
    context = assemble_context(
        ranked,
        nodes,
        found.neighbours,
        found.edges,
        language=language,
        now=now,
        budget_tokens=budget_tokens,
        timeline=found.timeline,
        config=resources.tuning.context,
        review=review,
        prepared=asked.questions,
        summary_month=asked.summary_month,
        scoring=resources.tuning.scoring,
        spread=found.spread,
        pending_text=block.text,
    )
    timings["assemble"] = (time.perf_counter() - mark) * 1000

    outcome = ContextOutcome(
        context=context,
        mode=ContextMode.FAST,
        timings_ms=timings,
        pending=block if context.pending_text else NO_PENDING,
    )
    if mode is ContextMode.PROSE:
        await _try_prose(resources, outcome, message, budget_tokens)
    timings["total"] = (time.perf_counter() - started) * 1000
    return outcome


def pending_only_context(
    resources: ReadResources,
    message: str,
    budget_tokens: int,
    pending: Sequence[PendingMessage],
) -> ContextOutcome:
    """A context of the pending messages alone: for a user whose memories cannot be read now
    (an archived graph out of the time budget), what they just said is still known."""
    language = detect_language(message)
    config = resources.tuning.context
    block = pending_block(
        pending,
        language=language,
        budget_tokens=budget_tokens,
        current_message=message,
        config=config,
    )
    context = assemble_context(
        (),
        (),
        (),
        (),
        language=language,
        now=resources.clock(),
        budget_tokens=budget_tokens,
        config=config,
        pending_text=block.text,
    )
    return ContextOutcome(
        context=context,
        mode=ContextMode.FAST,
        pending=block if context.pending_text else NO_PENDING,
    )


async def _prompts(
    resources: ReadResources, scope: UserScope, now: datetime, timings: dict[str, float]
) -> ContextPrompts:
    """The open review and the prepared questions; a failure costs them, not the context."""
    config = resources.tuning.context
    mark = time.perf_counter()
    try:
        return await resources.graph.for_user(scope.tenant_id, scope.user_id).context_prompts(
            now,
            now - config.prepared_question_max_age,
            config.max_prepared_questions,
            now - config.review_offer_window,
        )
    except Exception as exc:  # the context is served without them, saying why in the log
        log.warning("context.prompts_failed", error=str(exc)[:200])
        return ContextPrompts()
    finally:
        timings["prompts"] = (time.perf_counter() - mark) * 1000


async def _retrieve(
    resources: ReadResources,
    scope: UserScope,
    message: str,
    now: datetime,
    timings: dict[str, float],
    retrieve: Retrieve | None,
) -> RetrievalResult:
    mark = time.perf_counter()
    threads = resources.settings.api_embed_threads
    vector = (await embed_off_loop(resources.embedder.embed_queries, [message], threads))[0]
    timings["embed"] = (time.perf_counter() - mark) * 1000

    mark = time.perf_counter()
    retrieve = retrieve or resources.graph.for_user(scope.tenant_id, scope.user_id).retrieve
    found = await retrieve(
        RetrievalQuery(
            embedding=tuple(vector),
            embedding_model=resources.embedder.model_id,
            now=now,
            similarity_floor=resources.embedder.similarity_floor,
            nearest_limit=resources.settings.retrieval_nearest_pool,
            prior_limit=resources.settings.retrieval_prior_pool,
            # A lexical pool of 0 turns lexical relevance off: similarity alone.
            terms=search_terms(message) if resources.settings.retrieval_lexical_pool else (),
            lexical_limit=resources.settings.retrieval_lexical_pool,
            in_context=True,
            scoring=resources.tuning.scoring,
            beliefs=resources.tuning.beliefs,
        )
    )
    timings["retrieve"] = (time.perf_counter() - mark) * 1000
    return found


async def _try_prose(
    resources: ReadResources, outcome: ContextOutcome, message: str, budget_tokens: int
) -> None:
    if not outcome.context.memories_used:  # a review or pending messages alone stay as they are
        outcome.fallback_reason = "no memories to summarise"
        return
    mark = time.perf_counter()
    try:
        summary = await asyncio.wait_for(
            resources.llm.complete_json(
                context_summary_messages(outcome.context, message, budget_tokens=budget_tokens),
                ProseSummary,
                max_tokens=PROSE_MAX_TOKENS,
            ),
            PROSE_TIMEOUT_S,
        )
    except Exception as exc:  # any LLM failure degrades to the extractive context
        outcome.fallback_reason = f"LLM unavailable: {type(exc).__name__}"
        log.warning("context.prose_fallback", error=str(exc)[:200])
        return
    finally:
        outcome.timings_ms["llm"] = (time.perf_counter() - mark) * 1000
    prose = prose_context(outcome.context, summary.text, budget_tokens=budget_tokens)
    if prose is None:
        outcome.fallback_reason = "the LLM summary was empty or over the budget"
        return
    outcome.context = prose
    outcome.mode = ContextMode.PROSE
