"""Session reviews (`:BeliefReview`, issue 16) and what the context asks besides memories: the
open review and the sleep's prepared open-loop questions, in one query.

A review holds ids only (`memory_ids`, with `sides` beside them): contents are read from the
memories when a context is built, so forgetting or deleting a memory removes it from the review.
Status: `open` (the context asks it), `answered`, `superseded` (a later review opened first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from selfimprint.adapters.neo4j.records import node_from_record, node_projection, utc
from selfimprint.domain.context import PreparedQuestion
from selfimprint.domain.models import Node, NodeType
from selfimprint.domain.session_review import BeliefReview, ReviewItem, ReviewSide, ReviewVerdict
from selfimprint.domain.users import UserScope
from selfimprint.ports import ContextPrompts, StoredReview

OPEN, ANSWERED, SUPERSEDED = "open", "answered", "superseded"
# Refuted and archived memories are never asked about.
_LIVE = "coalesce({v}.hypothesis_status, 'active') IN ['active', 'confirmed']"


_CANDIDATES = f"""
MATCH (n:Memory {{scope: $scope}})
WHERE n.type IN $types AND NOT coalesce(n.is_pinned, false) AND {_LIVE.format(v="n")}
RETURN {node_projection("n")} AS node
"""

_EXISTS = """
OPTIONAL MATCH (r:BeliefReview {scope: $scope, id: $id})
RETURN r IS NOT NULL AS found
"""

# A newer review replaces an open older one: the user is asked about the current beliefs.
_OPEN = """
OPTIONAL MATCH (old:BeliefReview {scope: $scope, status: 'open'})
WHERE old.session < $session
SET old.status = 'superseded'
WITH count(old) AS superseded
CREATE (r:BeliefReview {scope: $scope, id: $id})
SET r.tenant_id = $tenant_id, r.session = $session, r.memory_ids = $memory_ids,
    r.sides = $sides, r.created_at = $created_at, r.status = 'open'
RETURN superseded
"""

_GET = """
MATCH (r:BeliefReview {scope: $scope, id: $id})
RETURN r {.id, .session, .memory_ids, .sides, .created_at, .status, .answered_ids, .verdicts}
       AS review
"""

_ANSWER = """
MATCH (r:BeliefReview {scope: $scope, id: $id})
WHERE r.status <> 'answered'
SET r.status = 'answered', r.answered_ids = $ids, r.verdicts = $verdicts, r.answered_at = $at
RETURN count(r) AS answered
"""

# The context's one extra query: an index seek on (scope, status) for the review, the review's
# memories by (scope, id), the questions by the (scope, id) constraint's scope prefix, the
# newest monthly summary the user has not been shown by the (scope, month) index. A review is
# asked only within its offer window (ContextConfig.review_offer_window); after it, it can still
# be answered through the API. A prepared
# question's time has come while its anchor is an open loop or inside its trigger's window
# (priority_from/until, set by the scheduled trigger), and a sleep prepared it recently.
_PROMPTS = f"""
CALL () {{
  OPTIONAL MATCH (r:BeliefReview {{scope: $scope, status: 'open'}})
  WHERE r.created_at >= $review_since
  WITH r ORDER BY r.session DESC LIMIT 1
  RETURN r {{.id, .session, .memory_ids, .sides, .created_at}} AS review
}}
CALL (review) {{
  UNWIND coalesce(review.memory_ids, []) AS id
  MATCH (m:Memory {{scope: $scope, id: id}})
  WHERE {_LIVE.format(v="m")}
  RETURN collect({node_projection("m")}) AS nodes
}}
CALL () {{
  MATCH (q:OpenLoopQuestion {{scope: $scope}})
  WHERE q.id IS NOT NULL AND q.prepared_at >= $since
  MATCH (n:Memory {{scope: $scope, id: q.node_id}})
  WHERE n.type = 'open_loop' OR (n.priority_from <= $now AND $now < n.priority_until)
  WITH q ORDER BY q.prepared_at DESC, q.id LIMIT $limit
  RETURN collect(q {{.id, .question, .node_id}}) AS questions
}}
CALL () {{
  OPTIONAL MATCH (s:MonthlySummary {{scope: $scope}})
  WHERE s.seen_at IS NULL AND s.status = 'produced'
  WITH s ORDER BY s.month DESC LIMIT 1
  RETURN s.month AS summary_month
}}
RETURN review, nodes, questions, summary_month
"""


def _review(raw: Mapping[str, Any]) -> BeliefReview:
    created = raw["created_at"]
    return BeliefReview(
        id=raw["id"],
        session=raw["session"],
        items=tuple(
            ReviewItem(memory_id=m, side=ReviewSide(s))
            for m, s in zip(raw["memory_ids"], raw["sides"], strict=True)
        ),
        created_at=created.to_native() if hasattr(created, "to_native") else created,
    )


async def candidates(
    tx: AsyncManagedTransaction, scope: UserScope, types: Sequence[NodeType]
) -> list[Node]:
    """The user's live, unpinned memories of these types (the domain picks among them)."""
    result = await tx.run(_CANDIDATES, scope=scope.key, types=[t.value for t in types])
    return [node_from_record(r["node"]) async for r in result]


