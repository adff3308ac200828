"""Every non-2xx answer raises a `SelfImprintError`: the HTTP status, the API's stable `code`
(branch on it), a message for people and `details`. A subclass per status the API answers, so a
caller can catch `NotFoundError` without reading the status.

Network failures (connection refused, timeouts) are not answers: they raise httpx's own
`httpx.TransportError` once the retries of a retry-safe call are spent.
"""

from __future__ import annotations

from typing import Any

import httpx
from pydantic import ValidationError

from selfimprint_client.models import ErrorBody


class SelfImprintError(Exception):
    """A non-2xx answer: the HTTP status and the API's stable, machine-readable error code."""

    def __init__(self, status: int, code: str, message: str, details: Any = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details


class UnauthorizedError(SelfImprintError):
    """401 `unauthorized`: a missing, unknown or revoked API key."""


class NotFoundError(SelfImprintError):
    """404: `unknown_user`, `unknown_memory`, `unknown_tension`, `summary_not_found`, ..."""


class ConflictError(SelfImprintError):
    """409: `message_conflict`, `graph_archived`, `tension_already_resolved`, ..."""


class PayloadTooLargeError(SelfImprintError):
    """413 `payload_too_large`: a body over the API's limit (2 MiB)."""


class InvalidRequestError(SelfImprintError):
    """422: `invalid_request` (`details` lists the fields), `unknown_message`, ..."""


class UnavailableError(SelfImprintError):
    """503: `store_unavailable`, `orchestrator_unavailable`; retry-safe calls were retried."""


BY_STATUS: dict[int, type[SelfImprintError]] = {
    401: UnauthorizedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: InvalidRequestError,
    503: UnavailableError,
}


def error_of(answer: httpx.Response) -> SelfImprintError:
    """The error an answer of status >= 400 stands for."""
    kind = BY_STATUS.get(answer.status_code, SelfImprintError)
    try:
        error = ErrorBody.model_validate_json(answer.content).error
    except ValidationError:
        # Not the API's answer (a proxy's page): keep what there is.
        return kind(answer.status_code, "http_error", answer.text[:200])
    return kind(answer.status_code, error.code, error.message, error.details)
