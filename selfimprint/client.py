"""A small typed Python client for the SelfImprint HTTP API (what an app backend would use).

async with SelfImprintClient("http://127.0.0.1:8000", api_key) as si:
    await si.put_user("alice", UserProfile(plan=Plan.PAID, time_zone="Europe/Berlin"))
    await si.post_messages("alice", [Message(...)])
    ctx = await si.context("alice", "how did the interview go?")
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Literal

import httpx
from pydantic import BaseModel

from selfimprint.domain.messages import Message
from selfimprint.domain.portrait import PortraitEntry, parse_portrait
from selfimprint.domain.users import UserProfile


class ApiError(Exception):
    """A non-2xx answer: the HTTP status and the API's stable error code."""

    def __init__(self, status: int, code: str, message: str, details: Any = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details


class Extraction(BaseModel):
    """How many of the user's messages wait for extraction (read your writes)."""

    pending: int
    oldest_pending_sent_at: datetime | None = None


class Accepted(BaseModel):
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
    id: str
    type: str
    content: str
    score: float
    sources: list[str]
    # Faded and brought back by the message's words: reinforced at the user's next sleep.
    recalled: bool = False


class Context(BaseModel):
    context: str
    language: str
    mode: str
    fallback_reason: str | None = None
    tokens: int
    memories: list[UsedMemory]
    collective_hints: list[str]
    open_loop_questions: list[str]
    # The session review (every 10th session): {id, session, items: [{memory_id, content,
    # confidence, side}]}; answer it with `answer_review`.
    review: dict[str, Any] | None = None
    tier: str = "hot"
    rehydrating: bool = False
    extraction: Extraction
    # With `after_message`: the user's messages not yet extracted that `context` shows.
    pending_messages: list[PendingMessage] = []
    timings_ms: dict[str, float]


class SelfImprintClient:
    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout_s: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,  # tests: the app in process (ASGI)
    ) -> None:
        self._http = httpx.AsyncClient(
            base_url=base_url.rstrip("/"),
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=timeout_s,
            transport=transport,
        )

    async def __aenter__(self) -> SelfImprintClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        await self._http.aclose()

    async def request(self, method: str, path: str, **kwargs: Any) -> Any:
        answer = _checked(await self._http.request(method, path, **kwargs))
        return answer.json() if answer.content else None

    async def portrait(self, user_id: str) -> str:
        """What the system believes about the user, as the Markdown the user is shown."""
        return _checked(await self._http.get(f"/v1/users/{user_id}/portrait")).text

    async def portrait_data(
        self, user_id: str, *, offset: int = 0, limit: int = 200
    ) -> dict[str, Any]:
        """The portrait as data (`Accept: application/json`): `memories` with their ids (to
        correct or delete one), `tensions` and `next_offset`."""
        result: dict[str, Any] = await self.request(
            "GET",
            f"/v1/users/{user_id}/portrait",
            params={"offset": offset, "limit": limit},
            headers={"accept": "application/json"},
        )
        return result

    async def portrait_entries(self, user_id: str) -> tuple[PortraitEntry, ...]:
        """The portrait's beliefs, parsed: title, content, confidence and dates per entry."""
        return parse_portrait(await self.portrait(user_id))

    async def put_user(self, user_id: str, profile: UserProfile) -> dict[str, Any]:
        result: dict[str, Any] = await self.request(
            "PUT", f"/v1/users/{user_id}", json=profile.model_dump(mode="json")
        )
        return result

    async def post_messages(self, user_id: str, messages: Sequence[Message]) -> Accepted:
        body = {"messages": [m.model_dump(mode="json") for m in messages]}
        return Accepted.model_validate(
            await self.request("POST", f"/v1/users/{user_id}/messages", json=body)
        )

    async def context(
        self,
        user_id: str,
        message: str,
        *,
        budget_tokens: int = 400,
        mode: Literal["fast", "prose"] = "fast",
        after_message: str | None = None,
    ) -> Context:
        """`after_message`: the id of the last message posted for the user; the context then
        includes what of the user's messages is not yet extracted (read your writes)."""
        body: dict[str, Any] = {"message": message, "budget_tokens": budget_tokens, "mode": mode}
        if after_message is not None:
            body["after_message"] = after_message
        return Context.model_validate(
            await self.request("POST", f"/v1/users/{user_id}/context", json=body)
        )

    async def memories(self, user_id: str, **filters: Any) -> list[dict[str, Any]]:
        params = {k: v for k, v in filters.items() if v is not None}
        result: dict[str, Any] = await self.request(
            "GET", f"/v1/users/{user_id}/memories", params=params
        )
        memories: list[dict[str, Any]] = result["memories"]
        return memories

    async def memory(self, user_id: str, memory_id: str) -> dict[str, Any]:
        result: dict[str, Any] = await self.request(
            "GET", f"/v1/users/{user_id}/memories/{memory_id}"
        )
        return result

    async def patch_memory(self, user_id: str, memory_id: str, **change: Any) -> dict[str, Any]:
        result: dict[str, Any] = await self.request(
            "PATCH", f"/v1/users/{user_id}/memories/{memory_id}", json=change
        )
        return result

    async def delete_memory(self, user_id: str, memory_id: str) -> None:
        """Delete this one memory (and its edges, tensions, derived results); 204, also again."""
        await self.request("DELETE", f"/v1/users/{user_id}/memories/{memory_id}")

    async def tensions(self, user_id: str, status: str | None = None) -> list[dict[str, Any]]:
        """The user's tensions (`status`: unresolved | resolved | None for all), oldest first."""
        params = {"status": status} if status else {}
        result: dict[str, Any] = await self.request(
            "GET", f"/v1/users/{user_id}/tensions", params=params
        )
        tensions: list[dict[str, Any]] = result["tensions"]
        return tensions

    async def resolve_tension(
        self, user_id: str, tension_id: str, keep: Literal["a", "b", "both"], note: str = ""
    ) -> dict[str, Any]:
        """Keep side a (newer), b (older) or both; the side not kept is marked wrong."""
        result: dict[str, Any] = await self.request(
            "POST",
            f"/v1/users/{user_id}/tensions/{tension_id}/resolve",
            json={"keep": keep, "note": note},
        )
        return result

    async def answer_review(
        self,
        user_id: str,
        review_id: str,
        answers: Mapping[str, Literal["confirm", "wrong"]],
    ) -> dict[str, Any]:
        """The user's verdict on beliefs of a session review (memory id -> confirm | wrong); the
        review then leaves the context. Sending the same answers again is a no-op."""
        result: dict[str, Any] = await self.request(
            "POST",
            f"/v1/users/{user_id}/reviews/{review_id}",
            json={"answers": [{"memory_id": m, "verdict": v} for m, v in answers.items()]},
        )
        return result

    async def forget(self, user_id: str, topic: str, *, dry_run: bool = True) -> dict[str, Any]:
        result: dict[str, Any] = await self.request(
            "POST", f"/v1/users/{user_id}/forget", json={"topic": topic, "dry_run": dry_run}
        )
        return result

    async def export(self, user_id: str) -> dict[str, Any]:
        result: dict[str, Any] = await self.request("GET", f"/v1/users/{user_id}/export")
        return result

    async def summaries(self, user_id: str, *, limit: int = 12) -> list[dict[str, Any]]:
        """Monthly summaries, newest first (each `{"summary": ..., "seen_at": ...}`)."""
        result: dict[str, Any] = await self.request(
            "GET", f"/v1/users/{user_id}/summaries", params={"limit": limit}
        )
        found: list[dict[str, Any]] = result["summaries"]
        return found

    async def summary(self, user_id: str, month: str) -> dict[str, Any]:
        """One month's summary (YYYY-MM); ApiError `summary_not_found` if there is none."""
        result: dict[str, Any] = await self.request("GET", f"/v1/users/{user_id}/summaries/{month}")
        return result

    async def get_user(self, user_id: str) -> dict[str, Any]:
        """The user's profile and extraction state (pending count, oldest pending)."""
        result: dict[str, Any] = await self.request("GET", f"/v1/users/{user_id}")
        return result

    async def delete_user(self, user_id: str) -> dict[str, Any]:
        result: dict[str, Any] = await self.request("DELETE", f"/v1/users/{user_id}")
        return result

    async def operation(self, operation_id: str) -> dict[str, Any]:
        """A long operation's status (a user's deletion): running, completed with its result."""
        result: dict[str, Any] = await self.request("GET", f"/v1/operations/{operation_id}")
        return result

    async def feedback(self, user_id: str, feedback_id: str) -> dict[str, Any]:
        """The user said the assistant no longer understands them (counted once per id)."""
        result: dict[str, Any] = await self.request(
            "POST", f"/v1/users/{user_id}/feedback", json={"id": feedback_id}
        )
        return result

    async def context_feedback(
        self, user_id: str, feedback_id: str, message: str, *, memories_used: int
    ) -> dict[str, Any]:
        """The context served for `message` did not help (CollectiveImprint, spec §3.7);
        `memories_used` is `len(memories)` of that context's response."""
        result: dict[str, Any] = await self.request(
            "POST",
            f"/v1/users/{user_id}/context-feedback",
            json={
                "id": feedback_id,
                "message": message,
                "helpful": False,
                "memories_used": memories_used,
            },
        )
        return result


def _checked(answer: httpx.Response) -> httpx.Response:
    """The answer, or the API's error (machine-readable code) raised as ApiError."""
    if answer.status_code >= 400:
        try:
            error = answer.json()["error"]
        except (ValueError, KeyError, TypeError):
            error = {"code": "http_error", "message": answer.text[:200]}
        raise ApiError(answer.status_code, error["code"], error["message"], error.get("details"))
    return answer
