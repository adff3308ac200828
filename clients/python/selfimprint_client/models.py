"""What the client sends and reads, as pydantic models of its own (the server's are not needed).

Requests: `Message` and `UserProfile`; any pydantic model or mapping with the same fields is sent
as well (dumped as JSON). Answers the caller reads field by field are typed (`Accepted`,
`Context`); the large documents (memories, the portrait's data, the export, reports) stay
`dict[str, Any]`, whose fields docs/api.md and the API's `/openapi.json` describe.

Answer models ignore fields they do not know, so a newer server does not break an older client.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict

Plan = Literal["free", "paid"]
Role = Literal["user", "assistant"]
ContextMode = Literal["fast", "prose"]
Verdict = Literal["confirm", "wrong"]
Keep = Literal["a", "b", "both"]


class UserProfile(BaseModel):
    """The body of `put_user`: plan, IANA time zone, preferred language, medical deployment."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    plan: Plan = "free"
    time_zone: str = "UTC"
    # ISO 639 (`en`, `ru`); the context follows the language of the latest message anyway.
    language: str | None = None
    # A medical setting: health inferences are allowed there.
    medical_deployment: bool = False


class Message(BaseModel):
    """One chat turn. `id` is the app's own (`[A-Za-z0-9_.:-]{1,128}`): posting it again is
    idempotent; `sent_at` must carry its time zone."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    role: Role
    text: str
    sent_at: AwareDatetime


class Extraction(BaseModel):
    """How many of the user's messages wait for extraction (read your writes)."""

    pending: int
    oldest_pending_sent_at: datetime | None = None


class Accepted(BaseModel):
    """The answer to `post_messages`: stored now, already stored (a retry), the backlog."""

    accepted: int
    duplicates: int
    extraction: Extraction


class PendingMessage(BaseModel):
    """A message not yet extracted, as the context shows it."""

    id: str
    sent_at: datetime
    text: str
    truncated: bool


class UsedMemory(BaseModel):
    """A memory the context used, with the id to correct or delete it."""

    id: str
    type: str
    content: str
    score: float
    sources: list[str]
    # Faded and brought back by the message's words: reinforced at the user's next sleep.
    recalled: bool = False


class ReviewItem(BaseModel):
    memory_id: str
    content: str
    confidence: float
    side: str  # highest | lowest


class Review(BaseModel):
    """The session review a context sometimes carries: answer it with `answer_review`."""

    id: str
    session: int
    items: list[ReviewItem]


class Context(BaseModel):
    """The context for the next reply (`context`, for the main model's system prompt) and what
    it was made of."""

    context: str
    language: str
    mode: str
    fallback_reason: str | None = None
    tokens: int
    memories: list[UsedMemory]
    collective_hints: list[str] = []
    open_loop_questions: list[str] = []
    review: Review | None = None
    # A month (YYYY-MM) whose summary the user has not been shown: `summary` hands it out.
    monthly_summary: str | None = None
    tier: str = "hot"
    rehydrating: bool = False
    extraction: Extraction
    # With `after_message`: the user's messages not yet extracted that `context` shows.
    pending_messages: list[PendingMessage] = []
    timings_ms: dict[str, float] = {}


class ErrorDetail(BaseModel):
    code: str
    message: str
    details: Any = None


class ErrorBody(BaseModel):
    """The body of every error answer: `{"error": {"code", "message", "details"?}}`."""

    error: ErrorDetail
