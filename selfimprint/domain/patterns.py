"""Pattern detection, connection inference and importance recalibration (spec §3.5.1, ops 1, 2, 4).

All three are computed from the graph alone, deterministically, so that a retried activity plans
the same writes. Topics are content words (casefolded, >= 4 letters, stop words dropped; English
and Russian, as users write both). A mention is a source message of a memory that holds the
topic (a memory without sources counts once).

- recurring topic: >= `min_mentions` mentions in the window (spec: "three or more times in a week");
- time of day / day of week: >= `min_mentions` memories of a topic and >= `concentration` of them in
  one local bucket (night, morning, afternoon, evening) or on one weekday;
- emotional trend: >= `min_mentions` emotional notes, and the mean valence (+1/-1) of the later
  half differs from the earlier half by >= `trend_delta`;
- co-occurrence: two recurring topics whose memories share a session (a source message, or
  creation within `session_gap`) in >= `min_cooccurrences` sessions; strength = shared sessions /
  sessions of the rarer topic. Connection inference consumes these.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Annotated
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.models import Edge, EdgeType, MemoryId, Node, NodeType, Valence


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PatternConfig(_Frozen):
    # §3.5.1: "scans the last seven days".
    window: timedelta = timedelta(days=7)
    # §3.5.1: "topics mentioned three or more times in a week".
    min_mentions: Annotated[int, Field(ge=1)] = 3
    # Not in the spec: share of a topic's memories in one bucket that makes a correlation.
    concentration: Annotated[float, Field(gt=0.0, le=1.0)] = 0.6
    # Not in the spec: valence shift (mean of +1/-1) between halves of the window.
    trend_delta: Annotated[float, Field(gt=0.0, le=2.0)] = 0.5
    # Not in the spec: memories created this close together belong to one session (§3.5 uses
    # 30 minutes of silence to end a session).
    session_gap: timedelta = timedelta(minutes=30)
    # Not in the spec: two topics sharing one session is chance; two sessions make a pattern.
    min_cooccurrences: Annotated[int, Field(ge=1)] = 2
    # Not in the spec: shorter words are mostly function words in both languages.
    min_topic_chars: Annotated[int, Field(ge=2)] = 4
    # §3.5.1: inferred edges "start at moderate confidence (0.4–0.6)".
    inferred_min_confidence: Annotated[float, Field(ge=0.0, le=1.0)] = 0.4
    inferred_max_confidence: Annotated[float, Field(ge=0.0, le=1.0)] = 0.6
    # Not in the spec: a cap per pass, so one noisy week cannot flood the graph.
    max_patterns: Annotated[int, Field(ge=1)] = 50
    # Importance recalibration: boost for memories central to a pattern, multiplier for those
    # that fell out of every pattern (spec gives no numbers).
    central_boost: Annotated[float, Field(ge=0.0, le=1.0)] = 0.1
    drift_multiplier: Annotated[float, Field(gt=0.0, le=1.0)] = 0.85


DEFAULT_PATTERNS = PatternConfig()


class PatternKind(StrEnum):
    RECURRING_TOPIC = "recurring_topic"
    TIME_OF_DAY = "time_of_day"
    DAY_OF_WEEK = "day_of_week"
    EMOTIONAL_TREND = "emotional_trend"
    CO_OCCURRENCE = "co_occurrence"


class Pattern(_Frozen):
    id: MemoryId
    kind: PatternKind
    key: str  # topic, "topic@bucket", "topicA+topicB", "negative"/"positive"
    description: str
    strength: Annotated[float, Field(ge=0.0, le=1.0)]
    mentions: Annotated[int, Field(ge=0)]
    node_ids: tuple[MemoryId, ...]
    sources: tuple[MemoryId, ...]  # the messages behind it: every pattern can say why it exists


_STOP = frozenset(
    """
    about after again also been before being could does doing from have having here into just
    like more most much must only other over same some such than that their them then there these
    they this those through very want were what when where which while will with would your yours
    really today tomorrow yesterday because still think thing things going getting make made
    это этот эта эти того тому чтобы когда если было были была будет меня мной тебя себя очень
    сегодня завтра вчера потому тоже только может можно нужно хочу хотя где как что кто
    """.split()
)
_WORD = re.compile(r"\w+", re.UNICODE)
_BUCKETS = ((0, "night"), (6, "morning"), (12, "afternoon"), (18, "evening"))
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def pattern_id(user_id: str, kind: PatternKind, key: str) -> str:
    digest = hashlib.sha256(f"{user_id}\x1f{kind.value}\x1f{key}".encode()).hexdigest()[:24]
    return f"pat-{digest}"


def topics(text: str, config: PatternConfig = DEFAULT_PATTERNS) -> frozenset[str]:
    words = (w.casefold() for w in _WORD.findall(text))
    return frozenset(
        w for w in words if len(w) >= config.min_topic_chars and not w.isdigit() and w not in _STOP
    )


def _touched(node: Node) -> datetime:
    return (node.last_reinforced_at or node.created_at).astimezone(UTC)


def _mentions(node: Node) -> int:
    return max(1, len(node.sources))


def _bucket(at: datetime, tz: ZoneInfo) -> str:
    hour = at.astimezone(tz).hour
    return [name for start, name in _BUCKETS if hour >= start][-1]


def recent_memories(
    nodes: Iterable[Node], now: datetime, config: PatternConfig = DEFAULT_PATTERNS
) -> list[Node]:
    """Observed memories touched in the window, oldest first (hypotheses are not evidence)."""
    since = now.astimezone(UTC) - config.window
    chosen = [n for n in nodes if n.type is not NodeType.HYPOTHESIS and _touched(n) >= since]
    return sorted(chosen, key=lambda n: (n.created_at, n.id))


def _sessions(nodes: Sequence[Node], gap: timedelta) -> dict[str, int]:
    """Node id -> session number: shared sources or creation within `gap` join a session."""
    parent: dict[str, str] = {n.id: n.id for n in nodes}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    by_source: dict[str, str] = {}
    ordered = sorted(nodes, key=lambda n: (n.created_at, n.id))
    for prev, cur in zip(ordered, ordered[1:], strict=False):
        if cur.created_at - prev.created_at <= gap:
            union(prev.id, cur.id)
    for node in ordered:
        for source in node.sources:
            if source in by_source:
                union(by_source[source], node.id)
            else:
                by_source[source] = node.id
    roots = sorted({find(n.id) for n in nodes})
    number = {root: i for i, root in enumerate(roots)}
    return {n.id: number[find(n.id)] for n in nodes}


def _pattern(
    user_id: str,
    kind: PatternKind,
    key: str,
    description: str,
    strength: float,
    members: Sequence[Node],
) -> Pattern:
    return Pattern(
        id=pattern_id(user_id, kind, key),
        kind=kind,
        key=key,
        description=description,
        strength=round(min(1.0, max(0.0, strength)), 4),
        mentions=sum(_mentions(n) for n in members),
        node_ids=tuple(sorted({n.id for n in members})),
        sources=tuple(sorted({s for n in members for s in n.sources})),
    )


def detect_patterns(
    user_id: str,
    nodes: Iterable[Node],
    now: datetime,
    tz: ZoneInfo,
    config: PatternConfig = DEFAULT_PATTERNS,
) -> tuple[Pattern, ...]:
    """Operation 1: the patterns of the last window, strongest first."""
    recent = recent_memories(nodes, now, config)
    by_topic: dict[str, list[Node]] = defaultdict(list)
    for node in recent:
        for topic in topics(node.content, config):
            by_topic[topic].append(node)
    recurring = {
        t: ms for t, ms in by_topic.items() if sum(_mentions(n) for n in ms) >= config.min_mentions
    }
    found: list[Pattern] = []
    for topic, members in sorted(recurring.items()):
        mentions = sum(_mentions(n) for n in members)
        found.append(
            _pattern(
                user_id,
                PatternKind.RECURRING_TOPIC,
                topic,
                f"'{topic}' mentioned {mentions} times in {config.window.days} days",
                min(1.0, mentions / (2 * config.min_mentions)),
                members,
            )
        )
        if len(members) < config.min_mentions:
            continue
        for kind in (PatternKind.TIME_OF_DAY, PatternKind.DAY_OF_WEEK):
            counts: dict[str, list[Node]] = defaultdict(list)
            for n in members:
                local = n.created_at.astimezone(tz)
                label = (
                    _bucket(local, tz)
                    if kind is PatternKind.TIME_OF_DAY
                    else _WEEKDAYS[local.weekday()]
                )
                counts[label].append(n)
            label, hits = max(counts.items(), key=lambda kv: (len(kv[1]), kv[0]))
            share = len(hits) / len(members)
            if share >= config.concentration:
                found.append(
                    _pattern(
                        user_id,
                        kind,
                        f"{topic}@{label}",
                        f"'{topic}' comes up mostly in the {label}"
                        if kind is PatternKind.TIME_OF_DAY
                        else f"'{topic}' comes up mostly on {label}",
                        share,
                        hits,
                    )
                )
    found.extend(_emotional_trend(user_id, recent, config))
    found.extend(_cooccurrences(user_id, recurring, recent, config))
    found.sort(key=lambda p: (-p.strength, p.kind.value, p.key))
    return tuple(found[: config.max_patterns])


def _emotional_trend(user_id: str, recent: Sequence[Node], config: PatternConfig) -> list[Pattern]:
    notes = [n for n in recent if n.type is NodeType.EMOTIONAL_NOTE]
    if len(notes) < config.min_mentions:
        return []
    half = len(notes) // 2

    def mean(ns: Sequence[Node]) -> float:
        return sum(1 if n.valence is Valence.POSITIVE else -1 for n in ns) / len(ns)

    delta = mean(notes[len(notes) - half :]) - mean(notes[:half])
    if abs(delta) < config.trend_delta:
        return []
    direction = "positive" if delta > 0 else "negative"
    return [
        _pattern(
            user_id,
            PatternKind.EMOTIONAL_TREND,
            direction,
            f"emotional notes are turning {direction} over {config.window.days} days",
            abs(delta) / 2,
            notes,
        )
    ]


def _cooccurrences(
    user_id: str,
    recurring: dict[str, list[Node]],
    recent: Sequence[Node],
    config: PatternConfig,
) -> list[Pattern]:
    session_of = _sessions(recent, config.session_gap)
    sessions = {t: {session_of[n.id] for n in ms} for t, ms in recurring.items()}
    names = sorted(recurring)
    found = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            ids_a = {n.id for n in recurring[a]}
            if ids_a == {n.id for n in recurring[b]}:
                continue  # two words of the same memories are one topic, not a correlation
            shared = sessions[a] & sessions[b]
            if len(shared) < config.min_cooccurrences:
                continue
            strength = len(shared) / min(len(sessions[a]), len(sessions[b]))
            members = [n for n in recurring[a] + recurring[b] if session_of[n.id] in shared]
            found.append(
                _pattern(
                    user_id,
                    PatternKind.CO_OCCURRENCE,
                    f"{a}+{b}",
                    f"'{a}' and '{b}' come up together in {len(shared)} sessions",
                    strength,
                    members,
                )
            )
    return found


# --- connection inference ------------------------------------------------------------------


def _edge_type(a: Node, b: Node) -> tuple[Node, Node, EdgeType]:
    """(source, target, type) by rule: a feeling is caused by what it co-occurs with; two events
    follow each other in time; anything else is associated."""
    if a.type is NodeType.EMOTIONAL_NOTE and b.type is not NodeType.EMOTIONAL_NOTE:
        return a, b, EdgeType.CAUSED_BY
    if b.type is NodeType.EMOTIONAL_NOTE and a.type is not NodeType.EMOTIONAL_NOTE:
        return b, a, EdgeType.CAUSED_BY
    if a.type is NodeType.EVENT and b.type is NodeType.EVENT:
        first, second = sorted((a, b), key=lambda n: (n.created_at, n.id))
        return first, second, EdgeType.FOLLOWED_BY
    first, second = sorted((a, b), key=lambda n: n.id)
    return first, second, EdgeType.ASSOCIATED_WITH


def infer_connections(
    patterns: Iterable[Pattern],
    nodes: Iterable[Node],
    edges: Iterable[Edge],
    now: datetime,
    config: PatternConfig = DEFAULT_PATTERNS,
) -> tuple[Edge, ...]:
    """Operation 2: one inferred edge per co-occurrence between memories of the two topics that
    share a session and are not yet connected (in either direction, by any type)."""
    by_id = {n.id: n for n in nodes}
    connected = {frozenset((e.source_id, e.target_id)) for e in edges}
    span = config.inferred_max_confidence - config.inferred_min_confidence
    session_of = _sessions(
        [by_id[i] for p in patterns for i in p.node_ids if i in by_id], config.session_gap
    )
    made: dict[frozenset[str], Edge] = {}
    for pattern in sorted(patterns, key=lambda p: p.id):
        if pattern.kind is not PatternKind.CO_OCCURRENCE:
            continue
        topic_a, topic_b = pattern.key.split("+", 1)
        members = [by_id[i] for i in pattern.node_ids if i in by_id]
        side_a = [n for n in members if topic_a in topics(n.content, config)]
        side_b = [n for n in members if topic_b in topics(n.content, config)]
        for a in side_a:
            for b in side_b:
                pair = frozenset((a.id, b.id))
                if a.id == b.id or pair in connected or pair in made:
                    continue
                if session_of.get(a.id) != session_of.get(b.id):
                    continue
                source, target, type_ = _edge_type(a, b)
                made[pair] = Edge(
                    source_id=source.id,
                    target_id=target.id,
                    type=type_,
                    confidence=round(config.inferred_min_confidence + span * pattern.strength, 4),
                    is_inferred=True,
                    created_at=now,
                )
    return tuple(sorted(made.values(), key=lambda e: (e.source_id, e.target_id, e.type.value)))


# --- importance recalibration ---------------------------------------------------------------


class Recalibration(_Frozen):
    central: tuple[MemoryId, ...]  # boosted
    drifted: tuple[MemoryId, ...]  # temporary decay multiplier


def recalibration_targets(
    patterns: Iterable[Pattern],
    inferred: Iterable[Edge],
    previous_pattern_nodes: Iterable[str],
) -> Recalibration:
    """Operation 4: memories that are now in a pattern or gained an inferred edge are central;
    memories that were in an earlier pattern and are in none now have drifted."""
    central = {i for p in patterns for i in p.node_ids}
    central |= {i for e in inferred for i in (e.source_id, e.target_id)}
    drifted = set(previous_pattern_nodes) - central
    return Recalibration(central=tuple(sorted(central)), drifted=tuple(sorted(drifted)))
