"""Claims about a slot (job, home, relationship, plans) and when two of them contradict.

A claim says that the slot holds a value ("I work at Initech": job = initech) or that a value no
longer holds ("I quit Initech", "I am not working there anymore": job ends, value initech or
any). Spec §6: a new claim that ends or replaces an older one contradicts it; the tensions log
records it and the older memory loses weight (domain.ingestion does both).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from selfimprint.domain.structured.cues import LanguageCues, normalise
from selfimprint.domain.structured.slots_model import Slot
from selfimprint.domain.terms import read

# "there" / "там": the value the older claim names, whatever it is.
_ANY = frozenset({"there", "там"})


@dataclass(frozen=True)
class Claim:
    slot: Slot
    holds: bool
    value: frozenset[str]  # content stems of the value; empty = any value
    change: bool  # the message says the slot changed ("now", "moved", "теперь")


def _value(raw: str | None, slot: Slot) -> frozenset[str]:
    if not raw or raw.casefold() in _ANY:
        return frozenset()
    stems = read(raw).stems
    # A plan is compared by its content words; an employer, place or partner by its first one.
    return stems if slot is Slot.PLAN else frozenset(sorted(stems)[:1]) if stems else frozenset()


def claims(text: str, cues: LanguageCues) -> tuple[Claim, ...]:
    """The slot claims a message or memory makes, ends before holds (a "quit" is never also
    read as a "work at")."""
    clean = normalise(text)
    found: list[Claim] = []
    for slot, slot_cues in cues.slots.items():
        change = bool(slot_cues.change.search(clean))
        ended = [m for p in slot_cues.ends if (m := p.search(clean))]
        if ended:
            for match in ended:
                raw = match.groupdict().get("value")
                found.append(Claim(slot, False, _value(raw, slot), change))
            continue
        for pattern in slot_cues.holds:
            for match in pattern.finditer(clean):
                raw = match.groupdict().get("value")
                found.append(Claim(slot, True, _value(raw, slot), change))
    return tuple(dict.fromkeys(found))


def contradicts(new: Claim, old: Claim) -> bool:
    """Whether the newer claim makes the older one no longer true."""
    if new.slot is not old.slot:
        return False
    shared = bool(new.value & old.value)
    if new.slot is Slot.PLAN:
        # A plan dropped (or taken up again) about the same thing.
        return new.holds != old.holds and shared
    if not new.holds and old.holds:
        return shared or not new.value or not old.value
    if new.holds and old.holds:
        # Another employer, place or partner replaces the old one when the message says so
        # (two jobs at once are possible; "now" / "moved" / "теперь" is a change).
        return bool(new.value and old.value) and not shared and new.change
    if new.holds and not old.holds:
        # Back where an older claim said it ended ("I'm back at Initech"): only the same value.
        return shared and new.change
    return False


def contradicted(
    text: str, older: Iterable[tuple[str, str]], cues: LanguageCues
) -> tuple[str, ...]:
    """Ids of the older (id, content) memories whose slot claims `text` contradicts."""
    mine = claims(text, cues)
    if not mine:
        return ()
    hits: list[str] = []
    for memory_id, content in older:
        theirs = claims(content, cues)
        if any(contradicts(new, old) for new in mine for old in theirs):
            hits.append(memory_id)
    return tuple(dict.fromkeys(hits))
