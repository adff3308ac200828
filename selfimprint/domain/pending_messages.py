"""Read your writes (issue 36): what the user said that extraction has not reached yet.

A message is stored (202) before the user's lifecycle extracts it, seconds or minutes later;
until then its words are in no memory, and a context asked right after the user spoke would
not know them. A context request that names the last message the caller sent gets the user's
messages still pending, verbatim, in a short section of the context marked as not yet
processed: newest first, within a share of the token budget (`ContextConfig.
pending_budget_share`), the last one that does not fit cut to what does. They never push the
context over its budget: the block is sized to fit beside the instruction line, and the
context puts it before what may give way (`context.assemble_context`).

Pure: the message log reads the messages (`ports.MessageBacklogReader`), this module chooses
and renders them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Annotated, Final

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.context import (
    DEFAULT_CONTEXT,
    ContextConfig,
    TokenEstimate,
    count_tokens,
    instruction_line,
    template_language,
)
from selfimprint.domain.messages import MAX_MESSAGE_CHARS
from selfimprint.domain.models import AwareDatetime, MemoryId


class _Value(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ExtractionBacklog(_Value):
    """How far extraction is behind on one user's messages (every role). A message whose
    extraction failed stays in the log but is not awaited, so it is not counted."""

    pending: Annotated[int, Field(ge=0)] = 0
    oldest_pending_sent_at: AwareDatetime | None = None


class PendingMessage(_Value):
    """A user message stored and not yet extracted, as the log hands it out. `clipped`: the
    log read only the start of a longer text (what could fit in any budget), so it can only
    be shown cut."""

    id: MemoryId
    sent_at: AwareDatetime
    text: str
    clipped: bool = False


class ShownMessage(_Value):
    """A pending message as the context shows it: `text` is what stands in the context."""

    id: MemoryId
    sent_at: AwareDatetime
    text: str
    truncated: bool


class PendingBlock(_Value):
    text: str = ""
    shown: tuple[ShownMessage, ...] = ()
    tokens: int = 0


NO_PENDING: Final = PendingBlock()

# The section's heading in the context's languages (the templates of `domain.context`).
_HEADINGS: Final[Mapping[str, str]] = {
    "en": "Just said, not yet processed into memory (newest first, verbatim)",
    "ru": "Только что сказано, ещё не обработано в память (сначала новые, дословно)",
    "uk": "Щойно сказано, ще не оброблено в пам'ять (спершу нові, дослівно)",
}
_ELLIPSIS: Final = "…"


def heading(language: str) -> str:
    return _HEADINGS[template_language(language)]


def pending_allowance(
    language: str, budget_tokens: int, config: ContextConfig = DEFAULT_CONTEXT
) -> int:
    """Tokens the block may take: its share of the budget, and never more than the budget
    leaves beside the instruction line (the newline joining them costs one more)."""
    share = math.floor(budget_tokens * config.pending_budget_share + 1e-9)  # 0.1425 * 400 = 57
    instruction = count_tokens(instruction_line(template_language(language)), config.token_estimate)
    return max(0, min(share, budget_tokens - instruction - 1))


def readable_chars(budget_tokens: int, config: ContextConfig = DEFAULT_CONTEXT) -> int:
    """The most characters of one message that can fit in any block for this budget: what the
    message log needs to read of each text (a 32,000-character message is not sent whole to
    show 200 tokens of it)."""
    estimate: TokenEstimate = config.token_estimate
    cheapest = min(
        estimate.ascii_letter,
        estimate.cyrillic,
        estimate.other_letter,
        estimate.cjk,
        estimate.digit,
        estimate.symbol,
        estimate.other,
    )
    if cheapest <= 0:
        return MAX_MESSAGE_CHARS
    share = budget_tokens * config.pending_budget_share
    return min(MAX_MESSAGE_CHARS, math.ceil(share / cheapest) + 1)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def newest_first(messages: Sequence[PendingMessage]) -> list[PendingMessage]:
    return sorted(messages, key=lambda m: (m.sent_at, m.id), reverse=True)


def pending_block(
    messages: Sequence[PendingMessage],
    *,
    language: str,
    budget_tokens: int,
    current_message: str = "",
    config: ContextConfig = DEFAULT_CONTEXT,
) -> PendingBlock:
    """The section of the context for `messages`, in the context's language.

    Newest first, at most `config.max_pending_messages`; a message whose text is the request's
    own `current_message` is left out (the main model reads it anyway). Each is taken whole
    while the block fits `pending_allowance`; the first that does not is cut to the longest
    start that fits (at least `config.min_pending_chars`, ending in "…"), and nothing older
    follows it. Empty when nothing fits.
    """
    allowance = pending_allowance(language, budget_tokens, config)
    estimate = config.token_estimate
    current = _one_line(current_message).casefold()
    chosen = [m for m in newest_first(messages) if _one_line(m.text).casefold() != current]
    lines = [f"{heading(language)}:"]
    shown: list[ShownMessage] = []
    for message in chosen[: config.max_pending_messages]:
        text = _one_line(message.text)
        if not message.clipped and _fits([*lines, f"- {text}"], allowance, estimate):
            lines.append(f"- {text}")
            shown.append(_shown(message, text, truncated=False))
            continue
        cut = _longest_fitting_start(lines, text, allowance, config)
        if cut is not None:
            lines.append(f"- {cut}")
            shown.append(_shown(message, cut, truncated=True))
        break
    if not shown:
        return NO_PENDING
    block = "\n".join(lines)
    return PendingBlock(text=block, shown=tuple(shown), tokens=count_tokens(block, estimate))


def _shown(message: PendingMessage, text: str, *, truncated: bool) -> ShownMessage:
    return ShownMessage(id=message.id, sent_at=message.sent_at, text=text, truncated=truncated)


def _fits(lines: Sequence[str], allowance: int, estimate: TokenEstimate) -> bool:
    return count_tokens("\n".join(lines), estimate) <= allowance


def _longest_fitting_start(
    lines: Sequence[str], text: str, allowance: int, config: ContextConfig
) -> str | None:
    """The longest start of `text` that, ended with "…", still fits after `lines`; None when
    it would be shorter than `config.min_pending_chars`. A binary search: the token count only
    grows with the length of the start."""

    def cut(length: int) -> str:
        return text[:length].rstrip() + _ELLIPSIS

    low, high = config.min_pending_chars, len(text)
    if high < low or not _fits([*lines, f"- {cut(low)}"], allowance, config.token_estimate):
        return None
    while low < high:
        middle = (low + high + 1) // 2
        if _fits([*lines, f"- {cut(middle)}"], allowance, config.token_estimate):
            low = middle
        else:
            high = middle - 1
    return cut(low)
