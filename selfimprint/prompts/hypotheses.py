"""Sleep-phase prompts: the smart-skip pre-check (spec §3.6), hypothesis formation (§3.5.1) and
the stance of later memories towards a hypothesis (§3.5.2 evidence).

Sleep reasoning runs in English whatever the user's language (spec §6). Memories are numbered;
the model cites evidence by number, so an answer can never invent a memory id.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Final, Literal

from pydantic import Field

from selfimprint.prompts import LLMAnswer

MAX_STATEMENT_CHARS: Final = 200
MAX_HYPOTHESES: Final = 3
MAX_SUMMARY_CHARS: Final = 240
MAX_MEMORY_CHARS: Final = 200


class PrecheckAnswer(LLMAnswer):
    worth_reasoning: bool
    summary: Annotated[str, Field(max_length=MAX_SUMMARY_CHARS)]


class ProposedHypothesis(LLMAnswer):
    statement: Annotated[str, Field(min_length=1, max_length=MAX_STATEMENT_CHARS)]
    evidence: Annotated[list[Annotated[int, Field(ge=1, le=99)]], Field(max_length=8)]


class HypothesesAnswer(LLMAnswer):
    hypotheses: Annotated[list[ProposedHypothesis], Field(max_length=MAX_HYPOTHESES)]


def _numbered(memories: Sequence[str]) -> str:
    return "\n".join(f"{i}. {text[:MAX_MEMORY_CHARS]}" for i, text in enumerate(memories, 1))


_PRECHECK = """\
You decide whether a user's new memories are worth a deeper analysis tonight.
Worth it: feelings, important events, plans, unresolved questions, changes or contradictions.
Not worth it: small talk, one-off technical questions, greetings.
Answer as JSON: {"worth_reasoning": true|false, "summary": "<one English sentence>"}."""


def precheck_messages(new_memories: Sequence[str]) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": _PRECHECK},
        {"role": "user", "content": "New memories:\n" + _numbered(new_memories)},
    ]


_HYPOTHESES = """\
You read what an assistant remembers about a user and the patterns found this week.
Propose at most {limit} hypotheses: short claims that are not stated but follow from several
memories together (e.g. "The user may be under stress because of work").
Rules:
1. Write in English, one sentence each, tentative ("may", "seems").
2. Cite the supporting memories by their numbers in "evidence" (at least two).
3. Never guess health, religion, politics, sexuality, ethnicity or finances.
4. If nothing follows, answer with an empty list.
Answer as JSON: {{"hypotheses": [{{"statement": "...", "evidence": [1, 2]}}]}}."""


def hypothesis_messages(memories: Sequence[str], patterns: Sequence[str]) -> list[dict[str, str]]:
    listed = "Memories:\n" + _numbered(memories)
    if patterns:
        listed += "\n\nPatterns:\n" + "\n".join(f"- {p}" for p in patterns)
    return [
        {"role": "system", "content": _HYPOTHESES.format(limit=MAX_HYPOTHESES)},
        {"role": "user", "content": listed},
    ]


# --- stance: how later memories bear on one hypothesis (issue 16, spec §3.5.2 evidence) --------

MAX_STANCE_MEMORIES: Final = 20  # as many as one pass sends (StanceConfig.max_model_pairs)


class MemoryStance(LLMAnswer):
    memory: Annotated[int, Field(ge=1, le=MAX_STANCE_MEMORIES)]
    stance: Literal["supporting", "contradicting", "neutral"]


class StanceAnswer(LLMAnswer):
    stances: Annotated[list[MemoryStance], Field(max_length=MAX_STANCE_MEMORIES)]


_STANCE = """\
You check a hypothesis about a user against memories recorded after it.
For every numbered memory, say whether it is evidence about the user themself:
- "supporting": the user's own words or behaviour fit the hypothesis;
- "contradicting": they go against it (the opposite, a stop, a dislike);
- "neutral": unrelated, a question, a guess, or about someone else.
Answer every memory once, by its number.
Answer as JSON: {"stances": [{"memory": 1, "stance": "supporting"}]}."""


def stance_messages(statement: str, memories: Sequence[str]) -> list[dict[str, str]]:
    listed = f"Hypothesis: {statement[:MAX_STATEMENT_CHARS]}\n\nMemories:\n" + _numbered(
        memories[:MAX_STANCE_MEMORIES]
    )
    return [{"role": "system", "content": _STANCE}, {"role": "user", "content": listed}]


def stances_by_memory(answer: StanceAnswer, shown: int) -> dict[int, str]:
    """The answer's stance per memory number shown; a number out of range is dropped, and one
    answered twice with different stances is dropped too (the model did not decide)."""
    seen: dict[int, set[str]] = {}
    for item in answer.stances:
        if item.memory <= shown:
            seen.setdefault(item.memory, set()).add(item.stance)
    return {number: next(iter(s)) for number, s in seen.items() if len(s) == 1}
