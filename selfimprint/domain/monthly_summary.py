"""The monthly summary (spec §3.5, §4 "Monthly summaries"): once a month the user sees what the
system remembers: active hypotheses, significant memories, accumulated assumptions (the
lowest-confidence beliefs) and open tensions, with what came and went that month. Every entry
names its memory id, so the user can correct it (PATCH /v1/users/{u}/memories/{id}) or flag it
wrong: "the strongest single defense against drift".

A summary covers one calendar month in the user's time zone and is identified by it
(`summary_id`): it runs on the 1st and covers the month that just ended (`covered_month`), so a
repeated or retried run rewrites the same month's summary.

What was forgotten is not recorded anywhere once a memory is gone (forget, decay, compaction
merges delete nodes), so it is computed from the previous summary: what the graph held at the end
of last month, plus what was added, minus what it holds now. Unknown (None) without a previous
summary. A net figure: a memory added and forgotten within the month counts in neither.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from datetime import date, datetime, time, tzinfo
from enum import StrEnum
from typing import Annotated, Final

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from selfimprint.domain.language import UNDETERMINED, detect_language
from selfimprint.domain.models import (
    AwareDatetime,
    Hypothesis,
    HypothesisStatus,
    MemoryId,
    Node,
    NodeType,
    Tension,
    TensionStatus,
)
from selfimprint.domain.users import Tier

_MONTH = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")
MONTH_PATTERN: Final = _MONTH.pattern
DEFAULT_SUMMARY_LANGUAGE: Final = "en"


def _month(value: str) -> str:
    if not _MONTH.fullmatch(value):
        raise ValueError("a month is written YYYY-MM")
    return value


Month = Annotated[str, AfterValidator(_month)]


class SummaryConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # Project choice: a summary the user reads in a minute; the spec (§4) sets no size. The
    # full graph is one export away (GET /v1/users/{u}/export).
    hypotheses: Annotated[int, Field(ge=0, le=100)] = 5
    significant: Annotated[int, Field(ge=0, le=100)] = 10
    assumptions: Annotated[int, Field(ge=0, le=100)] = 5
    tensions: Annotated[int, Field(ge=0, le=100)] = 5
    # Project choice: the user's language is read from this many most recent memories when the
    # profile names none (the context follows the latest message, spec §6; a summary has none).
    language_sample: Annotated[int, Field(ge=1, le=1000)] = 50


DEFAULT_SUMMARY = SummaryConfig()


class SummaryStatus(StrEnum):
    PRODUCED = "produced"
    SKIPPED = "skipped"


class SkipReason(StrEnum):
    # The graph is in warm or cold storage (spec §3.8.1): the user has been away. Bringing it
    # back for a summary nobody is there to read would undo what the tier saves.
    GRAPH_ARCHIVED = "graph_archived"


class EntryKind(StrEnum):
    HYPOTHESIS = "hypothesis"
    SIGNIFICANT = "significant"
    ASSUMPTION = "assumption"
    TENSION = "tension"


class _Value(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SummaryEntry(_Value):
    """One thing the system holds, named by the memory id the user can correct or flag."""

    kind: EntryKind
    memory_id: MemoryId
    content: str
    confidence: Annotated[float, Field(ge=0.0, le=1.0)] | None = None
    # A tension's other side (the first side is `memory_id`).
    other_id: MemoryId | None = None
    other_content: str | None = None


class SummaryCounts(_Value):
    memories: Annotated[int, Field(ge=0)]  # held at the end of the month
    added: Annotated[int, Field(ge=0)]
    forgotten: Annotated[int, Field(ge=0)] | None  # net; None without a previous summary
    active_hypotheses: Annotated[int, Field(ge=0)]
    open_tensions: Annotated[int, Field(ge=0)]


class MonthlySummary(_Value):
    user_id: MemoryId
    month: Month
    period_start: AwareDatetime
    period_end: AwareDatetime
    produced_at: AwareDatetime
    status: SummaryStatus
    skip_reason: SkipReason | None = None
    tier: Tier = Tier.HOT
    language: Annotated[str, Field(pattern=r"^[a-z]{2,3}$")]
    hypotheses: tuple[SummaryEntry, ...] = ()
    significant: tuple[SummaryEntry, ...] = ()
    assumptions: tuple[SummaryEntry, ...] = ()
    tensions: tuple[SummaryEntry, ...] = ()
    counts: SummaryCounts | None = None  # None when skipped
    text: str


def summary_id(user_id: str, month: str) -> str:
    """One summary per user and month: the store keys on it, so a rerun overwrites."""
    return f"{user_id}-{_month(month)}"


def summary_schedule_id(tenant_id: str, user_id: str) -> str:
    """The user's monthly Temporal Schedule. Tenant ids contain no '-' (workflows/ids.py), so the
    first '-' after the prefix separates the two; its runs are named after it plus a time."""
    return f"monthly-summary-{tenant_id}-{user_id}"


def covered_month(now: datetime, tz: tzinfo) -> str:
    """The month a run at `now` summarises: the one before the user's local date."""
    local = now.astimezone(tz).date()
    year, month = (local.year, local.month - 1) if local.month > 1 else (local.year - 1, 12)
    return f"{year:04d}-{month:02d}"


