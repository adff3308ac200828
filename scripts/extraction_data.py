"""The labelled messages of tests/data/extraction/ (written for this project, EN and RU), shared by
scripts/train_extraction_head.py (train split only) and scripts/eval_extraction.py."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from selfimprint.domain.ingestion.extraction import RecentMemory
from selfimprint.domain.messages import Message, Role
from selfimprint.domain.models import NodeType

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "extraction" / "messages.jsonl"
# The persona corpus (issue 34): one file per writer, split by persona in splits.json.
PERSONAS = DATA.parent / "personas"
PERSONA_SPLITS = ("train", "dev", "test")


@dataclass(frozen=True)
class Person:
    name: str
    relation: str | None


@dataclass(frozen=True)
class Labelled:
    id: str
    lang: str
    split: str
    sent_at: datetime
    text: str
    recent: tuple[RecentMemory, ...]
    type: str
    valence: str | None
    dates: frozenset[str]
    people: tuple[Person, ...]
    cause: bool
    contradicts: frozenset[str]
    persona: str = ""

    @property
    def message(self) -> Message:
        return Message(id=self.id, role=Role.USER, sent_at=self.sent_at, text=self.text)


def persona_splits() -> dict[str, str]:
    """persona id -> its split (train, dev or test), from personas/splits.json."""
    raw: dict[str, list[str]] = json.loads((PERSONAS / "splits.json").read_text())
    return {persona: split for split in PERSONA_SPLITS for persona in raw[split]}


def load_personas() -> list[Labelled]:
    """Every message of the persona corpus, its split the split of its writer."""
    splits = persona_splits()
    out: list[Labelled] = []
    for persona, split in sorted(splits.items()):
        out += load(PERSONAS / f"{persona}.jsonl", split=split)
    return out


def load(path: Path = DATA, *, split: str | None = None) -> list[Labelled]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        expect = row["expect"]
        out.append(
            Labelled(
                id=row["id"],
                lang=row["lang"],
                split=split or row["split"],
                persona=row.get("persona", ""),
                sent_at=datetime.fromisoformat(row["sent_at"]),
                text=row["text"],
                recent=tuple(
                    RecentMemory(id=r["id"], type=NodeType(r["type"]), content=r["content"])
                    for r in row.get("recent", [])
                ),
                type=expect["type"],
                valence=expect["valence"],
                dates=frozenset(expect["dates"]),
                people=tuple(Person(p["name"], p["relation"]) for p in expect["people"]),
                cause=bool(expect["cause"]),
                contradicts=frozenset(expect["contradicts"]),
            )
        )
    return out
