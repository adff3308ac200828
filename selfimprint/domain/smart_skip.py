"""Smart skip (spec §3.6): the cheap pre-check that decides whether a sleep pass is worth running.

The pre-check looks at what changed since the last sleep: how many new messages, and whether
they carry an emotional signal, mention a significant event or an open loop, or look like a
contradiction with existing memories. The deterministic rule, first match wins:

1. no new messages since the last sleep: skip;
2. at least one signal (an emotional note, a significant event, an open loop, new or mentioned
   again, a possible contradiction: a new `contradicts` edge or tension, or an event that names
   a day still to come: the scheduled triggers have work): run;
3. at least 20 new messages: run, too much material to call trivial;
4. at most 3 new messages ("a couple of technical questions and goodbye"): skip;
5. otherwise: ask the LLM, the single pre-check call of §3.6; its "nothing meaningful" is a skip.

A skip writes a one-sentence summary, in English like all sleep-phase reasoning (spec §6), and
skips the six operations; the pass still counts as a sleep for the schedule.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime, tzinfo
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from selfimprint.domain.models import (
    Edge,
    EdgeType,
    Node,
    NodeType,
    Tension,
    TensionStatus,
)
from selfimprint.domain.scheduled_triggers import dates_of


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SmartSkipPolicy(_Frozen):
    # §3.6: "a couple of technical questions and goodbye" is the session worth skipping.
    trivial_messages: Annotated[int, Field(ge=0)] = 3
    # Not in §3.6: past this many new messages the LLM pre-check is not worth its call.
    run_at_messages: Annotated[int, Field(ge=1)] = 20
    # §3.6: "do they carry emotional signal ...": one signal of any kind is enough.
    signals_to_run: Annotated[int, Field(ge=1)] = 1
    # §3.6: "writes a one-sentence summary"; the cap is ours (the LLM's sentence is clamped).
    summary_max_chars: Annotated[int, Field(ge=20)] = 240

    @model_validator(mode="after")
    def _ordered(self) -> SmartSkipPolicy:
        if self.trivial_messages >= self.run_at_messages:
            raise ValueError("trivial_messages must be below run_at_messages")
        return self


DEFAULT_SKIP_POLICY = SmartSkipPolicy()


class SkipFeatures(_Frozen):
    """What changed since the last sleep: the pre-check's deterministic inputs."""

    new_messages: Annotated[int, Field(ge=0)]
    emotional_notes: Annotated[int, Field(ge=0)] = 0
    significant_events: Annotated[int, Field(ge=0)] = 0
    open_loops: Annotated[int, Field(ge=0)] = 0
    contradictions: Annotated[int, Field(ge=0)] = 0
    upcoming_events: Annotated[int, Field(ge=0)] = 0

    def signals(self) -> dict[str, int]:
        """The signal counts that are non-zero, by name."""
        counts = {
            "emotional signal": self.emotional_notes,
            "significant event": self.significant_events,
            "open loop": self.open_loops,
            "possible contradiction": self.contradictions,
            "upcoming event": self.upcoming_events,
        }
        return {name: n for name, n in counts.items() if n > 0}


class SkipVerdict(StrEnum):
    SKIP = "skip"
    RUN = "run"
    ASK_LLM = "ask_llm"


class SkipDecision(_Frozen):
    verdict: SkipVerdict
    reason: str
    summary: str | None = None  # the one sentence written on a skip; None otherwise

    @model_validator(mode="after")
    def _summary_iff_skip(self) -> SkipDecision:
        if (self.verdict is SkipVerdict.SKIP) != (self.summary is not None):
            raise ValueError("a skip, and only a skip, carries a summary")
        return self


def _after(value: datetime | None, since: datetime | None) -> bool:
    return value is not None and (since is None or value.astimezone(UTC) > since)