def month_bounds(month: str, tz: tzinfo) -> tuple[datetime, datetime]:
    """[start, end) of the month in the user's time zone."""
    match = _MONTH.fullmatch(month)
    if match is None:
        raise ValueError("a month is written YYYY-MM")
    year, number = int(match[1]), int(match[2])
    following = date(year + 1, 1, 1) if number == 12 else date(year, number + 1, 1)
    start = datetime.combine(date(year, number, 1), time(), tzinfo=tz)
    return start, datetime.combine(following, time(), tzinfo=tz)


def summary_language(
    profile_language: str | None, memories: Sequence[Node], config: SummaryConfig = DEFAULT_SUMMARY
) -> str:
    """The profile's language, else the one most of the user's recent memories are in, else
    English. A language the renderer has no words for falls back to English in `render`."""
    if profile_language:
        return profile_language
    recent = sorted(memories, key=lambda n: n.created_at, reverse=True)[: config.language_sample]
    votes = Counter(detect_language(n.content) for n in recent)
    votes.pop(UNDETERMINED, None)
    if not votes:
        return DEFAULT_SUMMARY_LANGUAGE
    return max(sorted(votes), key=lambda code: votes[code])


def _entry(kind: EntryKind, node: Node, confidence: bool = True) -> SummaryEntry:
    return SummaryEntry(
        kind=kind,
        memory_id=node.id,
        content=node.content,
        confidence=node.belief.confidence if confidence else None,
    )


def _active_hypotheses(
    nodes: dict[str, Node], hypotheses: Iterable[Hypothesis], limit: int
) -> list[SummaryEntry]:
    active = [
        nodes[h.node_id]
        for h in hypotheses
        if h.status is HypothesisStatus.ACTIVE and h.node_id in nodes
    ]
    active.sort(key=lambda n: (-n.belief.confidence, n.id))
    return [_entry(EntryKind.HYPOTHESIS, n) for n in active[:limit]]


def _open_tensions(
    nodes: dict[str, Node], tensions: Iterable[Tension], limit: int
) -> list[SummaryEntry]:
    contents = {i: n.content for i, n in nodes.items()}
    open_ = [
        (t, a, b)
        for t in tensions
        if t.status is TensionStatus.UNRESOLVED
        for a, b in [t.sides(contents)]
        if a is not None and b is not None
    ]
    open_.sort(key=lambda x: (x[0].detected_at, x[0].id), reverse=True)  # newest first
    return [
        SummaryEntry(
            kind=EntryKind.TENSION,
            memory_id=t.node_a,
            content=a,
            other_id=t.node_b,
            other_content=b,
        )
        for t, a, b in open_[:limit]
    ]


