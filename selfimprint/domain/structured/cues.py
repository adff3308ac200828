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
from selfimprint.domain.terms import stem

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
    now: tuple[re.Pattern[str], ...] = ()  # holds now, in the first person: replaces any other
    other: tuple[re.Pattern[str], ...] = ()  # holds a new value left unnamed ("someone new")
    moved: tuple[re.Pattern[str], ...] = ()  # the user's move, done ("got the keys", "ПЕРЕЕХАЛИ")


@dataclass(frozen=True)
class HabitCues:
    name: str
    does: re.Pattern[str]  # what doing it looks like ("meat", "smoking")
    without: re.Pattern[str]  # what says it is not done ("vegetarian", "sober")


@dataclass(frozen=True)
class LanguageCues:
    language: str
    open_loop: re.Pattern[str]
    emotion: re.Pattern[str]
    event: tuple[re.Pattern[str], ...]  # occasions, time words, past-event verbs
    person: re.Pattern[str]  # case-sensitive: a capitalised name
    small_talk: re.Pattern[str]
    self_reference: re.Pattern[str]
    topic_shift: re.Pattern[str]  # "BTW", "кстати" opening a sentence: another topic starts
    cause_after: re.Pattern[str]
    cause_before: re.Pattern[str]
    after: re.Pattern[str]  # "after the interview", "после собеседования"
    past: re.Pattern[str]
    future: re.Pattern[str]  # a plan or an obligation: outweighs a past marker in its clause
    not_names: frozenset[str]
    name_before: re.Pattern[str] | None
    name_after: re.Pattern[str] | None
    relations: dict[str, str]  # relation word (EN surface, RU dictionary form) -> relation
    relation_words: re.Pattern[str]
    slots: dict[Slot, SlotCues]
    change_strong: re.Pattern[str]  # "anymore", "cancelled", "больше не"
    change_weak: re.Pattern[str]  # "now", "again", "теперь": a change only with a flipped negation
    scope: re.Pattern[str]  # "nights", "по выходным": a change of one part of a job or home
    hedge: re.Pattern[str]  # "maybe", "может": doubt, not a change
    not_negations: re.Pattern[str]  # "can't wait": a negation that negates nothing
    resolve: re.Pattern[str]  # "never give up": a negated giving-up, the thing goes on
    pending: re.Pattern[str]  # "yet", "пока не": a negation of what is still to do
    advice: re.Pattern[str]  # "don't be afraid to ...": said to the other person
    light: frozenset[str]  # stems of "make", "go", "time": shared, they name no subject
    another: re.Pattern[str]  # "also", "ещё": one more of a kind, not the same one moved
    plan_when: re.Pattern[str]  # "this year", "в этом году": when a plan is, not what
    plan_filler: re.Pattern[str]  # "doing", "after all": no detail of a negated plan
    negation_detail: re.Pattern[str]  # "with", "by": after "not", a detail is denied
    # "cancelled", "'s off", "перенесли", "не едем": words only a plan's change is said in
    plan_changed: re.Pattern[str]
    someone_else: re.Pattern[str]  # "my sister", "Денис" right before a claim: not the user's
    first_person: re.Pattern[str]  # "I", "me", "мы": the user beside them
    habits: tuple[HabitCues, ...]
    habit_negative: re.Pattern[str]  # "not", "quit", "hate": the clause does not do the habit
    habit_change: re.Pattern[str]  # "again", "anymore", "бросил": the habit changed
    habit_lapse: re.Pattern[str]  # "had a vape", "выпила": done once after giving it up
    habit_lapse_not: re.Pattern[str]  # "wanted", "чуть не": only wanted or nearly done
    # "caved", "сорвалась": the message owns up to a relapse, whichever clause names the habit
    habit_relapse: re.Pattern[str]
    # "опять бросил", "quit again": a habit given up once more, whichever clause names it
    habit_quit_again: re.Pattern[str]
    # "сорвался." opening the message: a relapse owned up to, of whichever habit was given up
    habit_relapse_owned: re.Pattern[str]


def _relations(raw: dict[str, list[str]]) -> dict[str, str]:
    return {word: relation for relation, words in raw.items() for word in words}


def _filled(patterns: list[str], words: dict[str, str]) -> list[str]:
    out = []
    for pattern in patterns:
        for name, alternatives in words.items():
            pattern = pattern.replace("{" + name + "}", f"(?:{alternatives})")
        out.append(pattern)
    return out


