"""Python client for the SelfImprint memory API: `SelfImprint` (blocking) and `AsyncSelfImprint`,
one method per route, typed errors, retries where a call is safe to send again.

    with SelfImprint("http://127.0.0.1:8000", api_key) as memory:
        memory.post_messages("alice", [Message(id="m42", role="user", text=text, sent_at=now)])
        ctx = memory.context("alice", text, after_message="m42")
"""

from selfimprint_client._async_client import AsyncSelfImprint
from selfimprint_client._sync_client import SelfImprint
from selfimprint_client.errors import (
    ConflictError,
    InvalidRequestError,
    NotFoundError,
    PayloadTooLargeError,
    SelfImprintError,
    UnauthorizedError,
    UnavailableError,
)
from selfimprint_client.models import (
    Accepted,
    Context,
    ContextMode,
    ErrorBody,
    ErrorDetail,
    Extraction,
    Keep,
    Message,
    PendingMessage,
    Plan,
    Review,
    ReviewItem,
    Role,
    UsedMemory,
    UserProfile,
    Verdict,
)

__all__ = [
    "Accepted",
    "AsyncSelfImprint",
    "ConflictError",
    "Context",
    "ContextMode",
    "ErrorBody",
    "ErrorDetail",
    "Extraction",
    "InvalidRequestError",
    "Keep",
    "Message",
    "NotFoundError",
    "PayloadTooLargeError",
    "PendingMessage",
    "Plan",
    "Review",
    "ReviewItem",
    "Role",
    "SelfImprint",
    "SelfImprintError",
    "UnauthorizedError",
    "UnavailableError",
    "UsedMemory",
    "UserProfile",
    "Verdict",
]
