"""What the domain and the orchestration need from the outside world, as Protocols.

Adapters in `selfimprint.adapters` implement these; tests of workflows may stub them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from pydantic import BaseModel

AnswerT = TypeVar("AnswerT", bound=BaseModel)


class Embedder(Protocol):
    """Text -> unit-length vectors. `model_id` and `dimension` are stored with every vector, so
    that vectors of two different models are never compared."""

    @property
    def model_id(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]: ...


class LLM(Protocol):
    """A chat model that answers with JSON validated against a pydantic model's schema."""

    @property
    def model_name(self) -> str: ...

    async def complete_json(
        self,
        messages: Sequence[dict[str, str]],
        answer_type: type[AnswerT],
        *,
        max_tokens: int = 512,
    ) -> AnswerT: ...

    async def healthy(self) -> bool: ...
