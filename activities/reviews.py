"""The session review activity (epistemic-memory article, component 8; cpu queue): read the
user's beliefs, choose the most and least confident with the domain
(`domain.session_review.plan_review`), store the review for the context to ask.

Idempotent by session number: the review's id is `review-<session>`, and a retry (or a lifecycle
that continued-as-new while it ran) finds it stored and writes nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, Field
from temporalio import activity

from selfimprint.adapters.neo4j import Neo4jGraphStore
from selfimprint.domain.belief import DEFAULT_BELIEF, BeliefConfig
from selfimprint.domain.session_review import DEFAULT_REVIEW, ReviewConfig, plan_review
from selfimprint.logging import get_logger

log = get_logger(__name__)


class ReviewInput(BaseModel):
    tenant_id: str
    user_id: str
    session: Annotated[int, Field(ge=1)]
    now: datetime  # the workflow's time: confidences are read at it


class ReviewOutput(BaseModel):
    review_id: str | None  # None: no belief to review yet
    memory_ids: list[str] = Field(default_factory=list)
    created: bool = False


class ReviewActivities:
    def __init__(
        self,
        graph: Neo4jGraphStore,
        belief: BeliefConfig = DEFAULT_BELIEF,
        config: ReviewConfig = DEFAULT_REVIEW,
    ) -> None:
        self._graph = graph
        self._belief = belief
        self._config = config

    @activity.defn(name="reviews.open_session_review")
    async def open_session_review(self, data: ReviewInput) -> ReviewOutput:
        store = self._graph.for_user(data.tenant_id, data.user_id)
        beliefs = await store.review_candidates(self._config.reviewed_types)
        review = plan_review(data.session, beliefs, data.now, self._belief, self._config)
        if review is None:
            log.info("review.nothing_to_review", session=data.session)
            return ReviewOutput(review_id=None)
        created = await store.open_review(review)
        log.info("review.opened", session=data.session, beliefs=len(review.items), created=created)
        return ReviewOutput(
            review_id=review.id, memory_ids=list(review.memory_ids), created=created
        )