def _compile(
    language: str, raw: dict[str, Any], relations: dict[str, str], words: dict[str, str]
) -> LanguageCues:
    by_length = sorted(relations, key=len, reverse=True)
    rel = "(?:" + "|".join(re.escape(w) for w in by_length) + ")"
    slots = raw["slots"]
    habits = raw["habits"]

    def patterns(key: str) -> tuple[re.Pattern[str], ...]:
        return tuple(_one(p) for p in _filled(slots.get(key, []), words))

    return LanguageCues(
        language=language,
        open_loop=_any(raw["open_loop"]),
        emotion=_any(raw["emotion"]),
        event=tuple(_one(p) for p in raw["event"]),
        person=_any([p.replace("{rel}", rel) for p in raw["person"]], re.UNICODE),
        small_talk=_any(raw["small_talk"]),
        self_reference=_one(raw["self_reference"]),
        topic_shift=_one(raw["topic_shift"]),
        cause_after=_any(raw["cause_after"]),
        cause_before=_any(raw["cause_before"]),
        after=_one(raw["after"]),
        past=_one(raw["past"]),
        future=_one(raw["future"]),
        not_names=frozenset(raw["not_names"]),
        name_before=_one(raw["name_before"]) if "name_before" in raw else None,
        name_after=_one(raw["name_after"]) if "name_after" in raw else None,
        relations=relations,
        relation_words=re.compile(rf"\b{rel}\b", _FLAGS),
        slots={
            slot: SlotCues(
                holds=patterns(f"{slot.value}_holds"),
                ends=patterns(f"{slot.value}_ends"),
                change=_one(slots.get(f"{slot.value}_change", r"(?!)")),
                now=patterns(f"{slot.value}_now"),
                other=patterns(f"{slot.value}_other"),
                moved=patterns(f"{slot.value}_moved"),
            )
            for slot in Slot
            if slot is not Slot.HABIT  # habits are read by `habits`, not by slot patterns
        },
        change_strong=_one(slots["change_strong"]),
        change_weak=_one(slots["change_weak"]),
        scope=_one(slots["scope"]),
        hedge=_one(slots["hedge"]),
        not_negations=_one(slots["not_negations"]),
        resolve=_one(slots["resolve"]),
        pending=_one(slots["pending"]),
        advice=_one(slots["advice"]),
        light=frozenset(stem(w) for w in slots["light"].split()),
        another=_one(slots["another"]),
        plan_when=_one(slots["plan_when"]),
        plan_filler=_one(slots["plan_filler"]),
        negation_detail=_one(slots.get("negation_detail", r"(?!)")),
        plan_changed=_one(slots["plan_changed"]),
        someone_else=_one(slots["someone_else"].replace("{rel}", rel)),
        first_person=_one(slots["first_person"]),
        habits=tuple(
            HabitCues(name, _one(table["does"]), _one(table["without"]))
            for name, table in habits.items()
            if isinstance(table, dict)
        ),
        habit_negative=_one(habits["negative"]),
        habit_change=_one(habits["change"]),
        habit_lapse=_one(habits["lapse"]),
        habit_lapse_not=_one(habits["lapse_not"]),
        habit_relapse=_one(habits["relapse"]),
        habit_quit_again=_one(habits["quit_again"]),
        habit_relapse_owned=_one(habits["relapse_owned"]),
    )


# Languages written in Cyrillic without cues of their own are read with Russian's: a
# Ukrainian message, or a Russian one the detector took for Bulgarian, shares far more of its
# words and endings with Russian than with English.
_READ_AS_RUSSIAN = frozenset({"uk", "be", "bg", "sr", "mk", "kk"})


@cache
def cues(language: str) -> LanguageCues:
    """The cues of a language; Russian's for the other Cyrillic ones, English's for the rest."""
    text = resources.files("selfimprint.domain.structured").joinpath("data/cues.toml").read_text()
    data = tomllib.loads(text)
    if language in _READ_AS_RUSSIAN:
        language = "ru"
    code = language if language in data and language not in ("relations", "words") else "en"
    return _compile(code, data[code], _relations(data["relations"][code]), data["words"][code])


# Someone else's words the user quotes ("marcus said 'maybe we need a weekend apart'", "calls
# everybody 'pal'"): a doubt or a relation word inside is not the user's.
QUOTED = re.compile(r"'[^']{3,}'|\"[^\"]{3,}\"|«[^»]{3,}»|“[^”]{3,}”|‘[^’]{3,}’")


def normalise(text: str) -> str:
    """What cues are matched on: curly apostrophes straightened, "ё" read as "е"."""
    return text.replace("’", "'").replace("‘", "'").replace("ё", "е").replace("Ё", "Е")