def plan_monthly_summary(
    user_id: str,
    month: str,
    tz: tzinfo,
    *,
    nodes: Sequence[Node],
    hypotheses: Sequence[Hypothesis],
    tensions: Sequence[Tension],
    produced_at: datetime,
    language: str,
    previous_total: int | None,
    config: SummaryConfig = DEFAULT_SUMMARY,
) -> MonthlySummary:
    """What the user is shown for `month`, from the graph as it is now. Memories created after
    the month (the run is on the 1st) are left out, so the counts are the month's."""
    start, end = month_bounds(month, tz)
    held = [n for n in nodes if n.created_at < end]
    by_id = {n.id: n for n in held}
    memories = [n for n in held if n.type is not NodeType.HYPOTHESIS]
    added = sum(1 for n in memories if n.created_at >= start)
    chosen_hypotheses = _active_hypotheses(by_id, hypotheses, config.hypotheses)
    # Significant: what the graph itself marks (§3.2 significant flag, pinned by the user),
    # the weightiest first.
    marked = [n for n in memories if n.significant or n.is_pinned]
    marked.sort(key=lambda n: (-n.importance, -n.belief.confidence, n.id))
    significant = [_entry(EntryKind.SIGNIFICANT, n) for n in marked[: config.significant]]
    # Accumulated assumptions: the least certain beliefs, inferences before what the user said
    # at equal confidence; a memory already listed as significant is not repeated.
    shown = {e.memory_id for e in significant}
    doubtful = [n for n in memories if n.id not in shown]
    doubtful.sort(key=lambda n: (n.belief.confidence, not n.is_inference, n.id))
    assumptions = [_entry(EntryKind.ASSUMPTION, n) for n in doubtful[: config.assumptions]]
    open_tensions = _open_tensions(by_id, tensions, config.tensions)
    forgotten = None if previous_total is None else max(0, previous_total + added - len(memories))
    counts = SummaryCounts(
        memories=len(memories),
        added=added,
        forgotten=forgotten,
        active_hypotheses=sum(
            1 for h in hypotheses if h.status is HypothesisStatus.ACTIVE and h.node_id in by_id
        ),
        # As the list shows them: a side whose memory faded (or a divergence's answer) is
        # known by the words the tension kept.
        open_tensions=sum(
            1
            for t in tensions
            if t.status is TensionStatus.UNRESOLVED
            and None not in t.sides({i: n.content for i, n in by_id.items()})
        ),
    )
    draft = MonthlySummary(
        user_id=user_id,
        month=month,
        period_start=start,
        period_end=end,
        produced_at=produced_at,
        status=SummaryStatus.PRODUCED,
        language=language,
        hypotheses=tuple(chosen_hypotheses),
        significant=tuple(significant),
        assumptions=tuple(assumptions),
        tensions=tuple(open_tensions),
        counts=counts,
        text="-",
    )
    return draft.model_copy(update={"text": render_summary(draft)})


def skipped_summary(
    user_id: str,
    month: str,
    tz: tzinfo,
    *,
    tier: Tier,
    produced_at: datetime,
    language: str,
) -> MonthlySummary:
    """The month's summary of a user whose graph is archived: it says so, and why."""
    start, end = month_bounds(month, tz)
    draft = MonthlySummary(
        user_id=user_id,
        month=month,
        period_start=start,
        period_end=end,
        produced_at=produced_at,
        status=SummaryStatus.SKIPPED,
        skip_reason=SkipReason.GRAPH_ARCHIVED,
        tier=tier,
        language=language,
        text="-",
    )
    return draft.model_copy(update={"text": render_summary(draft)})


def _quotes(entry: SummaryEntry, ids: Collection[str], topic: str | None) -> bool:
    """Whether the entry names one of these memories or, given a topic, says it
    (case-insensitive, as a forget matches memories' content)."""
    if entry.memory_id in ids or (entry.other_id is not None and entry.other_id in ids):
        return True
    if topic is None:
        return False
    needle = topic.lower()
    return needle in entry.content.lower() or needle in (entry.other_content or "").lower()


