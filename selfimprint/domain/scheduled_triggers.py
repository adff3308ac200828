"""Scheduled triggers and open-loop preparation (spec §3.5.1, operations 5 and 6).

Dates are re-derived from the content of recent memories, deterministically (the extractor's
dates are not stored on nodes): ISO dates (2025-03-28), "March 28" / "28 March", "28.03(.2025)"
and Russian "28 марта" (a date without a year is the next such day on or after the day the memory
was created), and relative days ("tomorrow", "next Tuesday", "послезавтра") resolved against when
the user said it, by the structured extractor's reader. Only dates from today on make triggers.
A trigger activates `lead` before the event (spec: an interview on March 28 is high priority from
March 27) and ends the day after.

Open-loop questions are templated, not generated: a candidate per open loop and per upcoming
trigger, in English like all sleep-phase reasoning (spec §6); the assistant decides whether to use
them (spec: "candidates, not a checklist").
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Annotated
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.language import detect_language
from selfimprint.domain.models import Edge, MemoryId, Node, NodeType
from selfimprint.domain.structured.cues import cues
from selfimprint.domain.structured.dates import resolve_dates


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TriggerConfig(_Frozen):
    # §3.5.1: "marks the relevant subgraph for high priority starting March 27" (one day ahead).
    lead: timedelta = timedelta(days=1)
    # Not in the spec: the window closes at the end of the day after the event.
    linger: timedelta = timedelta(days=1)
    # Not in the spec: memories scanned for dates (§3.5.1 "recent dialogue").
    recent: timedelta = timedelta(days=7)
    # Not in the spec: open-loop questions kept per pass (§3.5.1 "candidate questions").
    max_questions: Annotated[int, Field(ge=1)] = 5


DEFAULT_TRIGGERS = TriggerConfig()


class ScheduledTrigger(_Frozen):
    id: MemoryId
    event_date: date
    activate_from: datetime
    activate_until: datetime
    content: str
    node_id: MemoryId  # the memory that names the date
    node_ids: tuple[MemoryId, ...]  # the memory and its one-hop neighbourhood
    sources: tuple[MemoryId, ...]


class OpenLoopQuestion(_Frozen):
    id: MemoryId
    question: str
    node_id: MemoryId
    sources: tuple[MemoryId, ...]


_MONTH_NAMES = (
    "january february march april may june july august september october november december"
)
_MONTHS_EN = {m: i + 1 for i, m in enumerate(_MONTH_NAMES.split())}
_MONTHS_EN |= {m[:3]: i for m, i in list(_MONTHS_EN.items())}
_MONTHS_RU = {
    m: i + 1
    for i, m in enumerate(
        "января февраля марта апреля мая июня июля августа сентября октября ноября декабря".split()
    )
}
_EN_NAMES = "|".join(sorted(_MONTHS_EN, key=len, reverse=True))
_RU_NAMES = "|".join(_MONTHS_RU)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_DAY = re.compile(rf"\b({_EN_NAMES})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b", re.IGNORECASE)
_DAY_MONTH = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_EN_NAMES})\b", re.IGNORECASE
)
_DAY_MONTH_RU = re.compile(rf"\b(\d{{1,2}})\s+({_RU_NAMES})\b", re.IGNORECASE)
_DOTTED = re.compile(r"\b(\d{1,2})\.(\d{1,2})(?:\.(\d{4}))?\b")


def _next_on_or_after(month: int, day: int, after: date) -> date | None:
    for year in (after.year, after.year + 1):
        try:
            candidate = date(year, month, day)
        except ValueError:
            return None
        if candidate >= after:
            return candidate
    return None


def dates_in(text: str, written_on: date) -> tuple[date, ...]:
    """Every calendar date the text names (see the module docstring), sorted."""
    found: set[date] = set()
    for y, m, d in _ISO.findall(text):
        try:
            found.add(date(int(y), int(m), int(d)))
        except ValueError:
            pass
    for name, d in _MONTH_DAY.findall(text):
        hit = _next_on_or_after(_MONTHS_EN[name.casefold()], int(d), written_on)
        found |= {hit} if hit else set()
    for d, name in _DAY_MONTH.findall(text):
        hit = _next_on_or_after(_MONTHS_EN[name.casefold()], int(d), written_on)
        found |= {hit} if hit else set()
    for d, name in _DAY_MONTH_RU.findall(text):
        hit = _next_on_or_after(_MONTHS_RU[name.casefold()], int(d), written_on)
        found |= {hit} if hit else set()
    stripped = _ISO.sub(" ", text)
    for d, m, y in _DOTTED.findall(stripped):
        if not 1 <= int(m) <= 12:
            continue
        if y:
            try:
                found.add(date(int(y), int(m), int(d)))
            except ValueError:
                pass
        else:
            hit = _next_on_or_after(int(m), int(d), written_on)
            found |= {hit} if hit else set()
    return tuple(sorted(found))


def dates_of(node: Node, tz: tzinfo) -> tuple[date, ...]:
    """The days a memory names: written dates (`dates_in`), and relative ones ("tomorrow", "next
    Tuesday", "через три дня") resolved against when the user said it, on their wall clock, by
    the extractor's own reader (domain.structured.dates)."""
    said = node.created_at.astimezone(tz)
    relative = resolve_dates(node.content, said, cues(detect_language(node.content)))
    return tuple(sorted(set(dates_in(node.content, said.date())) | set(relative)))


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:24]


