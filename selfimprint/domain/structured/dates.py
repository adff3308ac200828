"""The days a message refers to, resolved against when it was sent (spec §3.2 events, §3.8
scheduled triggers).

dateparser finds and resolves the expressions ("tomorrow", "next Tuesday", "18 марта", "два дня
назад"); this module decides which of its finds name one day. Vague times ("last month", "next
week") and bare times of day are not dates of an event. A bare weekday is the next one in a
sentence about the future and the last one in a sentence about the past.
"""

from __future__ import annotations

import re
import warnings
from datetime import date, datetime
from functools import cache
from typing import Any

from selfimprint.domain.structured.cues import LanguageCues, normalise

# Finds that are words of another meaning in English ("may", "march", "sun") or no day at all.
_AMBIGUOUS = frozenset(
    {
        "may",
        "march",
        "sun",
        "sat",
        "wed",
        "we",
        "mon",
        "fri",
        "thu",
        "tue",
        "second",
        "now",
        "a",
        "an",
        "the",
        "on",
        "at",
        "in",
        "of",
        "and",
        "at the",
        "сейчас",
        "теперь",
        "час",
    }
)
_VAGUE = re.compile(
    r"\b(?:week|weeks|weekend|month|months|year|years|hour|hours|minute|minutes|"
    r"недел\w*|месяц\w*|год\w*|лет|час\w*|минут\w*|выходн\w*)\b",
    re.IGNORECASE,
)
_DIGITS_ONLY = re.compile(r"^\W*\d{1,2}(?::\d{2})?\W*$")
_LEADING = re.compile(r"^(?:on|at|in|this|the|в|во|на|к|до)\s+", re.IGNORECASE)
_LANGUAGES = {"en": "en", "ru": "ru"}


@cache
def _search() -> Any:
    # Imported lazily: dateparser loads its language data on first use (~0.1 s).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from dateparser.search import search_dates

    return search_dates


def _names_a_day(found: str) -> bool:
    text = _LEADING.sub("", found.strip().casefold()).strip(" ,.;!?")
    if not text or text in _AMBIGUOUS or _DIGITS_ONLY.match(text):
        return False
    return not _VAGUE.search(text)


def resolve_dates(text: str, sent_at: datetime, cues: LanguageCues) -> tuple[date, ...]:
    """The days `text` names, in order of mention, without repeats."""
    language = _LANGUAGES.get(cues.language, "en")
    clean = normalise(text)
    base = sent_at.replace(tzinfo=None)  # the sender's wall clock: "tomorrow" is theirs
    settings = {
        "RELATIVE_BASE": base,
        "PREFER_DATES_FROM": "past" if cues.past.search(clean) else "future",
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = _search()(clean, languages=[language], settings=settings) or []
    days = [when.date() for phrase, when in found if _names_a_day(phrase)]
    return tuple(dict.fromkeys(days))
