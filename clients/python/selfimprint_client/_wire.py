"""What both clients share and what does no I/O: URLs from route templates, request bodies,
answers decoded, and which failures are worth another attempt."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from selfimprint_client.errors import error_of

# What a client of this package may send: its own models, any pydantic model with the same
# fields (the server's own `Message`, say), or a plain mapping.
Payload = BaseModel | Mapping[str, Any]
Params = Mapping[str, str | int | float | bool | None]
# Methods whose second sending changes nothing the first did not (RFC 9110 idempotent).
IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "PATCH", "DELETE"})
_PARAMETER = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Retries:
    """Further attempts of a retry-safe call after a network error or a 503, with a wait that
    starts at `backoff_s` and doubles."""

    retries: int = 2
    backoff_s: float = 0.2


def path_of(template: str, parameters: Mapping[str, str]) -> str:
    """`/v1/users/{user_id}` with each parameter filled in, percent-encoded."""
    return _PARAMETER.sub(lambda m: quote(parameters[m.group(1)], safe=""), template)


def body_of(payload: Any) -> Any:
    """JSON-ready: pydantic models dumped as `model_dump(mode="json")` would, datetimes as
    ISO 8601, mappings and sequences recursively."""
    return to_jsonable_python(payload)


def params_of(params: Params | None) -> dict[str, str | int | float | bool] | None:
    """The query parameters that have a value; None when none has (httpx replaces a query
    string already in the path with any `params` given, even empty ones)."""
    given = {k: v for k, v in (params or {}).items() if v is not None}
    return given or None


def headers_of(accept: str, headers: Mapping[str, str] | None) -> httpx.Headers:
    """`accept`, unless `headers` name another (header names are case-insensitive)."""
    merged = httpx.Headers({"accept": accept})
    merged.update(headers or {})
    return merged


def transient(answer: httpx.Response) -> bool:
    """An answer another attempt may change: the API's 503 (a store or the orchestrator down)."""
    return answer.status_code == 503


def decoded(answer: httpx.Response) -> Any:
    """The answer's body: the text of a text answer, None when empty (204), else the JSON; an
    answer >= 400 raises its `SelfImprintError`."""
    if answer.status_code >= 400:
        raise error_of(answer)
    if answer.headers.get("content-type", "").startswith("text/"):
        return answer.text  # an empty portrait is "", not None
    if not answer.content:
        return None
    return answer.json()