def plan_triggers(
    user_id: str,
    nodes: Sequence[Node],
    edges: Iterable[Edge],
    now: datetime,
    tz: ZoneInfo,
    config: TriggerConfig = DEFAULT_TRIGGERS,
) -> tuple[ScheduledTrigger, ...]:
    """Operation 5: an activation window for every future date in a recent memory."""
    today = now.astimezone(tz).date()
    since = now.astimezone(UTC) - config.recent
    neighbours: dict[str, set[str]] = {}
    for e in edges:
        neighbours.setdefault(e.source_id, set()).add(e.target_id)
        neighbours.setdefault(e.target_id, set()).add(e.source_id)
    made = []
    for node in nodes:
        if node.type is NodeType.HYPOTHESIS:
            continue
        if (node.last_reinforced_at or node.created_at).astimezone(UTC) < since:
            continue
        for day in dates_of(node, tz):
            if day < today:
                continue
            start = datetime.combine(day, time(0), tz) - config.lead
            end = datetime.combine(day, time(0), tz) + timedelta(days=1) + config.linger
            made.append(
                ScheduledTrigger(
                    id=f"trg-{_digest(user_id, node.id, day.isoformat())}",
                    event_date=day,
                    activate_from=start.astimezone(UTC),
                    activate_until=end.astimezone(UTC),
                    content=node.content,
                    node_id=node.id,
                    node_ids=tuple(sorted({node.id} | neighbours.get(node.id, set()))),
                    sources=node.sources,
                )
            )
    return tuple(sorted(made, key=lambda t: (t.event_date, t.id)))


def _quoted(content: str, limit: int = 120) -> str:
    flat = " ".join(content.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


# The questions the context serves as they are (spec §3.5.1: prepared for the next session), so
# each is written in the language of the memory it asks about; others fall back to English.
_RU_MONTHS_GENITIVE = (
    "января февраля марта апреля мая июня июля августа сентября октября ноября декабря".split()
)
_UK_MONTHS_GENITIVE = (
    "січня лютого березня квітня травня червня липня серпня вересня жовтня листопада грудня"
).split()


def _loop_question(content: str) -> str:
    quoted = _quoted(content)
    match detect_language(content):
        case "ru":
            return f"Раньше пользователь упоминал: «{quoted}». Это уже решилось?"
        case "uk":
            return f"Раніше користувач згадував: «{quoted}». Це вже вирішилося?"
        case _:
            return f'Earlier the user mentioned: "{quoted}". Is it settled?'


def _event_question(content: str, day: date) -> str:
    quoted = _quoted(content)
    match detect_language(content):
        case "ru":
            when = f"{day.day} {_RU_MONTHS_GENITIVE[day.month - 1]}"
            return f"Скоро, {when}: «{quoted}». Как идёт подготовка?"
        case "uk":
            when = f"{day.day} {_UK_MONTHS_GENITIVE[day.month - 1]}"
            return f"Незабаром, {when}: «{quoted}». Як іде підготовка?"
        case _:
            return f'Coming up on {day:%B %d}: "{quoted}". How is the preparation going?'


def plan_open_loop_questions(
    user_id: str,
    nodes: Iterable[Node],
    triggers: Iterable[ScheduledTrigger],
    now: datetime,
    config: TriggerConfig = DEFAULT_TRIGGERS,
) -> tuple[OpenLoopQuestion, ...]:
    """Operation 6: candidate questions for unresolved threads and upcoming dated events,
    most recent first."""
    by_id = {n.id: n for n in nodes}
    questions: dict[str, OpenLoopQuestion] = {}
    loops = sorted(
        (n for n in by_id.values() if n.type is NodeType.OPEN_LOOP),
        key=lambda n: (n.last_reinforced_at or n.created_at, n.id),
        reverse=True,
    )
    for loop in loops:
        questions[loop.id] = OpenLoopQuestion(
            id=f"olq-{_digest(user_id, loop.id)}",
            question=_loop_question(loop.content),
            node_id=loop.id,
            sources=loop.sources,
        )
    for trigger in triggers:
        anchor = trigger.node_id
        if anchor not in by_id or anchor in questions or trigger.activate_until < now:
            continue
        questions[anchor] = OpenLoopQuestion(
            id=f"olq-{_digest(user_id, anchor)}",
            question=_event_question(trigger.content, trigger.event_date),
            node_id=anchor,
            sources=trigger.sources,
        )
    return tuple(list(questions.values())[: config.max_questions])
