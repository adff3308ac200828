"""One OpenAI-compatible chat client for vLLM (production) and llama.cpp (local).

Structured output uses `response_format: {"type": "json_schema", ...}`: the only form both vLLM
(>= 0.12) and llama.cpp enforce. The client never retries on its own (`max_retries=0`): inside a
Temporal activity, retries belong to Temporal's retry policy, where they are visible and bounded.

Every call is measured (selfimprint_llm_* metrics, by operation: the answer model's name, e.g.
ExtractionAnswer -> extraction) and traced (a CLIENT span with the model and the token counts
the server reports in the stream's last chunk).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Sequence
from typing import Any, cast

import httpx
from openai import APIConnectionError, APIStatusError, APITimeoutError, AsyncOpenAI
from opentelemetry.trace import SpanKind
from pydantic import ValidationError

from selfimprint.config import Settings
from selfimprint.ports import AnswerT
from selfimprint.telemetry import metrics, tracing


class LLMAnswerInvalidError(ValueError):
    """The model's answer did not validate against the requested schema."""

    def __init__(self, answer_type: str, raw: str, detail: str) -> None:
        super().__init__(f"LLM answer is not a valid {answer_type}: {detail}")
        self.raw = raw


class LLMUnavailableError(ConnectionError):
    """The model server could not be reached or did not answer in time: an outage, not a bad
    answer. Callers with a fallback use it (extraction keeps its structured draft); the sleep
    fails its pass with this message."""


class OpenAICompatibleLLM:
    def __init__(self, base_url: str, model_name: str, api_key: str, timeout_s: float) -> None:
        self._base_url = base_url.rstrip("/")
        self._model_name = model_name
        self._timeout_s = timeout_s
        self._client = AsyncOpenAI(
            base_url=self._base_url, api_key=api_key, timeout=timeout_s, max_retries=0
        )

    @property
    def model_name(self) -> str:
        return self._model_name

    async def complete_json(
        self,
        messages: Sequence[dict[str, str]],
        answer_type: type[AnswerT],
        *,
        max_tokens: int = 512,
    ) -> AnswerT:
        operation = operation_of(answer_type)
        attributes: dict[str, str | int | float | bool] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": self._model_name,
            "gen_ai.request.max_tokens": max_tokens,
            "selfimprint.llm.operation": operation,
        }
        started = time.perf_counter()
        with tracing.span(f"chat {operation}", attributes, SpanKind.CLIENT) as span:
            duration = metrics.LLM_REQUEST_DURATION.labels(operation)
            # A cancelled call (the caller's own deadline) is neither timed nor an error.
            try:
                raw, usage = await self._stream(messages, answer_type, max_tokens)
            except Exception as exc:
                duration.observe(time.perf_counter() - started)
                kind = error_kind(exc)
                metrics.LLM_ERRORS.labels(operation, kind).inc()
                if kind in ("timeout", "connection"):
                    raise LLMUnavailableError(
                        f"LLM unavailable at {self._base_url} ({kind}): {exc}"
                    ) from exc
                raise
            duration.observe(time.perf_counter() - started)
            if usage is not None:  # spent whether or not the answer validates
                prompt, completion = usage
                metrics.LLM_TOKENS.labels(operation, "prompt").inc(prompt)
                metrics.LLM_TOKENS.labels(operation, "completion").inc(completion)
                span.set_attribute("gen_ai.usage.input_tokens", prompt)
                span.set_attribute("gen_ai.usage.output_tokens", completion)
            try:
                return answer_type.model_validate_json(raw)
            except ValidationError as exc:
                metrics.LLM_ERRORS.labels(operation, "invalid_answer").inc()
                raise LLMAnswerInvalidError(answer_type.__name__, raw, str(exc)) from exc

    async def _stream(
        self, messages: Sequence[dict[str, str]], answer_type: type[AnswerT], max_tokens: int
    ) -> tuple[str, tuple[int, int] | None]:
        """The answer's text and the (prompt, completion) token counts, if the server sent them."""
        schema = answer_type.model_json_schema()
        # Streamed, so that a timeout closes the connection and the server stops generating:
        # a non-streamed request keeps llama.cpp busy for the abandoned caller, and the retry
        # then queues behind it.
        stream = await self._client.chat.completions.create(
            model=self._model_name,
            messages=cast(Any, list(messages)),
            max_tokens=max_tokens,
            temperature=0.0,
            stream=True,
            # vLLM and llama.cpp then end the stream with a chunk holding the token counts.
            stream_options={"include_usage": True},
            response_format=cast(
                Any,
                {
                    "type": "json_schema",
                    "json_schema": {"name": answer_type.__name__, "schema": schema, "strict": True},
                },
            ),
        )
        parts: list[str] = []
        usage: tuple[int, int] | None = None
        try:
            async with asyncio.timeout(self._timeout_s):
                async for chunk in stream:
                    if chunk.choices and chunk.choices[0].delta.content:
                        parts.append(chunk.choices[0].delta.content)
                    if chunk.usage is not None:
                        usage = (chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
        finally:
            await stream.close()
        return "".join(parts), usage

    async def unhealthy_reason(self) -> str | None:
        url = f"{self._base_url}/models"
        try:
            async with httpx.AsyncClient(timeout=2.0) as http:
                answer = await http.get(url)
        except httpx.TimeoutException:
            return f"{url} did not answer within 2 s"
        except httpx.HTTPError as exc:  # refused, reset, DNS: the server is not there
            return f"{url} unreachable: {type(exc).__name__}: {exc}"
        if answer.status_code != 200:
            return f"{url} answered HTTP {answer.status_code}"
        return None


def operation_of(answer_type: type[Any]) -> str:
    """The metric label of a call: its answer model's name, snake case, without "Answer"."""
    name = answer_type.__name__.removesuffix("Answer") or answer_type.__name__
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def error_kind(exc: BaseException) -> str:
    """A failure's label, from a fixed set, so that errors never become label values."""
    if isinstance(exc, APITimeoutError | TimeoutError):
        return "timeout"
    if isinstance(exc, APIConnectionError):
        return "connection"
    if isinstance(exc, APIStatusError):
        return f"http_{exc.status_code}"
    return "other"


def build_llm(settings: Settings) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM(
        settings.llm_target,
        settings.llm_model,
        settings.llm_api_key.get_secret_value(),
        settings.llm_timeout_s,
    )
