"""The extraction used when the LLM's answer is unusable (truncated or invalid JSON), or for
the messages an answer failed on (`keep_the_users_words`): each user message becomes one memory
in the user's own words.

A message longer than the content cap becomes several memories, each a run of whole sentences
that fits (spec §3.2: memories are atomic), all citing the message; clipping instead would drop
the rest of what the user said (`long_messages="clip"` keeps that behaviour for comparison).

A weak model failing on one batch must not mean the user's words are never remembered. The
memories are plain self-reported facts with no edges; later sleep phases can still connect them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.grounding import DEFAULT_GROUNDING, GroundingConfig, ground
from selfimprint.domain.ingestion.extraction import (
    MAX_CANDIDATES,
    CandidateEvidence,
    CandidateType,
    ExtractedMemory,
    Extraction,
)
from selfimprint.domain.messages import Message, Role

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s")


class VerbatimConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    # Same cap as LLM-extracted memories (IngestionConfig.max_content_chars).
    max_chars: int = Field(300, ge=20)
    # Without the model's judgement every message is "ordinary" (the prompt's 0.5).
    importance: float = Field(0.5, ge=0.0, le=1.0)
    # Short acknowledgements ("ok", "thanks!") are not worth remembering.
    min_chars: int = Field(12, ge=1)
    # split: one memory per run of sentences that fits max_chars; clip: the first run only.
    long_messages: Literal["split", "clip"] = "split"
    # A message is at most this many memories (4,800 characters at the cap); the rest of a very
    # long message (a pasted document) is not remembered verbatim. Four of them fill a batch.
    max_pieces: int = Field(16, ge=1, le=MAX_CANDIDATES // 4)


DEFAULT_VERBATIM = VerbatimConfig()


def _words_within(text: str, limit: int) -> Iterator[str]:
    """A sentence longer than the cap, cut at word boundaries (a word itself longer is cut)."""
    line = ""
    for word in text.split():
        while len(word) > limit:
            if line:
                yield line
                line = ""
            yield word[:limit]
            word = word[limit:]
        if line and len(line) + 1 + len(word) > limit:
            yield line
            line = ""
        line = f"{line} {word}" if line else word
    if line:
        yield line


def pieces(text: str, limit: int) -> list[str]:
    """The text as runs of whole sentences of at most `limit` characters, in order."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return [text] if text else []
    runs: list[str] = []
    run = ""
    for sentence in _SENTENCE_END.split(text):
        for part in _words_within(sentence, limit) if len(sentence) > limit else [sentence]:
            if run and len(run) + 1 + len(part) > limit:
                runs.append(run)
                run = ""
            run = f"{run} {part}" if run else part
    if run:
        runs.append(run)
    return runs


def verbatim_extraction(
    messages: Sequence[Message], config: VerbatimConfig = DEFAULT_VERBATIM
) -> Extraction:
    candidates = []
    for index, message in enumerate(messages):
        if message.role is not Role.USER:
            continue
        runs = pieces(message.text, config.max_chars)
        runs = runs[:1] if config.long_messages == "clip" else runs[: config.max_pieces]
        kept = [r for r in runs if len(r) >= config.min_chars]
        for part, text in enumerate(kept, 1):
            candidates.append(
                ExtractedMemory(
                    ref=f"v{index + 1}" if len(kept) == 1 else f"v{index + 1}.{part}",
                    type=CandidateType.FACT,
                    content=text,
                    importance=config.importance,
                    valence=None,
                    dates_mentioned=(),
                    people=(),
                    evidence_kind=CandidateEvidence.SELF_REPORT,
                    source_message_ids=(message.id,),
                    contradicts_memory_ids=(),
                )
            )
    # The lifecycle sends 4 messages a batch; a larger batch keeps its first messages' pieces.
    return Extraction(candidates=tuple(candidates[:MAX_CANDIDATES]), edges=())


def keep_the_users_words(
    answer: Extraction,
    messages: Sequence[Message],
    *,
    known: Sequence[str] = (),
    config: VerbatimConfig = DEFAULT_VERBATIM,
    grounding: GroundingConfig = DEFAULT_GROUNDING,
) -> tuple[Extraction, tuple[str, ...]]:
    """The answer, plus the user's own words for the messages it failed on.

    A model that proposes something the messages do not support (the grounding guard will drop
    it) has failed on that batch, as one whose JSON is unusable has: each user message that no
    supported candidate cites is then kept verbatim, so that the user's words are not lost with
    the model's inventions. An answer with no candidate at all is the model saying "nothing to
    remember" (small talk) and is left alone. Returns the answer and the messages kept.
    """
    grounded: set[str] = set()
    failed = False
    for c in answer.candidates:
        verdict = ground(c.content, c.source_message_ids, messages, grounding, known)
        if verdict.holds(grounding):
            grounded.update(verdict.sources)
        else:
            failed = True
    if not failed:
        return answer, ()
    missed = [m for m in messages if m.role is Role.USER and m.id not in grounded]
    taken = {c.ref for c in answer.candidates}
    room = MAX_CANDIDATES - len(answer.candidates)
    extra = [
        c.model_copy(update={"ref": f"kept-{c.ref}"})
        for c in verbatim_extraction(missed, config).candidates
        if f"kept-{c.ref}" not in taken
    ][:room]
    kept = tuple(dict.fromkeys(s for c in extra for s in c.source_message_ids))
    return answer.model_copy(update={"candidates": (*answer.candidates, *extra)}), kept
