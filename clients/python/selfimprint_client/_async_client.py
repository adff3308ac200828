"""The asynchronous client: one method per route of the API's `/v1`.

`_async_client.py` is the one source of both clients: `_sync_client.py` (`SelfImprint`) is
generated from it by `clients/python/scripts/generate_sync_client.py`, and a unit test fails when
that copy is stale. Edit the async one, so that dropping `async`/`await` leaves correct blocking
code, then run the script.
"""

from __future__ import annotations

from asyncio import sleep
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, Self

import httpx

from selfimprint_client._wire import (
    IDEMPOTENT,
    Params,
    Payload,
    Retries,
    body_of,
    decoded,
    headers_of,
    params_of,
    path_of,
    transient,
)
from selfimprint_client.models import (
    Accepted,
    Context,
    ContextMode,
    Keep,
    UserProfile,
    Verdict,
)


class AsyncSelfImprint:
    """The SelfImprint API for one tenant (its API key).

    Every error answer raises a `SelfImprintError` subclass. Retry-safe calls (reads, PUT, PATCH,
    DELETE, messages and feedback by id, context) are sent again after a network error or a 503,
    `retries` times with waits from `backoff_s` doubling; `forget` never is.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout_s: float = 30.0,
        retries: int = 2,
        backoff_s: float = 0.2,
        transport: httpx.AsyncBaseTransport | None = None,  # tests, proxies, an app in process
    ) -> None:
        self._retries = Retries(retries, backoff_s)
        self._http = httpx.AsyncClient(
            base_url=base_url.rstrip("/"),
            headers={"authorization": f"Bearer {api_key}"},
            timeout=timeout_s,
            transport=transport,
        )

    async def __aenter__(self) -> Self:
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

    # --- users ---------------------------------------------------------------------------------

    async def put_user(self, user_id: str, profile: Payload | None = None) -> dict[str, Any]:
        """Create the user or replace its profile (idempotent): `{user_id, profile, created,
        extraction}`."""
        body = UserProfile() if profile is None else profile
        result: dict[str, Any] = await self._call(
            "PUT", "/v1/users/{user_id}", path={"user_id": user_id}, body=body, retry_safe=True
        )
        return result

    async def get_user(self, user_id: str) -> dict[str, Any]:
        """The profile and the extraction state (`extraction.pending`, oldest pending)."""
        result: dict[str, Any] = await self._call(
            "GET", "/v1/users/{user_id}", path={"user_id": user_id}, retry_safe=True
        )
        return result

    async def feedback(self, user_id: str, feedback_id: str) -> dict[str, Any]:
        """The user says the assistant no longer understands them (counted once per id)."""
        result: dict[str, Any] = await self._call(
            "POST",
            "/v1/users/{user_id}/feedback",
            path={"user_id": user_id},
            body={"id": feedback_id},
            retry_safe=True,
        )
        return result

    # --- messages and context ------------------------------------------------------------------

    async def post_messages(self, user_id: str, messages: Sequence[Payload]) -> Accepted:
        """Store up to 100 messages durably. Idempotent on their ids, so retried: an attempt
        whose answer was lost makes the retry count them as `duplicates`."""
        result = await self._call(
            "POST",
            "/v1/users/{user_id}/messages",
            path={"user_id": user_id},
            body={"messages": list(messages)},
            retry_safe=True,
        )
        return Accepted.model_validate(result)

    async def context(
        self,
        user_id: str,
        message: str,
        *,
        budget_tokens: int = 400,
        mode: ContextMode = "fast",
        after_message: str | None = None,
    ) -> Context:
        """The context for the reply to `message`. `after_message`: the id of the last message
        posted for the user; the context then includes what of the user's messages is not yet
        extracted (read your writes)."""
        body: dict[str, Any] = {"message": message, "budget_tokens": budget_tokens, "mode": mode}
        if after_message is not None:
            body["after_message"] = after_message
        result = await self._call(
            "POST",
            "/v1/users/{user_id}/context",
            path={"user_id": user_id},
            body=body,
            retry_safe=True,
        )
        return Context.model_validate(result)

    async def context_feedback(
        self,
        user_id: str,
        feedback_id: str,
        message: str,
        *,
        memories_used: int,
        helpful: bool = False,
    ) -> dict[str, Any]:
        """The context served for `message` did not help (CollectiveImprint); `memories_used` is
        `len(memories)` of that context. Idempotent: `{id, recorded}`."""
        result: dict[str, Any] = await self._call(
            "POST",
            "/v1/users/{user_id}/context-feedback",
            path={"user_id": user_id},
            body={
                "id": feedback_id,
                "message": message,
                "helpful": helpful,
                "memories_used": memories_used,
            },
            retry_safe=True,
        )
        return result

    # --- what is believed, and the user's control over it --------------------------------------

    async def memories(
        self,
        user_id: str,
        *,
        type: str | None = None,
        status: str | None = None,
        archived: bool | None = None,
        offset: int | None = None,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """The user's memories (one page: `offset`, `limit`), filtered by type and status."""
        params: Params = {
            "type": type,
            "status": status,
            "archived": archived,
            "offset": offset,
            "limit": limit,
        }
        result = await self._call(
            "GET",
            "/v1/users/{user_id}/memories",
            path={"user_id": user_id},
            params=params,
            retry_safe=True,
        )
        found: list[dict[str, Any]] = result["memories"]
        return found

    async def memory(self, user_id: str, memory_id: str) -> dict[str, Any]:
        """One memory with why it exists: `{memory, sources, edges}`."""
        result: dict[str, Any] = await self._call(
            "GET",
            "/v1/users/{user_id}/memories/{memory_id}",
            path={"user_id": user_id, "memory_id": memory_id},
            retry_safe=True,
        )
        return result

    async def patch_memory(
        self,
        user_id: str,
        memory_id: str,
        *,
        content: str | None = None,
        pinned: bool | None = None,
        wrong: bool | None = None,
    ) -> dict[str, Any]:
        """Correct a memory: new `content`, `pinned` true or false, or `wrong=True` (refuted, out
        of every context). Naming none is `422 empty_correction`."""
        change = {"content": content, "pinned": pinned, "wrong": wrong}
        result: dict[str, Any] = await self._call(
            "PATCH",
            "/v1/users/{user_id}/memories/{memory_id}",
            path={"user_id": user_id, "memory_id": memory_id},
            body={k: v for k, v in change.items() if v is not None},
            retry_safe=True,
        )
        return result

    async def delete_memory(self, user_id: str, memory_id: str) -> None:
        """Delete one memory (its edges, tensions, derived results); a memory already gone
        answers the same (idempotent)."""
        await self._call(
            "DELETE",
            "/v1/users/{user_id}/memories/{memory_id}",
            path={"user_id": user_id, "memory_id": memory_id},
            retry_safe=True,
        )

    async def portrait(self, user_id: str) -> str:
        """What the system believes about the user, as the text the user is shown."""
        result: str = await self._call(
            "GET",
            "/v1/users/{user_id}/portrait",
            path={"user_id": user_id},
            accept="text/plain",
            retry_safe=True,
        )
        return result

    async def portrait_data(
        self, user_id: str, *, offset: int = 0, limit: int = 200
    ) -> dict[str, Any]:
        """The portrait as data: `memories` with their ids (to correct or delete one),
        `tensions` and `next_offset`."""
        result: dict[str, Any] = await self._call(
            "GET",
            "/v1/users/{user_id}/portrait",
            path={"user_id": user_id},
            params={"offset": offset, "limit": limit},
            accept="application/json",
            retry_safe=True,
        )
        return result

    async def answer_review(
        self, user_id: str, review_id: str, answers: Mapping[str, Verdict]
    ) -> dict[str, Any]:
        """The user's verdict on beliefs of a session review (memory id -> confirm | wrong); the
        review then leaves the context. The same answers again change nothing."""
        result: dict[str, Any] = await self._call(
            "POST",
            "/v1/users/{user_id}/reviews/{review_id}",
            path={"user_id": user_id, "review_id": review_id},
            body={"answers": [{"memory_id": m, "verdict": v} for m, v in answers.items()]},
            retry_safe=True,
        )
        return result

    async def tensions(self, user_id: str, status: str | None = None) -> list[dict[str, Any]]:
        """The user's tensions (`status`: unresolved | resolved | None for all), oldest first."""
        result = await self._call(
            "GET",
            "/v1/users/{user_id}/tensions",
            path={"user_id": user_id},
            params={"status": status},
            retry_safe=True,
        )
        found: list[dict[str, Any]] = result["tensions"]
        return found

    async def resolve_tension(
        self, user_id: str, tension_id: str, keep: Keep, note: str = ""
    ) -> dict[str, Any]:
        """Keep side a (newer), b (older) or both; the side not kept is marked wrong. The same
        answer again is answered the same."""
        result: dict[str, Any] = await self._call(
            "POST",
            "/v1/users/{user_id}/tensions/{tension_id}/resolve",
            path={"user_id": user_id, "tension_id": tension_id},
            body={"keep": keep, "note": note},
            retry_safe=True,
        )
        return result

    async def summaries(self, user_id: str, *, limit: int = 12) -> list[dict[str, Any]]:
        """Monthly summaries, newest first (each `{"summary": ..., "seen_at": ...}`)."""
        result = await self._call(
            "GET",
            "/v1/users/{user_id}/summaries",
            path={"user_id": user_id},
            params={"limit": limit},
            retry_safe=True,
        )
        found: list[dict[str, Any]] = result["summaries"]
        return found

    async def summary(self, user_id: str, month: str) -> dict[str, Any]:
        """One month's summary (`YYYY-MM`); `NotFoundError` `summary_not_found` if none."""
        result: dict[str, Any] = await self._call(
            "GET",
            "/v1/users/{user_id}/summaries/{month}",
            path={"user_id": user_id, "month": month},
            retry_safe=True,
        )
        return result

    # --- rights --------------------------------------------------------------------------------

    async def forget(
        self,
        user_id: str,
        topic: str,
        *,
        dry_run: bool = True,
        min_similarity: float | None = None,
    ) -> dict[str, Any]:
        """Forget every memory about `topic`; `dry_run` (the default) only lists what would go.
        Never retried: a second real forget would start a second workflow."""
        body: dict[str, Any] = {"topic": topic, "dry_run": dry_run}
        if min_similarity is not None:
            body["min_similarity"] = min_similarity
        result: dict[str, Any] = await self._call(
            "POST",
            "/v1/users/{user_id}/forget",
            path={"user_id": user_id},
            body=body,
            retry_safe=False,
        )
        return result

    async def export(self, user_id: str) -> dict[str, Any]:
        """The user's whole memory as one document (memories, edges, tensions, message log)."""
        result: dict[str, Any] = await self._call(
            "GET", "/v1/users/{user_id}/export", path={"user_id": user_id}, retry_safe=True
        )
        return result

    async def delete_user(self, user_id: str) -> dict[str, Any]:
        """Erase the user (idempotent): `{operation_id, status}`; follow it with `operation`."""
        result: dict[str, Any] = await self._call(
            "DELETE", "/v1/users/{user_id}", path={"user_id": user_id}, retry_safe=True
        )
        return result

    async def operation(self, operation_id: str) -> dict[str, Any]:
        """A long operation's status (a user's deletion): running, or completed with `result`."""
        result: dict[str, Any] = await self._call(
            "GET",
            "/v1/operations/{operation_id}",
            path={"operation_id": operation_id},
            retry_safe=True,
        )
        return result

    # --- transport -----------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Params | None = None,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
        retry_safe: bool | None = None,
    ) -> Any:
        """Any call by its path: the JSON answer (the text of a text answer, None when empty).
        Retried as a retry-safe call when `retry_safe`, by default for idempotent methods."""
        safe = method.upper() in IDEMPOTENT if retry_safe is None else retry_safe
        answer = await self._send(
            method, path, params, json, headers_of("application/json", headers), safe
        )
        return decoded(answer)

    async def _call(
        self,
        method: str,
        template: str,
        *,
        path: Mapping[str, str],
        params: Params | None = None,
        body: Any = None,
        accept: str = "application/json",
        retry_safe: bool,
    ) -> Any:
        """A route by its schema template (`/v1/users/{user_id}`), decoded."""
        url = path_of(template, path)
        answer = await self._send(method, url, params, body, headers_of(accept, None), retry_safe)
        return decoded(answer)

    async def _send(
        self,
        method: str,
        url: str,
        params: Params | None,
        body: Any,
        headers: httpx.Headers,
        retry_safe: bool,
    ) -> httpx.Response:
        """One call, sent again while it is retry-safe, failed transiently and within budget."""
        retries = self._retries.retries if retry_safe else 0
        wait = self._retries.backoff_s
        for attempt in range(retries + 1):
            last = attempt == retries
            try:
                answer = await self._http.request(
                    method,
                    url,
                    params=params_of(params),
                    json=None if body is None else body_of(body),
                    headers=headers,
                )
            except httpx.TransportError:
                if last:
                    raise
            else:
                if last or not transient(answer):
                    return answer
            await sleep(wait)
            wait *= 2
        raise AssertionError("unreachable: the last attempt returns or raises")