async def open_review(tx: AsyncManagedTransaction, scope: UserScope, review: BeliefReview) -> bool:
    """Store the review unless one with its id (its session) exists; True when created."""
    found = await (await tx.run(_EXISTS, scope=scope.key, id=review.id)).single(strict=True)
    if found["found"]:
        return False
    await tx.run(
        _OPEN,
        scope=scope.key,
        tenant_id=scope.tenant_id,
        id=review.id,
        session=review.session,
        memory_ids=[i.memory_id for i in review.items],
        sides=[i.side.value for i in review.items],
        created_at=utc(review.created_at),
    )
    return True


async def get_review(
    tx: AsyncManagedTransaction, scope: UserScope, review_id: str
) -> StoredReview | None:
    record = await (await tx.run(_GET, scope=scope.key, id=review_id)).single()
    if record is None:
        return None
    raw = record["review"]
    answers = None
    if raw.get("answered_ids") is not None:
        answers = {
            m: ReviewVerdict(v) for m, v in zip(raw["answered_ids"], raw["verdicts"], strict=True)
        }
    return StoredReview(review=_review(raw), status=raw["status"], answers=answers)


async def record_answers(
    tx: AsyncManagedTransaction,
    scope: UserScope,
    review_id: str,
    answers: Mapping[str, ReviewVerdict],
    at: datetime,
) -> bool:
    """Mark the review answered with these answers; False when it already was (or is gone)."""
    result = await tx.run(
        _ANSWER,
        scope=scope.key,
        id=review_id,
        ids=list(answers),
        verdicts=[v.value for v in answers.values()],
        at=utc(at),
    )
    return bool((await result.single(strict=True))["answered"])


async def context_prompts(
    tx: AsyncManagedTransaction,
    scope: UserScope,
    now: datetime,
    questions_since: datetime,
    question_limit: int,
    review_since: datetime,
) -> ContextPrompts:
    result = await tx.run(
        _PROMPTS,
        scope=scope.key,
        now=utc(now),
        since=utc(questions_since),
        limit=question_limit,
        review_since=utc(review_since),
    )
    record = await result.single(strict=True)
    raw = record["review"]
    review = _review(raw) if raw is not None and raw.get("id") is not None else None
    nodes = {n.id: n for n in (node_from_record(r) for r in record["nodes"])}
    ordered = tuple(nodes[i] for i in (review.memory_ids if review else ()) if i in nodes)
    return ContextPrompts(
        review=review,
        review_nodes=ordered,
        questions=tuple(PreparedQuestion.model_validate(q) for q in record["questions"]),
        summary_month=record["summary_month"],
    )
