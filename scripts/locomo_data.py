"""Reading a LoCoMo file (the `locomo10.json` format of snap-research/LoCoMo) for the benchmark.

The file is read from its path at run time and never copied: its licence (CC BY-NC 4.0) keeps it
out of the repository. Only the conversation turns, their session dates, the questions, their
categories and their evidence turn ids are read; the answers are never read.

Message text: each turn becomes "<speaker>: <text>", with the turn's image caption appended as
" [shared a photo: <caption>]" when the turn carries one (the LoCoMo authors' convention of giving
the text models the caption of shared images). Both speakers' turns are `user` messages of the one
memory user: the memory keeps what either person said.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

SCORED_CATEGORIES = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

_SESSION_KEY = re.compile(r"^session_(\d+)$")
_SESSION_TIME = "%I:%M %p on %d %B, %Y"
_UNSAFE_ID_CHARS = re.compile(r"[^A-Za-z0-9_.:\-]")
# "D8:6", also the file's few irregular forms: "D:11:26" and "D8:6; D9:17".
_EVIDENCE_ID = re.compile(r"D:?(\d+):(\d+)")


@dataclass(frozen=True)
class Turn:
    id: str  # the dia_id, made id-safe: the message id
    dia_id: str
    session: int
    text: str  # the message text: "<speaker>: <text>[ [shared a photo: ...]]"
    sent_at: datetime


@dataclass(frozen=True)
class Session:
    number: int
    started_at: datetime
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Question:
    index: int  # position in the file's qa list
    category: int
    text: str
    evidence: tuple[str, ...]  # message ids of the evidence turns present in the conversation
    dropped_evidence: int  # ids that could not be parsed or name no turn of the conversation


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]

    @property
    def turns(self) -> tuple[Turn, ...]:
        return tuple(t for s in self.sessions for t in s.turns)


def safe_id(dia_id: str) -> str:
    """A message id the API accepts ([A-Za-z0-9_.:-]); LoCoMo's "D1:3" passes unchanged."""
    return _UNSAFE_ID_CHARS.sub("_", dia_id.strip())


def parse_session_time(value: str) -> datetime:
    """ "1:56 pm on 8 May, 2023" -> 2023-05-08 13:56 UTC (the file gives no time zone)."""
    return datetime.strptime(value.strip(), _SESSION_TIME).replace(tzinfo=UTC)


def parse_evidence(raw: str) -> list[str]:
    """Canonical evidence ids ("D8:6") in a raw evidence string; [] when there is none."""
    return [f"D{m.group(1)}:{m.group(2)}" for m in _EVIDENCE_ID.finditer(raw)]


def message_text(turn: dict[str, Any], *, captions: bool) -> str:
    text = " ".join(str(turn["text"]).split())
    caption = turn.get("blip_caption")
    if captions and isinstance(caption, str) and caption.strip():
        text = f"{text} [shared a photo: {' '.join(caption.split())}]"
    return f"{turn['speaker']}: {text}"


def _sessions(raw: dict[str, Any], *, captions: bool) -> tuple[Session, ...]:
    numbers = sorted(int(m.group(1)) for k in raw if (m := _SESSION_KEY.match(k)))
    sessions = []
    for number in numbers:
        started = parse_session_time(raw[f"session_{number}_date_time"])
        turns = tuple(
            Turn(
                id=safe_id(turn["dia_id"]),
                dia_id=turn["dia_id"],
                session=number,
                text=message_text(turn, captions=captions),
                # Successive turns one second apart keep their order inside the session.
                sent_at=started + timedelta(seconds=i),
            )
            for i, turn in enumerate(raw[f"session_{number}"])
        )
        sessions.append(Session(number=number, started_at=started, turns=turns))
    return tuple(sessions)


def _questions(qa: list[dict[str, Any]], known_ids: set[str]) -> tuple[Question, ...]:
    questions = []
    for index, item in enumerate(qa):
        category = int(item["category"])
        if category not in SCORED_CATEGORIES:
            continue
        parsed = [e for raw in item.get("evidence", []) for e in parse_evidence(str(raw))]
        raw_count = max(len(item.get("evidence", [])), len(parsed))
        kept = tuple(dict.fromkeys(safe_id(e) for e in parsed if safe_id(e) in known_ids))
        questions.append(
            Question(
                index=index,
                category=category,
                text=str(item["question"]),
                evidence=kept,
                dropped_evidence=raw_count - len(kept),
            )
        )
    return tuple(questions)


def load_conversations(path: Path, *, captions: bool = True) -> list[Conversation]:
    data = json.loads(path.read_text(encoding="utf-8"))
    conversations = []
    for item in data:
        sessions = _sessions(item["conversation"], captions=captions)
        known = {t.id for s in sessions for t in s.turns}
        conversations.append(
            Conversation(
                sample_id=str(item["sample_id"]),
                sessions=sessions,
                questions=_questions(item["qa"], known),
            )
        )
    return conversations


def truncated(conversation: Conversation, max_turns: int | None) -> Conversation:
    """The conversation's first `max_turns` turns (whole sessions, then part of one)."""
    if max_turns is None:
        return conversation
    sessions, left = [], max_turns
    for session in conversation.sessions:
        if left <= 0:
            break
        sessions.append(Session(session.number, session.started_at, session.turns[:left]))
        left -= len(session.turns)
    return Conversation(conversation.sample_id, tuple(sessions), conversation.questions)


def select_conversations(conversations: list[Conversation], spec: str | None) -> list[Conversation]:
    """`spec`: None (all), a count ("2": the first two), or sample ids ("conv-26,conv-41")."""
    if spec is None:
        return conversations
    if spec.isdigit():
        return conversations[: int(spec)]
    wanted = [s.strip() for s in spec.split(",") if s.strip()]
    by_id = {c.sample_id: c for c in conversations}
    missing = [w for w in wanted if w not in by_id]
    if missing:
        raise SystemExit(f"unknown conversation ids: {', '.join(missing)}")
    return [by_id[w] for w in wanted]
