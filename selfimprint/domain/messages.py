"""Raw conversation messages as the app backend sends them: the evidence every memory points to."""

from __future__ import annotations

import hashlib
from datetime import UTC
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from selfimprint.domain.models import AwareDatetime, MemoryId

# A message is a chat turn, not a document: 32k characters is far above any real turn and far
# below what would hurt the extraction prompt or the request size limit.
MAX_MESSAGE_CHARS = 32_000
MAX_BATCH_MESSAGES = 100


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"


def _no_lone_surrogates(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("text contains unpaired UTF-16 surrogates") from exc
    if not text.strip():
        raise ValueError("text is empty")
    return text


MessageText = Annotated[
    str, Field(min_length=1, max_length=MAX_MESSAGE_CHARS), AfterValidator(_no_lone_surrogates)
]


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: MemoryId
    role: Role
    text: MessageText
    sent_at: AwareDatetime

    def content_hash(self) -> str:
        """What "the same message" means for idempotency: role, text and time, not the id."""
        digest = hashlib.sha256()
        for part in (self.role.value, self.text, self.sent_at.astimezone(UTC).isoformat()):
            digest.update(part.encode("utf-8"))
            digest.update(b"\x00")
        return digest.hexdigest()
