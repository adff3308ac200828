"""Context feedback: the client says the context it got for a request did not help (spec §3.7).

Kept off the user's lifecycle workflow: the episode is reduced to its pattern at once and
counted in CollectiveImprint (`selfimprint.service.collective`); nothing of the user is stored.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from api.auth import Caller
from api.errors import EVERY_ROUTE, UNKNOWN_USER, WITH_BODY, documented
from api.routes.common import UserId, known_user, resources_of, scope_of
from selfimprint.domain.messages import MessageText
from selfimprint.domain.models import MemoryId
from selfimprint.service.collective import record_unhelpful_context

router = APIRouter(prefix="/v1/users", tags=["collective"])

# A context holds at most the retrieval's top K memories (spec §3.4: K=20); project choice: a
# generous bound that still refuses nonsense.
MAX_MEMORIES_USED = 1000


class ContextFeedback(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: MemoryId = Field(description="The client's id of this feedback (retries reuse it).")
    message: MessageText = Field(description="The request the context was built for.")
    helpful: bool = Field(description="false: the context did not help (only these count).")
    memories_used: Annotated[int, Field(ge=0, le=MAX_MEMORIES_USED)] = Field(
        description="How many memories that context held (`len(memories)` of its response)."
    )


class ContextFeedbackAccepted(BaseModel):
    id: str
    recorded: bool = Field(description="Whether it counted (only unhelpful contexts do).")


@router.post(
    "/{user_id}/context-feedback",
    status_code=202,
    response_model=ContextFeedbackAccepted,
    responses=documented(*EVERY_ROUTE, *WITH_BODY, UNKNOWN_USER),
)
async def post_context_feedback(
    user_id: UserId, feedback: ContextFeedback, who: Caller, request: Request
) -> ContextFeedbackAccepted:
    """Flag an unhelpful context as a CollectiveImprint episode (spec §3.7; idempotent):
    `{id, message, helpful, memories_used}`.

    The context served for `message` (holding `memories_used` memories: `len(memories)` of its
    answer) did not help (`helpful: false`). The request is reduced to enumerated features
    (language, mood, request class, empty context or not) and the user counted once per pattern
    under a keyed pseudonym; nothing of the user (message, id, feedback id) is stored.
    `202 {id, recorded}`; a repeat, by any id, counts the user once; `helpful: true` records
    nothing. Once k = max(`collective_k_floor`, 0.1% of the tenant's users active in 30 days)
    distinct users produced a pattern, its fixed hint is in `collective_hints` of the tenant's
    matching context requests."""
    resources = resources_of(request)
    scope = scope_of(who, user_id)
    await known_user(resources, scope)
    if feedback.helpful:
        return ContextFeedbackAccepted(id=feedback.id, recorded=False)
    await record_unhelpful_context(resources, scope, feedback.message, feedback.memories_used)
    return ContextFeedbackAccepted(id=feedback.id, recorded=True)