def skip_features(
    new_messages: int,
    nodes: Iterable[Node],
    edges: Iterable[Edge] = (),
    tensions: Iterable[Tension] = (),
    *,
    since: datetime | None,
    tz: tzinfo = UTC,
) -> SkipFeatures:
    """Count the signals among memories created or reinforced after `since` (the last sleep;
    None before the first one). `tz`: the user's, for the day an event was said on."""
    since = None if since is None else since.astimezone(UTC)
    emotional = significant = loops = upcoming = 0
    for node in nodes:
        if not (_after(node.created_at, since) or _after(node.last_reinforced_at, since)):
            continue
        emotional += node.type is NodeType.EMOTIONAL_NOTE
        significant += node.type is NodeType.EVENT and node.significant
        loops += node.type is NodeType.OPEN_LOOP
        if node.type is NodeType.EVENT:
            said_on = node.created_at.astimezone(tz).date()
            upcoming += any(day >= said_on for day in dates_of(node, tz))
    contradictions = sum(
        1
        for e in edges
        if e.type is EdgeType.CONTRADICTS
        and (_after(e.created_at, since) or _after(e.last_reinforced_at, since))
    )
    contradictions += sum(
        1 for t in tensions if t.status is TensionStatus.UNRESOLVED and _after(t.detected_at, since)
    )
    return SkipFeatures(
        new_messages=new_messages,
        emotional_notes=emotional,
        significant_events=significant,
        open_loops=loops,
        contradictions=contradictions,
        upcoming_events=upcoming,
    )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def skip_summary(features: SkipFeatures) -> str:
    """The one sentence written when a pass is skipped without asking the LLM."""
    if features.new_messages == 0:
        return "Sleep skipped: no new messages since the last sleep."
    return (
        f"Sleep skipped: {_plural(features.new_messages, 'new message')} since the last sleep, "
        "with no emotional signal, significant event, open loop, possible contradiction or "
        "upcoming event."
    )


def decide(features: SkipFeatures, policy: SmartSkipPolicy = DEFAULT_SKIP_POLICY) -> SkipDecision:
    """The deterministic pre-check (rule in the module docstring)."""
    n = features.new_messages
    signals = features.signals()
    if n == 0:
        return SkipDecision(
            verdict=SkipVerdict.SKIP, reason="no new messages", summary=skip_summary(features)
        )
    if sum(signals.values()) >= policy.signals_to_run:
        found = ", ".join(_plural(count, name) for name, count in signals.items())
        return SkipDecision(verdict=SkipVerdict.RUN, reason=f"{_plural(n, 'new message')}: {found}")
    if n >= policy.run_at_messages:
        return SkipDecision(
            verdict=SkipVerdict.RUN,
            reason=f"{_plural(n, 'new message')} (>= {policy.run_at_messages}) without signals",
        )
    if n <= policy.trivial_messages:
        return SkipDecision(
            verdict=SkipVerdict.SKIP,
            reason=f"{_plural(n, 'new message')} (<= {policy.trivial_messages}) without signals",
            summary=skip_summary(features),
        )
    return SkipDecision(
        verdict=SkipVerdict.ASK_LLM,
        reason=f"{_plural(n, 'new message')} without signals: the LLM pre-check decides",
    )


def decide_after_llm(
    features: SkipFeatures,
    worth_reasoning: bool,
    llm_summary: str = "",
    policy: SmartSkipPolicy = DEFAULT_SKIP_POLICY,
) -> SkipDecision:
    """Turn the LLM pre-check's answer into the final decision."""
    if worth_reasoning:
        return SkipDecision(verdict=SkipVerdict.RUN, reason="the LLM pre-check found material")
    summary = as_one_sentence(llm_summary, policy.summary_max_chars) or skip_summary(features)
    return SkipDecision(
        verdict=SkipVerdict.SKIP,
        reason="the LLM pre-check found nothing meaningful",
        summary=summary,
    )


_SENTENCE_END = re.compile(r"(?<=[.!?…])\s")
_WHITESPACE = re.compile(r"\s+")


def as_one_sentence(text: str, max_chars: int = DEFAULT_SKIP_POLICY.summary_max_chars) -> str:
    """The first sentence of `text`, on one line, at most `max_chars` long ("" if blank)."""
    flat = _WHITESPACE.sub(" ", text).strip()
    sentence = _SENTENCE_END.split(flat, maxsplit=1)[0]
    if len(sentence) > max_chars:
        sentence = sentence[: max_chars - 1].rstrip() + "…"
    return sentence
