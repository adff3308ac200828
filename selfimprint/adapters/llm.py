"""One OpenAI-compatible chat client for vLLM (production) and llama.cpp (local).

Structured output uses `response_format: {"type": "json_schema", ...}`: the only form both vLLM
(>= 0.12) and llama.cpp enforce. The client never retries on its own (`max_retries=0`): inside a
Temporal activity, retries belong to Temporal's retry policy, where they are visible and bounded.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, cast

import httpx
from openai import AsyncOpenAI
from pydantic import ValidationError

from selfimprint.config import Settings
from selfimprint.ports import AnswerT


class LLMAnswerInvalidError(ValueError):
    """The model's answer did not validate against the requested schema."""

    def __init__(self, answer_type: str, raw: str, detail: str) -> None:
        super().__init__(f"LLM answer is not a valid {answer_type}: {detail}")
        self.raw = raw


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
            response_format=cast(
                Any,
                {
                    "type": "json_schema",
                    "json_schema": {"name": answer_type.__name__, "schema": schema, "strict": True},
                },
            ),
        )
        parts: list[str] = []
        try:
            async with asyncio.timeout(self._timeout_s):
                async for chunk in stream:
                    if chunk.choices and chunk.choices[0].delta.content:
                        parts.append(chunk.choices[0].delta.content)
        finally:
            await stream.close()
        raw = "".join(parts)
        try:
            return answer_type.model_validate_json(raw)
        except ValidationError as exc:
            raise LLMAnswerInvalidError(answer_type.__name__, raw, str(exc)) from exc

    async def healthy(self) -> bool:
        try:
            async with httpx.AsyncClient(timeout=2.0) as http:
                answer = await http.get(f"{self._base_url}/models")
            return answer.status_code == 200
        except httpx.HTTPError:
            return False


def build_llm(settings: Settings) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM(
        settings.llm_target,
        settings.llm_model,
        settings.llm_api_key.get_secret_value(),
        settings.llm_timeout_s,
    )
