"""Claims about a slot (job, home, relationship, plans) and when two of them contradict.

A claim says that the slot holds a value ("I work at Initech": job = initech) or that a value no
longer holds ("I quit Initech", "I am not working there anymore": job ends, value initech or
any). Spec §6: a new claim that ends or replaces an older one contradicts it; the tensions log
records it and the older memory loses weight (domain.ingestion does both).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from selfimprint.domain.structured.cues import LanguageCues, normalise
from selfimprint.domain.structured.slots_model import Slot
from selfimprint.domain.terms import read

_CLAUSES = re.compile(r"[,;.!?]+|\s(?:but|and|а|но|и)\s", re.IGNORECASE)
# "there" / "там": the value the older claim names, whatever it is.
_ANY = frozenset({"there", "там"})


@dataclass(frozen=True)
class Claim:
    slot: Slot
    holds: bool
    value: frozenset[str]  # content stems of the value; empty = any value
    change: bool  # the message says the slot changed ("now", "moved", "теперь")


def _value(raw: str | None) -> frozenset[str]:
    if not raw or raw.casefold() in _ANY:
        return frozenset()
    return read(raw).stems


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
                found.append(Claim(slot, False, _value(raw), change))
            continue
        for pattern in slot_cues.holds:
            for match in pattern.finditer(clean):
                raw = match.groupdict().get("value")
                found.append(Claim(slot, True, _value(raw), change))
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
        # A partner after "I'm single"; or back where an older claim said it ended ("I'm back
        # at Initech"): only the same value.
        if new.slot is Slot.RELATIONSHIP and not old.value:
            return True
        return shared and new.change
    return False


def changes(text: str, older: str, cues: LanguageCues, min_shared: float) -> bool:
    """A state said to have changed about the older memory's subject: "I don't run anymore"
    after "I run every morning", "cancelled the Japan trip" after "flying to Japan in April".

    The two share content words (at least `min_shared` of the older memory's), and the newer
    says the change: a strong marker ("anymore", "cancelled", "больше не"), or a weak one ("now",
    "again", "теперь") with the negation flipped ("I drink again" after "I don't drink").
    """
    clean = normalise(text)
    old = read(older)
    for clause in _CLAUSES.split(clean):
        strong = bool(cues.change_strong.search(clause))
        if not strong and not cues.change_weak.search(clause):
            continue
        # The subject must be shared in the clause that says the change: "not on the night
        # rota anymore, only day shifts at St. Mary's" did not change the job at St. Mary's.
        new = read(clause)
        shared = len(new.stems & old.stems)
        if not old.stems or shared < max(1.0, min_shared * len(old.stems)):
            continue
        if strong or (new.negations % 2) != (old.negations % 2):
            return True
    return False


def contradicted(
    text: str,
    older: Iterable[tuple[str, str]],
    cues: LanguageCues,
    *,
    min_shared: float = 0.2,
) -> tuple[str, ...]:
    """Ids of the older (id, content) memories `text` contradicts: by a slot claim, or by a
    change of the state they describe (`changes`)."""
    if cues.hedge.search(normalise(text)):
        return ()
    mine = claims(text, cues)
    hits: list[str] = []
    for memory_id, content in older:
        theirs = claims(content, cues)
        if any(contradicts(new, old) for new in mine for old in theirs) or changes(
            text, content, cues, min_shared
        ):
            hits.append(memory_id)
    return tuple(dict.fromkeys(hits))
