"""The prose-mode context prompt (spec §3.4 step 4): the extractive context -> a short summary.

The extractive context (`domain.context.assemble_context`) is always available; this prompt asks
the LLM to rewrite it as prose within the same budget. `domain.context.prose_context` accepts the
answer only if it fits; otherwise the extractive text is used.
"""

from __future__ import annotations

from typing import Annotated, Final

from pydantic import Field

from selfimprint.domain.context import AssembledContext, prose_budget
from selfimprint.prompts import LLMAnswer
from selfimprint.prompts.extraction import language_name

# The schema's cap: a 400-token budget (spec §3.4) at ~4 characters a token, with room to spare.
# The real limit is the token budget, checked by `prose_context`.
MAX_PROSE_CHARS: Final = 2_000
# Project choice: the current message is shown for relevance, not in full.
MAX_CURRENT_MESSAGE_CHARS: Final = 1_000
# Words are the unit a small model can follow. 0.6 words a token stays under the budget even for
# Russian, whose words count_tokens charges 2-3 tokens each (project choice).
WORDS_PER_TOKEN: Final = 0.6


class ProseSummary(LLMAnswer):
    text: Annotated[str, Field(max_length=MAX_PROSE_CHARS)]


_SYSTEM = """\
You write a short background note about a user for another assistant, which will read it \
before replying to the user. It will use the note but must not quote it.
Rules:
1. Write in {language}, at most {tokens} tokens (about {words} words), as plain prose.
2. Use only the memories given. Do not add, guess or judge.
3. Memories are listed most important first: keep the important ones.
4. Keep cause and effect intact ("A because of B").
5. Say first what matters for the user's current message.
6. Anything marked tentative stays uncertain ("may", "possibly").
7. Do not address the user and do not give advice. Answer as JSON: {{"text": "..."}}."""


def context_summary_messages(
    context: AssembledContext,
    current_message: str,
    *,
    budget_tokens: int | None = None,
) -> list[dict[str, str]]:
    """System and user messages asking for a `ProseSummary` of the extractive context.

    The token allowance is the budget minus the instruction line the caller puts in front and
    the closing text (the review, the summary's notice) it puts after.
    """
    tokens = prose_budget(
        context.template_language, budget_tokens, closing_text=context.closing_text
    )
    language = language_name(context.language) or language_name(context.template_language)
    system = _SYSTEM.format(
        language=language or "English",
        tokens=tokens,
        words=int(tokens * WORDS_PER_TOKEN),
    )
    # The memories only: the closing text (the messages not yet processed, the review) is put
    # back after the summary verbatim, so the model neither rewrites nor repeats it.
    body = context.text.partition("\n")[2].removesuffix(context.closing_text).rstrip("\n")
    current = " ".join(current_message.split())[:MAX_CURRENT_MESSAGE_CHARS]
    user = f"Current message from the user:\n{current}\n\nMemories:\n{body}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
