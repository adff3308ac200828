"""The session review's answer (epistemic-memory article, component 8): every 10th session the
context carries a review (`ContextResponse.review`); the app shows it, the user confirms or calls
each belief wrong, and the app posts the verdicts here. What an answer does to a belief, and the
divergence tensions it opens, is `selfimprint.domain.session_review.plan_answers`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request
from pydantic import BaseModel, Field

from api.auth import Caller
from api.errors import EVERY_ROUTE, UNKNOWN_USER, WITH_BODY, ApiError, documented
from api.routes.common import UserId, known_user, resources_of, scope_of
from selfimprint.domain.belief import effective_confidence
from selfimprint.domain.models import MAX_ID_CHARS, HypothesisStatus
from selfimprint.domain.session_review import (
    AnswerProblem,
    ReviewPrompt,
    ReviewSide,
    ReviewVerdict,
    check_answers,
    plan_answers,
)

router = APIRouter(prefix="/v1/users", tags=["reviews"])

_ID_PATTERN = r"^[A-Za-z0-9_.:\-]+$"
ReviewId = Annotated[str, Path(min_length=1, max_length=MAX_ID_CHARS, pattern=_ID_PATTERN)]
MemoryRef = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS, pattern=_ID_PATTERN)]


class ReviewItemOut(BaseModel):
    memory_id: str
    content: str
    confidence: float = Field(description="Effective (dormancy-decayed) confidence now.")
    side: ReviewSide = Field(description="highest: among the surest beliefs; lowest: the least.")


class ReviewOut(BaseModel):
    """The session review the context carries: ask the user, post the answers to
    `POST /v1/users/{user_id}/reviews/{id}`."""

    id: str
    session: int
    items: list[ReviewItemOut]

    @staticmethod
    def of(prompt: ReviewPrompt) -> ReviewOut:
        return ReviewOut(
            id=prompt.id,
            session=prompt.session,
            items=[
                ReviewItemOut(
                    memory_id=i.memory_id, content=i.content, confidence=i.confidence, side=i.side
                )
                for i in prompt.items
            ],
        )


class ReviewAnswer(BaseModel):
    memory_id: MemoryRef
    verdict: ReviewVerdict = Field(description="confirm: it is right; wrong: it is not.")


class ReviewAnswers(BaseModel):
    answers: list[ReviewAnswer] = Field(
        min_length=1, max_length=20, description="Beliefs not named are left as they are."
    )


class AnsweredBelief(BaseModel):
    memory_id: str
    verdict: ReviewVerdict
    confidence: float | None = Field(description="Effective confidence now (None: deleted).")


class ReviewAnswered(BaseModel):
    id: str
    status: str = Field(description="answered: the review is no longer in the context.")
    answers: list[AnsweredBelief]


_PROBLEMS = {
    AnswerProblem.NOT_IN_REVIEW: (422, "these memories are not in the review"),
    AnswerProblem.ANSWERED_TWICE: (422, "each memory may be answered once"),
    AnswerProblem.ALREADY_ANSWERED: (409, "the review was answered with other verdicts"),
}


@router.post(
    "/{user_id}/reviews/{review_id}",
    response_model=ReviewAnswered,
    responses=documented(
        *EVERY_ROUTE,
        *WITH_BODY,
        UNKNOWN_USER,
        (404, "review_not_found"),
        *((status, problem.value) for problem, (status, _) in _PROBLEMS.items()),
    ),
)
async def answer_review(
    user_id: UserId, review_id: ReviewId, body: ReviewAnswers, who: Caller, request: Request
) -> ReviewAnswered:
    """Answer the session review: confirm or reject its beliefs.

    Every 10th session the context's `review` carries the 3 surest and 3 least sure beliefs; the
    answers are `{answers: [{memory_id, verdict: "confirm"|"wrong"}]}` (1-20, each memory once;
    beliefs not named are left alone). `confirm` is self-report evidence for the belief (no longer
    dormant; a weak one rises towards 0.6); `wrong` is self-report evidence against it and then what
    `PATCH {wrong: true}` does (confidence 0, refuted, out of context). The review is then answered
    and leaves the context. `200 {id, status, answers: [{memory_id, verdict, confidence}]}`;
    the same answers again are `200` and change nothing (evidence id `review:<id>:<memory>`);
    other answers on an answered review `409 review_already_answered`; `404 review_not_found`;
    a memory not in the review `422 memory_not_in_review` (`details.memory_ids`), one named
    twice `422 memory_answered_twice`."""
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    await known_user(resources, scope)
    store = resources.graph.for_user(scope.tenant_id, scope.user_id)
    stored = await store.review(review_id)
    if stored is None:
        raise ApiError(404, "review_not_found", f"review {review_id!r} does not exist")
    answers = [(a.memory_id, a.verdict) for a in body.answers]
    now = resources.clock()
    check = check_answers(stored.review, answers, stored.answers)
    if check.problem is None and not check.replay:
        # The claim comes first and is atomic: of two different answers racing, one wins and
        # the other gets 409. The beliefs are written after it, idempotently (evidence ids), so
        # a retry after a failure in between (same answers: a replay) completes them.
        if not await store.record_review_answers(review_id, dict(answers), now):
            again = await store.review(review_id)
            check = check_answers(stored.review, answers, again.answers if again else None)
    if check.problem is not None:
        status, message = _PROBLEMS[check.problem]
        details = {"memory_ids": list(check.memory_ids)} if check.memory_ids else None
        raise ApiError(status, check.problem.value, message, details)
    verdicts = dict(answers)
    timeline = await store.decay_clock()
    nodes = {n.id: n for n in await store.get_nodes(list(verdicts))}
    beliefs = resources.tuning.beliefs
    writes = plan_answers(
        nodes.values(), review_id, verdicts, now, timeline=timeline, belief=beliefs
    )
    # Tensions first: once the beliefs carry the answer's evidence a retry plans nothing, so a
    # failure between the two writes must not lose the divergence.
    if writes.divergences:
        await store.set_tensions(writes.divergences)
    if writes.nodes:
        await store.upsert(writes.nodes)
        nodes |= {n.id: n for n in writes.nodes}
    for memory_id, verdict in verdicts.items():
        if verdict is ReviewVerdict.WRONG and memory_id in nodes:
            await store.set_status(memory_id, HypothesisStatus.REFUTED)
    return ReviewAnswered(
        id=review_id,
        status="answered",
        answers=[
            AnsweredBelief(
                memory_id=m,
                verdict=v,
                confidence=(
                    round(effective_confidence(nodes[m].belief, now, beliefs), 4)
                    if m in nodes
                    else None
                ),
            )
            for m, v in answers
        ],
    )
