"""The cue lists of `data/cues.toml`, compiled once per language.

The structured extractor reads phrasings (open loops, feelings, occasions, causal connectives,
the claims of a slot) from data so that a new phrasing is an edit of the TOML file and a labelled
example, not a code change.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from selfimprint.domain.structured.slots_model import Slot

_FLAGS = re.IGNORECASE | re.UNICODE


def _cased(pattern: str) -> str:
    # Patterns match case-insensitively, but a capital letter class means a name: "at Initech",
    # not "at home".
    return pattern.replace("[A-Z]", "(?-i:[A-Z])").replace("[А-Я]", "(?-i:[А-ЯЁ])")


def _one(pattern: str, flags: int = _FLAGS) -> re.Pattern[str]:
    return re.compile(_cased(pattern), flags)


def _any(patterns: list[str], flags: int = _FLAGS) -> re.Pattern[str]:
    return _one("|".join(f"(?:{p})" for p in patterns), flags)


@dataclass(frozen=True)
class SlotCues:
    holds: tuple[re.Pattern[str], ...]
    ends: tuple[re.Pattern[str], ...]
    change: re.Pattern[str]


@dataclass(frozen=True)
class LanguageCues:
    language: str
    open_loop: re.Pattern[str]
    emotion: re.Pattern[str]
    event: tuple[re.Pattern[str], ...]  # occasions, time words, past-event verbs
    person: re.Pattern[str]  # case-sensitive: a capitalised name
    small_talk: re.Pattern[str]
    self_reference: re.Pattern[str]
    cause_after: re.Pattern[str]
    cause_before: re.Pattern[str]
    after: re.Pattern[str]  # "after the interview", "после собеседования"
    past: re.Pattern[str]
    not_names: frozenset[str]
    name_before: re.Pattern[str] | None
    name_after: re.Pattern[str] | None
    relations: dict[str, str]  # relation word (EN surface, RU dictionary form) -> relation
    relation_words: re.Pattern[str]
    slots: dict[Slot, SlotCues]
    change_strong: re.Pattern[str]  # "anymore", "cancelled", "больше не"
    change_weak: re.Pattern[str]  # "now", "again", "теперь": a change only with a flipped negation
    hedge: re.Pattern[str]  # "maybe", "может": doubt, not a change


def _relations(raw: dict[str, list[str]]) -> dict[str, str]:
    return {word: relation for relation, words in raw.items() for word in words}


def _compile(language: str, raw: dict[str, Any], relations: dict[str, str]) -> LanguageCues:
    by_length = sorted(relations, key=len, reverse=True)
    rel = "(?:" + "|".join(re.escape(w) for w in by_length) + ")"
    slots = raw["slots"]
    return LanguageCues(
        language=language,
        open_loop=_any(raw["open_loop"]),
        emotion=_any(raw["emotion"]),
        event=tuple(_one(p) for p in raw["event"]),
        person=_any([p.replace("{rel}", rel) for p in raw["person"]], re.UNICODE),
        small_talk=_any(raw["small_talk"]),
        self_reference=_one(raw["self_reference"]),
        cause_after=_any(raw["cause_after"]),
        cause_before=_any(raw["cause_before"]),
        after=_one(raw["after"]),
        past=_one(raw["past"]),
        not_names=frozenset(raw["not_names"]),
        name_before=_one(raw["name_before"]) if "name_before" in raw else None,
        name_after=_one(raw["name_after"]) if "name_after" in raw else None,
        relations=relations,
        relation_words=re.compile(rf"\b{rel}\b", _FLAGS),
        slots={
            slot: SlotCues(
                holds=tuple(_one(p) for p in slots[f"{slot.value}_holds"]),
                ends=tuple(_one(p) for p in slots[f"{slot.value}_ends"]),
                change=_one(slots.get(f"{slot.value}_change", r"(?!)")),
            )
            for slot in Slot
        },
        change_strong=_one(slots["change_strong"]),
        change_weak=_one(slots["change_weak"]),
        hedge=_one(slots["hedge"]),
    )


@cache
def cues(language: str) -> LanguageCues:
    """The cues of a language; English for any language without its own."""
    text = resources.files("selfimprint.domain.structured").joinpath("data/cues.toml").read_text()
    data = tomllib.loads(text)
    code = language if language in data and language != "relations" else "en"
    return _compile(code, data[code], _relations(data["relations"][code]))


def normalise(text: str) -> str:
    """What cues are matched on: curly apostrophes straightened, "ё" read as "е"."""
    return text.replace("’", "'").replace("‘", "'").replace("ё", "е").replace("Ё", "Е")
