"""What a memory was said in reply to: the message right before the one it came from.

In a conversation most lines lean on the one before. "A sunset by the lake" answers "What did
you paint?"; "It went badly" answers "How was the interview?". Read alone, such a memory holds
neither the question's words nor its meaning, and a later question ("What did Caroline paint?")
cannot find it. So a memory keeps, beside its own content, how it reads in its reply context:
- `context_embedding`: the vector of the preceding message's text and the memory's content
  together (`contextual_passage`), which the context read path compares the query with;
- `context_terms`: the preceding message's search terms, which count for lexical relevance at a
  share of a term of the memory's own (`ScoringConfig.context_term_share`).

The preceding text is retrieval metadata, never a memory: nothing is stored as something the
user said, the memory's content stays the user's words, and the text itself is not kept (only
its vector and stems, on the memory, deleted with it). The restatement test, contradictions and
every other comparison still use the content's own vector.

Measured on LoCoMo dev (BENCHMARKS.md, docs/decisions.md "Reply context"): structured extraction's
text-credited recall of the first ten memories went from 0.625 to 0.684.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from selfimprint.domain.messages import Message, Role
from selfimprint.domain.terms import search_terms


def _tail(text: str, max_chars: int) -> str:
    """The last `max_chars` characters of the text, cut at a word: the end of a long message is
    what the next one answers."""
    text = " ".join(text.split())
    if len(text) <= max_chars:
        return text
    cut = text[-max_chars:]
    space = cut.find(" ")
    return cut[space + 1 :] if 0 <= space < len(cut) - 1 else cut


def replied_to(
    messages: Sequence[Message], preceding: Message | None, max_chars: int
) -> dict[str, str]:
    """For each user message of a batch (in order), the text of the message right before it in
    the conversation: the batch's previous message, or `preceding` (the message before the
    batch) for the first. At most `max_chars`, the end kept; 0 turns reply context off."""
    if max_chars <= 0:
        return {}
    out: dict[str, str] = {}
    before = preceding
    for message in messages:
        if message.role is Role.USER and before is not None:
            text = _tail(before.text, max_chars)
            if text:
                out[message.id] = text
        before = message
    return out


def context_of(sources: Sequence[str], replies: Mapping[str, str]) -> str | None:
    """A memory's reply context: that of its first source message (the one it came from)."""
    return replies.get(sources[0]) if sources else None


def asks_a_question(context: str) -> bool:
    """Whether the message replied to asks something: what answers it is worth remembering
    even when short (`StructuredConfig.answer_min_words`). Anywhere in its end, not only last:
    "Have you seen it? Sounds like you know it well!" asks too."""
    return "?" in context or "？" in context


def contextual_passage(context: str, content: str) -> str:
    """The text whose vector is a memory's `context_embedding`."""
    return f"{context}\n{content}"


def context_terms(context: str, content: str) -> tuple[str, ...]:
    """The reply context's search terms that the content does not hold itself."""
    own = set(search_terms(content))
    return tuple(t for t in search_terms(context) if t not in own)