def without_entries(
    summary: MonthlySummary, ids: Collection[str], topic: str | None = None
) -> MonthlySummary:
    """The summary less every entry that quotes a memory the user deleted or forgot (by id, or
    by the forgotten topic), its text rendered again in its language: a summary produced before
    must not keep the user's words. The counts stay (numbers, no words); a shortened list is not
    refilled (what came next that month is not known any more). The same object when nothing
    is quoted."""
    kept = {
        field: tuple(e for e in entries if not _quotes(e, ids, topic))
        for field, entries in (
            ("hypotheses", summary.hypotheses),
            ("significant", summary.significant),
            ("assumptions", summary.assumptions),
            ("tensions", summary.tensions),
        )
    }
    if all(len(kept[f]) == len(getattr(summary, f)) for f in kept):
        return summary
    draft = summary.model_copy(update=kept)
    return draft.model_copy(update={"text": render_summary(draft)})


# --- rendering -----------------------------------------------------------------------------------

_WORDS: Final[dict[str, dict[str, str]]] = {
    "en": {
        "title": "What I remember about you: {month}",
        "counts": "{memories} memories; {added} added this month; {forgotten} forgotten.",
        "unknown": "unknown",
        "hypotheses": "Hypotheses I am testing",
        "significant": "What matters most",
        "assumptions": "What I am least sure of",
        "tensions": "Things that do not fit together yet",
        "versus": "versus",
        "none": "(nothing)",
        "confidence": "confidence",
        "footer": "Correct, delete or flag any of these as wrong: each line names its memory id.",
        "skipped": "No summary for {month}: your memory is archived while you are away ({tier}). "
        "It comes back when you return.",
    },
    "ru": {
        "title": "Что я о вас помню: {month}",
        "counts": "Воспоминаний: {memories}; добавлено за месяц: {added}; забыто: {forgotten}.",
        "unknown": "неизвестно",
        "hypotheses": "Гипотезы, которые я проверяю",
        "significant": "Самое важное",
        "assumptions": "В чём я меньше всего уверен",
        "tensions": "Что пока не сходится",
        "versus": "против",
        "none": "(ничего)",
        "confidence": "уверенность",
        "footer": "Любую запись можно исправить, удалить или отметить как неверную: "
        "у каждой строки есть id воспоминания.",
        "skipped": "Сводки за {month} нет: пока вас не было, память перенесена в архив ({tier}). "
        "Она вернётся, когда вы вернётесь.",
    },
}


def _line(entry: SummaryEntry, words: dict[str, str]) -> str:
    if entry.kind is EntryKind.TENSION:
        return (
            f"- [{entry.memory_id}] {entry.content} {words['versus']} "
            f"[{entry.other_id}] {entry.other_content}"
        )
    confidence = (
        f" ({words['confidence']} {entry.confidence:.2f})" if entry.confidence is not None else ""
    )
    return f"- [{entry.memory_id}] {entry.content}{confidence}"


def render_summary(summary: MonthlySummary) -> str:
    """Plain text in the summary's language (English for a language without words here)."""
    words = _WORDS.get(summary.language, _WORDS[DEFAULT_SUMMARY_LANGUAGE])
    if summary.status is SummaryStatus.SKIPPED or summary.counts is None:
        return words["skipped"].format(month=summary.month, tier=summary.tier.value)
    counts = summary.counts
    forgotten = words["unknown"] if counts.forgotten is None else str(counts.forgotten)
    lines = [
        words["title"].format(month=summary.month),
        words["counts"].format(memories=counts.memories, added=counts.added, forgotten=forgotten),
    ]
    for key, entries in (
        ("hypotheses", summary.hypotheses),
        ("significant", summary.significant),
        ("assumptions", summary.assumptions),
        ("tensions", summary.tensions),
    ):
        lines += ["", f"{words[key]}:"]
        lines += [_line(e, words) for e in entries] or [words["none"]]
    lines += ["", words["footer"]]
    return "\n".join(lines)
