"""The session review (epistemic-memory article, component 8): every N sessions the user sees the
beliefs the memory is most and least sure of, and confirms them or calls them wrong.

- Due: on session N, 2N, 3N... (`SessionCounter.review_due`); a review missed while the lifecycle
  was busy is still due until a later multiple of N supersedes it.
- Eligible: beliefs about the user that a person can judge from their own self-knowledge (the
  article: the review "depends on the user's own self-knowledge"): facts, feelings and people.
  Not events (a dated happening is a record, not a belief), not open loops (they get their own
  questions), not hypotheses (their own evidence lifecycle settles them), not pinned memories
  (the user already vouched for them), never refuted or archived ones (the store's filter).
- Ranked by EFFECTIVE confidence (dormancy-decayed now): a belief nobody has confirmed for a
  year is exactly what the review should ask about.
- Answers are self-report evidence (component 6): "confirm" supports the belief, "wrong"
  contradicts it and, as a user's correction marking it wrong does, takes it out of the context.
  The evidence id `review:<review id>:<memory id>` makes a repeated answer a no-op.
- Divergence (component 6, issue 33): an answer that points against what the user's own
  messages showed (confirming a memory their later words contradicted more than restated, or
  calling wrong one they restated more than contradicted) is applied as given, and opens a
  divergence tension (`review_divergence`): neither stream silently wins, the record keeps both.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.belief import (
    DEFAULT_BELIEF,
    BeliefConfig,
    Evidence,
    EvidenceStream,
    EvidenceStreams,
    SessionCounter,
    effective_confidence,
    select_for_review,
    update_belief,
)
from selfimprint.domain.corrections import MemoryCorrection, apply_correction
from selfimprint.domain.decay import ActivityTimeline
from selfimprint.domain.ingestion.identity import tension_id
from selfimprint.domain.models import AwareDatetime, MemoryId, Node, NodeType, Tension, TensionKind


class _Value(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ReviewConfig(_Value):
    # Project choice (module docstring): what a person can validate from self-knowledge.
    reviewed_types: tuple[NodeType, ...] = (
        NodeType.FACT,
        NodeType.EMOTIONAL_NOTE,
        NodeType.PERSON,
    )


DEFAULT_REVIEW = ReviewConfig()


class ReviewSide(StrEnum):
    HIGHEST = "highest"  # among the most confident beliefs
    LOWEST = "lowest"  # among the least confident


class ReviewItem(_Value):
    memory_id: MemoryId
    side: ReviewSide


class BeliefReview(_Value):
    """An open review as stored: which beliefs, on which session. Contents stay on the memories
    (read when the context is built), so forgetting a memory forgets it here too."""

    id: MemoryId
    session: Annotated[int, Field(ge=1)]
    items: tuple[ReviewItem, ...]
    created_at: AwareDatetime

    @property
    def memory_ids(self) -> tuple[str, ...]:
        return tuple(item.memory_id for item in self.items)


# --- when --------------------------------------------------------------------------------------


def due_review_session(
    sessions: int, last_reviewed: int, config: BeliefConfig = DEFAULT_BELIEF
) -> int | None:
    """The session whose review should be opened now: the latest multiple of N the counter has
    reached, when no review was opened for it yet (None otherwise)."""
    latest = sessions - sessions % config.review_every_sessions
    if latest <= last_reviewed or not SessionCounter(sessions=latest).review_due(config):
        return None
    return latest


def review_id(session: int) -> str:
    """One review per session number: opening it again is a no-op."""
    return f"review-{session}"


# --- what --------------------------------------------------------------------------------------


def eligible_for_review(node: Node, config: ReviewConfig = DEFAULT_REVIEW) -> bool:
    return node.type in config.reviewed_types and not node.is_pinned


def plan_review(
    session: int,
    beliefs: Iterable[Node],
    now: datetime,
    belief: BeliefConfig = DEFAULT_BELIEF,
    config: ReviewConfig = DEFAULT_REVIEW,
) -> BeliefReview | None:
    """The review of `session`: the most and least confident eligible beliefs by effective
    confidence at `now` (`select_for_review`); None when no belief is eligible."""
    confidences = {
        node.id: effective_confidence(node.belief, now, belief)
        for node in beliefs
        if eligible_for_review(node, config)
    }
    if not confidences:
        return None
    chosen = select_for_review(confidences, belief)
    items = tuple(ReviewItem(memory_id=i, side=ReviewSide.HIGHEST) for i in chosen.highest) + tuple(
        ReviewItem(memory_id=i, side=ReviewSide.LOWEST) for i in chosen.lowest
    )
    return BeliefReview(id=review_id(session), session=session, items=items, created_at=now)


class ReviewPromptItem(_Value):
    memory_id: MemoryId
    content: str
    confidence: float  # effective, when the context was built
    side: ReviewSide


class ReviewPrompt(_Value):
    """An open review as the context shows it."""

    id: MemoryId
    session: int
    items: tuple[ReviewPromptItem, ...]


def review_prompt(
    review: BeliefReview,
    nodes: Sequence[Node],
    now: datetime,
    belief: BeliefConfig = DEFAULT_BELIEF,
) -> ReviewPrompt | None:
    """The review with its beliefs' current content and confidence; beliefs gone since (forgotten,
    refuted) drop out, and a review with none left is not shown."""
    by_id = {n.id: n for n in nodes}
    items = tuple(
        ReviewPromptItem(
            memory_id=item.memory_id,
            content=by_id[item.memory_id].content,
            confidence=round(effective_confidence(by_id[item.memory_id].belief, now, belief), 4),
            side=item.side,
        )
        for item in review.items
        if item.memory_id in by_id
    )
    if not items:
        return None
    return ReviewPrompt(id=review.id, session=review.session, items=items)


# --- answers -----------------------------------------------------------------------------------


class ReviewVerdict(StrEnum):
    CONFIRM = "confirm"
    WRONG = "wrong"


class AnswerProblem(StrEnum):
    NOT_IN_REVIEW = "memory_not_in_review"
    ANSWERED_TWICE = "memory_answered_twice"
    ALREADY_ANSWERED = "review_already_answered"


class AnswerCheck(_Value):
    """What to do with a set of answers: apply them, nothing (a replay), or refuse (why, which)."""

    problem: AnswerProblem | None = None
    memory_ids: tuple[str, ...] = ()
    replay: bool = False


def check_answers(
    review: BeliefReview,
    answers: Sequence[tuple[str, ReviewVerdict]],
    previous: Mapping[str, ReviewVerdict] | None,
) -> AnswerCheck:
    """Answers must name beliefs of the review, each once. A review answered before accepts only
    the same answers again (a client's retry): different ones conflict."""
    in_review = set(review.memory_ids)
    unknown = tuple(sorted({m for m, _ in answers if m not in in_review}))
    if unknown:
        return AnswerCheck(problem=AnswerProblem.NOT_IN_REVIEW, memory_ids=unknown)
    counts = Counter(m for m, _ in answers)
    twice = tuple(sorted(m for m, n in counts.items() if n > 1))
    if twice:
        return AnswerCheck(problem=AnswerProblem.ANSWERED_TWICE, memory_ids=twice)
    if previous is not None:
        if dict(answers) == dict(previous):
            return AnswerCheck(replay=True)
        return AnswerCheck(problem=AnswerProblem.ALREADY_ANSWERED)
    return AnswerCheck()


def answer_evidence_id(review: str, memory_id: str) -> str:
    return f"review:{review}:{memory_id}"


def answered_belief(
    node: Node,
    review: str,
    verdict: ReviewVerdict,
    now: datetime,
    *,
    timeline: ActivityTimeline | None = None,
    belief: BeliefConfig = DEFAULT_BELIEF,
) -> Node | None:
    """The memory after the user's answer, or None when this answer was recorded before.

    Confirm: self-report support (`update_belief`): the belief is no longer dormant and a weak one
    rises towards the self-report ceiling. Wrong: self-report contradiction, then what marking a
    memory wrong does (`apply_correction`): confidence 0; the caller refutes it (out of context).
    """
    evidence = Evidence(
        id=answer_evidence_id(review, node.id),
        stream=EvidenceStream.SELF_REPORT,
        supports=verdict is ReviewVerdict.CONFIRM,
        at=now,
    )
    outcome = update_belief(node.belief, evidence, belief)
    if not outcome.counted:
        return None
    updated = node.model_copy(update={"belief": outcome.belief})
    if verdict is ReviewVerdict.CONFIRM:
        return updated
    return apply_correction(updated, MemoryCorrection(wrong=True), now, timeline=timeline)


# What the divergence tension's answer side says (`Tension.b_said`): the answer, not a memory.
ANSWER_SAID = {
    ReviewVerdict.CONFIRM: "Confirmed in the session review",
    ReviewVerdict.WRONG: "Called wrong in the session review",
}


def review_divergence(
    before: Node, after: Node, review: str, verdict: ReviewVerdict, now: datetime
) -> Tension | None:
    """The divergence tension this answer opens, or None: the answer made the memory's two
    evidence streams point opposite ways (`EvidenceStreams.diverge`: self-report balance and
    observed balance of opposite signs), which they did not before it. Side `a` is the memory
    as the user's messages showed it; side `b` is the answer, under its evidence id."""
    if EvidenceStreams.of(before.belief).diverge():
        return None
    if not EvidenceStreams.of(after.belief).diverge():
        return None
    answer = answer_evidence_id(review, before.id)
    return Tension(
        id=tension_id(before.user_id, before.id, answer),
        node_a=before.id,
        node_b=answer,
        detected_at=now,
        a_said=before.content,
        b_said=ANSWER_SAID[verdict],
        kind=TensionKind.DIVERGENCE,
    )


class AnswerWrites(_Value):
    """What one set of review answers writes: the memories they moved and the divergence
    tensions they opened."""

    nodes: tuple[Node, ...] = ()
    divergences: tuple[Tension, ...] = ()


def plan_answers(
    nodes: Iterable[Node],
    review: str,
    verdicts: Mapping[str, ReviewVerdict],
    now: datetime,
    *,
    timeline: ActivityTimeline | None = None,
    belief: BeliefConfig = DEFAULT_BELIEF,
) -> AnswerWrites:
    """Each answered memory after its answer (`answered_belief`; one answered before changes
    nothing) and the divergences the answers open (`review_divergence`)."""
    changed: list[Node] = []
    divergences: list[Tension] = []
    for node in nodes:
        verdict = verdicts[node.id]
        updated = answered_belief(node, review, verdict, now, timeline=timeline, belief=belief)
        if updated is None:
            continue
        changed.append(updated)
        if (tension := review_divergence(node, updated, review, verdict, now)) is not None:
            divergences.append(tension)
    return AnswerWrites(nodes=tuple(changed), divergences=tuple(divergences))
